import unittest

import numpy as np

import migraphx
from pytest_util import run_tests


def conv_program():
    p = migraphx.program()
    mm = p.get_main_module()
    x = mm.add_parameter("x", migraphx.shape(type="float_type", lens=[1, 2, 5, 5]))
    w = mm.add_literal(((np.arange(36, dtype=np.float32) % 7) - 3).reshape(2, 2, 3, 3) / 4)
    c = mm.add_instruction(migraphx.op("convolution", padding=[1, 1]), [x, w])
    mm.add_return([mm.add_instruction(migraphx.op("relu"), [c])])
    return p


def run(p, x, target="ref"):
    p.compile(migraphx.get_target(target))
    return np.array(p.run({"x": x})[0])


@unittest.skipUnless(hasattr(migraphx, "quantize_fp16"), "built without <migraphx/quantization.hpp>")
class QuantizeTest(unittest.TestCase):
    x = (np.arange(50, dtype=np.float32).reshape(1, 2, 5, 5) % 11) / 5 - 1

    def test_fp16(self):
        want = run(conv_program(), self.x)
        p = conv_program()
        migraphx.quantize_fp16(p)
        self.assertIn("half_type", str(p))
        got = run(p, self.x)
        self.assertEqual(got.dtype, np.float32)  # outputs keep their type
        np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2)
        q = conv_program()
        migraphx.quantize_fp16(q, ins_names=["relu"])  # only the named ops
        lines = str(q).splitlines()
        self.assertTrue(any(l.startswith("main:@") and "= relu(" in l and "-> half_type" in l for l in lines))
        self.assertFalse(any("= convolution[" in l and "-> half_type" in l for l in lines))

    def test_int8(self):
        want = run(conv_program(), self.x)
        p = conv_program()
        migraphx.quantize_int8(p, migraphx.get_target("ref"), [{"x": self.x}])
        text = str(p)
        self.assertIn("int8_type", text)
        got = run(p, self.x)
        np.testing.assert_allclose(got, want, rtol=0.1, atol=0.1)
        p2 = conv_program()
        migraphx.quantize_int8(p2, migraphx.get_target("ref"), [{"x": migraphx.argument(self.x)}],
                               ins_names=["convolution"])
        self.assertEqual(str(p2), text)  # numpy or argument calibration data: same result

    def test_fp8(self):
        want = run(conv_program(), self.x)
        p = conv_program()
        migraphx.quantize_fp8(p, migraphx.get_target("ref"), [{"x": self.x}])
        text = str(p)
        self.assertIn("fp8e4m3fn_type", text)
        self.assertIn("quantizelinear", text)
        got = run(p, self.x)
        np.testing.assert_allclose(got, want, rtol=0.1, atol=0.1)
        self.assertFalse(np.array_equal(got, want))  # e4m3 rounding shows
        # an fp8 argument: its buffer holds the bits (numpy has no fp8), tolist() the values
        a = migraphx.generate_argument(migraphx.shape(type="fp8e4m3fn_type", lens=[4]))
        self.assertEqual(np.array(a).dtype, np.uint8)
        self.assertTrue(all(isinstance(v, float) for v in a.tolist()))
        with self.assertRaises(Exception):
            migraphx.quantize_fp8(conv_program(), migraphx.get_target("ref"), [{"x": self.x}], ins_names=["relu"])


if __name__ == "__main__":
    run_tests()
