import gc
import sys
import unittest

import numpy as np

import migraphx
from pytest_util import run_tests


class ArgumentTest(unittest.TestCase):
    def test_shares_contiguous_array(self):
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        arg = migraphx.argument(a)
        self.assertEqual(arg.data_ptr(), a.ctypes.data)  # no copy
        self.assertEqual(str(arg.get_shape()), "float_type, {3, 4}, {4, 1}")
        a[0, 0] = 42  # same memory
        self.assertEqual(arg.tolist()[0], 42.0)

    def test_keeps_array_alive(self):
        a = np.arange(6, dtype=np.int32)
        refs = sys.getrefcount(a)
        arg = migraphx.argument(a)
        self.assertGreater(sys.getrefcount(a), refs)
        del a
        gc.collect()
        self.assertEqual(arg.tolist(), [0, 1, 2, 3, 4, 5])
        b = np.arange(3, dtype=np.float64)
        arg2 = migraphx.argument(b)
        del arg2
        gc.collect()
        self.assertEqual(sys.getrefcount(b), refs)  # released with the argument

    def test_strided_views(self):
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        t = migraphx.argument(a.T)  # transposed: shared, strides in elements
        self.assertEqual(t.data_ptr(), a.ctypes.data)
        self.assertEqual(t.get_shape().lens(), [4, 3])
        self.assertEqual(t.get_shape().strides(), [1, 4])
        self.assertEqual(t.tolist(), a.T.flatten().tolist())
        np.testing.assert_array_equal(np.array(t), a.T)
        s = migraphx.argument(a[:, 1::2])  # sliced
        self.assertEqual(s.get_shape().strides(), [4, 2])
        np.testing.assert_array_equal(np.array(s), a[:, 1::2])
        r = migraphx.argument(a[::-1])  # negative strides: copied into row-major memory
        self.assertTrue(r.get_shape().standard())
        np.testing.assert_array_equal(np.array(r), a[::-1])
        bc = migraphx.argument(np.broadcast_to(np.float32(3), (2, 3)))
        self.assertTrue(bc.get_shape().scalar())
        self.assertEqual(bc.tolist(), [3.0] * 6)

    def test_dtypes_roundtrip(self):
        for dt, name in [(np.float16, "half_type"), (np.float32, "float_type"), (np.float64, "double_type"),
                         (np.int8, "int8_type"), (np.uint8, "uint8_type"), (np.int16, "int16_type"),
                         (np.uint16, "uint16_type"), (np.int32, "int32_type"), (np.int64, "int64_type"),
                         (np.uint32, "uint32_type"), (np.uint64, "uint64_type"), (np.bool_, "bool_type")]:
            a = (np.arange(6) % 2 == 1) if dt is np.bool_ else np.arange(6).astype(dt)
            arg = migraphx.argument(a.reshape(2, 3))
            self.assertEqual(arg.get_shape().type_string(), name)
            back = np.array(arg)
            self.assertEqual(back.dtype, np.dtype(dt))
            np.testing.assert_array_equal(back, a.reshape(2, 3))
            self.assertEqual(arg.tolist(), a.tolist())

    def test_buffer_protocol(self):
        arg = migraphx.generate_argument(migraphx.shape(type="float_type", lens=[2, 5]), 3)
        view = np.asarray(arg)  # a view that keeps arg alive
        self.assertEqual(view.ctypes.data, arg.data_ptr())
        copy = np.array(arg)
        self.assertNotEqual(copy.ctypes.data, arg.data_ptr())
        self.assertEqual(copy.tolist(), view.tolist())
        self.assertEqual(np.array(arg).flatten().tolist(), [float(np.float32(x)) for x in arg.tolist()])
        m = memoryview(arg)
        self.assertEqual(m.format, "f")
        self.assertEqual(m.shape, (2, 5))

    def test_generate_argument(self):
        s = migraphx.shape(type="float_type", lens=[4, 4])
        a, b, c = (migraphx.generate_argument(s, 1), migraphx.generate_argument(s, 1),
                   migraphx.generate_argument(s, 2))
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        self.assertEqual(a.get_shape(), s)
        self.assertEqual(migraphx.generate_argument(s), migraphx.generate_argument(s, seed=0))

    def test_zero_argument_and_scalar(self):
        z = migraphx.argument(migraphx.shape(type="int32_type", lens=[3]))
        self.assertEqual(z.tolist(), [0, 0, 0])
        s = migraphx.argument(np.array(2.5, dtype=np.float32))  # 0-d: one element
        self.assertEqual(s.get_shape().elements(), 1)
        self.assertEqual(s.tolist(), [2.5])

    def test_errors(self):
        with self.assertRaises(migraphx.exception) as e:
            migraphx.argument(np.zeros(3, dtype=np.complex64))
        self.assertIn("unsupported buffer format", str(e.exception))
        with self.assertRaises(TypeError):
            migraphx.argument("text")


if __name__ == "__main__":
    run_tests()
