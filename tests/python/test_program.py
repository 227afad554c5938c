import threading
import time
import unittest

import numpy as np

import migraphx
from pytest_util import has_target, run_tests

TARGETS = [t for t in ("ref", "cpu", "gpu") if has_target(t)]


def build_program():
    """y = relu(x . w + b) transposed, built through the module API."""
    p = migraphx.program()
    mm = p.get_main_module()
    x = mm.add_parameter("x", migraphx.shape(type="float_type", lens=[2, 3]))
    w = mm.add_literal(np.arange(12, dtype=np.float32).reshape(3, 4) - 5)
    b = mm.add_literal(np.array([1, -100, 0, 2], dtype=np.float32))
    d = mm.add_instruction(migraphx.op("dot"), [x, w])
    bb = mm.add_instruction(migraphx.op("multibroadcast", out_lens=[2, 4]), [b])
    s = mm.add_instruction(migraphx.op("add"), [d, bb])
    r = mm.add_instruction(migraphx.op("relu"), [s])
    t = mm.add_instruction(migraphx.op("transpose", permutation=[1, 0]), [r])
    mm.add_return([t])
    return p


def expected(x):
    w = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    b = np.array([1, -100, 0, 2], dtype=np.float32)
    return np.maximum(x @ w + b, 0).T


