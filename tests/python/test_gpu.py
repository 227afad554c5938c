"""Device buffers (spec chapter 6): allocate_gpu, to_gpu, from_gpu, offload_copy=False."""
import unittest

import numpy as np

import migraphx
from pytest_util import run_tests
from test_program import build_program, expected


class GpuTest(unittest.TestCase):
    def test_roundtrip(self):
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        d = migraphx.to_gpu(migraphx.argument(a))
        self.assertEqual(d.get_shape(), migraphx.argument(a).get_shape())
        self.assertNotEqual(d.data_ptr(), a.ctypes.data)
        np.testing.assert_array_equal(np.array(migraphx.from_gpu(d)), a)
        buf = migraphx.allocate_gpu(s=migraphx.shape(type="float_type", lens=[5]))
        self.assertEqual(buf.get_shape().lens(), [5])
        self.assertGreater(migraphx.get_device_count(), 0)

    def test_offload_copy_false(self):
        x = np.array([[1, 2, 3], [-1, 0, 0.5]], dtype=np.float32)
        p = build_program()
        p.compile(t=migraphx.get_target("gpu"), offload_copy=False, device_id=0)
        params = {k: migraphx.allocate_gpu(s=s) for k, s in p.get_outputs().items()}
        params["x"] = migraphx.to_gpu(migraphx.argument(x))
        results = p.run(params)
        host = migraphx.from_gpu(results[0])
        np.testing.assert_allclose(np.array(host), expected(x), rtol=1e-5)

    def test_offload_copy_true(self):
        x = np.array([[1, 2, 3], [-1, 0, 0.5]], dtype=np.float32)
        p = build_program()
        p.compile(t=migraphx.get_target("gpu"))  # offload_copy defaults to True
        np.testing.assert_allclose(np.array(p.run({"x": x})[0]), expected(x), rtol=1e-5)


if __name__ == "__main__":
    run_tests(require_gpu=True)