class ProgramTest(unittest.TestCase):
    def test_build_and_print(self):
        p = build_program()
        text = str(p)
        self.assertIn('module: "main"', text)
        self.assertIn("x = @param:x -> float_type, {2, 3}, {3, 1}", text)
        self.assertIn("transpose[permutation={1, 0}]", text)
        self.assertIn("@return(", text)
        mm = p.get_main_module()
        self.assertEqual(mm.name(), "main")
        self.assertEqual(len(mm), 9)
        self.assertIn(str(mm).strip(), text)
        self.assertEqual(p.get_parameter_names(), ["x"])
        self.assertEqual(list(p.get_inputs()), ["x"])
        self.assertEqual(str(p.get_parameter_shapes()["x"]), "float_type, {2, 3}, {3, 1}")
        outs = p.get_outputs()
        self.assertEqual(len(outs), 1)
        self.assertEqual(list(outs.values())[0].lens(), [4, 2])
        self.assertEqual(p.get_output_shapes()[0].lens(), [4, 2])
        self.assertFalse(p.is_compiled())

    def test_instruction_refs(self):
        p = migraphx.program()
        mm = p.get_main_module()
        x = mm.add_parameter("x", migraphx.shape(type="float_type", lens=[3]))
        y = mm.add_instruction(migraphx.op("neg"), [x])
        self.assertEqual(y.name(), "neg")
        self.assertEqual(y.shape().lens(), [3])
        self.assertEqual(y.inputs(), [x])
        self.assertEqual(str(y.op()), "neg")
        del p, mm  # the handles keep the program alive
        self.assertEqual(y.inputs()[0].name(), "@param")

    def test_compile_run_every_target(self):
        x = np.array([[1, 2, 3], [-1, 0, 0.5]], dtype=np.float32)
        for t in TARGETS:
            with self.subTest(target=t):
                p = build_program()
                if t == "gpu":
                    p.compile(migraphx.get_target(t), offload_copy=True, device_id=0)
                else:
                    p.compile(t=migraphx.get_target(t))
                self.assertTrue(p.is_compiled())
                self.assertEqual(p.target_name(), t)
                self.assertIsInstance(p.get_memory_usage(), int)
                results = p.run({"x": x})  # a numpy array straight in
                self.assertEqual(len(results), 1)
                np.testing.assert_allclose(np.array(results[0]), expected(x), rtol=1e-6)
                r2 = p.run({"x": migraphx.argument(x)})  # or an argument
                np.testing.assert_array_equal(np.array(r2[0]), np.array(results[0]))
                named = p.run({"x": x}, p.get_output_names())
                np.testing.assert_array_equal(np.array(named[0]), np.array(results[0]))

    def test_strided_input(self):
        base = np.arange(6, dtype=np.float32).reshape(3, 2)
        p = build_program()
        p.compile(migraphx.get_target("ref"))
        r = p.run({"x": base.T})  # a transposed view as input
        np.testing.assert_allclose(np.array(r[0]), expected(base.T), rtol=1e-6)

    def test_clone_and_equality(self):
        p = build_program()
        q = p.clone()
        self.assertEqual(p, q)
        q.get_main_module().add_parameter("extra", migraphx.shape(type="float_type", lens=[1]))
        self.assertNotEqual(p, q)
        self.assertEqual(p.get_parameter_names(), ["x"])
        q = p.clone()
        q.compile(migraphx.get_target("ref"))
        self.assertTrue(q.is_compiled())
        self.assertFalse(p.is_compiled())

    def test_submodule_and_kwargs(self):
        self.assertEqual(migraphx.op("flatten", axis=2).attributes()["axis"], 2)
        op = migraphx.op("convolution", padding=[1, 1], stride=(2, 2), group=1)
        self.assertEqual(str(op), "convolution[padding={1, 1},stride={2, 2},dilation={1, 1},group=1,"
                                  "padding_mode=0,use_dynamic_same_auto_pad=0]")
        self.assertEqual(op, migraphx.op("convolution", padding=[1, 1], stride=[2, 2]))
        self.assertEqual(migraphx.op("convert", target_type=migraphx.shape.half_type).attributes()["target_type"],
                         migraphx.op("convert", target_type=int(migraphx.shape.half_type)).attributes()["target_type"])
        self.assertIn("relu", migraphx.get_operators())
        s = migraphx.op("reduce_sum", axes=[1]).compute_shape([migraphx.shape(type="float_type", lens=[2, 3])])
        self.assertEqual(s.lens(), [2, 1])
        p = migraphx.program()
        sub = p.create_module("sub")
        self.assertEqual(sub.name(), "sub")
        self.assertEqual(p.get_module("sub").name(), "sub")

    def test_errors_keep_message(self):
        with self.assertRaises(migraphx.exception) as e:
            migraphx.op("no_such_op")
        self.assertIn("unknown operator 'no_such_op'", str(e.exception))
        self.assertIsInstance(e.exception, RuntimeError)
        with self.assertRaises(migraphx.exception):
            migraphx.op("transpose", no_such_attribute=1)
        p = migraphx.program()
        mm = p.get_main_module()
        a = mm.add_parameter("a", migraphx.shape(type="float_type", lens=[2, 3]))
        b = mm.add_parameter("b", migraphx.shape(type="float_type", lens=[4]))
        with self.assertRaises(migraphx.exception) as e:
            mm.add_instruction(migraphx.op("add"), [a, b])
        self.assertIn("add", str(e.exception))
        with self.assertRaises(migraphx.exception):
            migraphx.get_target("no_such_target")
        q = build_program()
        q.compile(migraphx.get_target("ref"))
        with self.assertRaises(migraphx.exception) as e:
            q.run({})
        self.assertIn("parameter 'x' is missing", str(e.exception))
        with self.assertRaises(migraphx.exception) as e:
            q.run({"x": np.zeros((3, 3), np.float32)})
        self.assertIn("'x'", str(e.exception))
        with self.assertRaises(TypeError):
            migraphx.op("transpose", permutation=object())

    def test_gil_released_during_compile_and_run(self):
        p = migraphx.program()
        mm = p.get_main_module()
        x = mm.add_parameter("x", migraphx.shape(type="float_type", lens=[192, 192]))
        y = x
        for _ in range(12):
            y = mm.add_instruction(migraphx.op("dot"), [y, x])
        mm.add_return([y])
        p.compile(migraphx.get_target("ref"))
        data = np.full((192, 192), 1.0 / 192, dtype=np.float32)
        done = threading.Event()
        ticks = [0]

        def work():
            p.run({"x": data})
            done.set()

        th = threading.Thread(target=work)
        start = time.time()
        th.start()
        while not done.is_set():
            ticks[0] += 1  # runs only while the worker does not hold the GIL
            time.sleep(0.001)
        th.join()
        elapsed = time.time() - start
        self.assertGreater(ticks[0], 5, "main thread starved during run (%.3fs)" % elapsed)


if __name__ == "__main__":
    run_tests()
