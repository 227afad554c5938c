import os
import tempfile
import unittest

import numpy as np

import migraphx
from pytest_util import run_tests

try:
    import onnx
    from onnx import TensorProto, helper
except ImportError:
    onnx = None


def make_model(batch_dim="N"):
    """y = Relu(x + c) with x: [batch_dim, 3] (a symbolic batch), c a constant initializer."""
    c = helper.make_tensor("c", TensorProto.FLOAT, [3], [1.0, -2.0, 0.5])
    node_add = helper.make_node("Add", ["x", "c"], ["s"])
    node_relu = helper.make_node("Relu", ["s"], ["y"])
    graph = helper.make_graph([node_add, node_relu], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch_dim, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch_dim, 3])], [c])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@unittest.skipIf(onnx is None, "needs the onnx Python package")
class OnnxTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.dir.name, "m.onnx")
        onnx.save(make_model(), cls.path)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def check_runs(self, p, batch):
        x = np.arange(batch * 3, dtype=np.float32).reshape(batch, 3) - 4
        p.compile(migraphx.get_target("ref"))
        y = np.array(p.run({"x": x})[0])
        np.testing.assert_array_equal(y, np.maximum(x + np.array([1, -2, 0.5], np.float32), 0))

    def test_parse_file(self):
        p = migraphx.parse_onnx(self.path)
        self.assertEqual(list(p.get_inputs()), ["x"])
        self.assertEqual(p.get_inputs()["x"].lens(), [1, 3])  # symbolic dim -> 1
        self.assertEqual(list(p.get_outputs()), ["y"])
        self.check_runs(p, 1)

    def test_options(self):
        p = migraphx.parse_onnx(self.path, default_dim_value=4)
        self.assertEqual(p.get_inputs()["x"].lens(), [4, 3])
        p = migraphx.parse_onnx(self.path, map_input_dims={"x": [5, 3]})
        self.assertEqual(p.get_inputs()["x"].lens(), [5, 3])
        self.assertEqual(p.get_outputs()["y"].lens(), [5, 3])
        self.check_runs(p, 5)

    def test_dynamic_batch(self):
        # A symbolic dim given in map_input_dims is a maximum (spec 9.1.2): any batch up to it runs.
        p = migraphx.parse_onnx(self.path, map_input_dims={"x": [5, 3]})
        s = p.get_inputs()["x"]
        self.assertTrue(s.dynamic())
        self.assertEqual([(d.min, d.max) for d in s.dyn_dims()], [(1, 5), (3, 3)])
        self.check_runs(p, 5)  # compiles
        for batch in (1, 3):
            x = np.arange(batch * 3, dtype=np.float32).reshape(batch, 3) - 4
            np.testing.assert_array_equal(np.array(p.run({"x": x})[0]), np.maximum(x + [1, -2, 0.5], 0))
        with self.assertRaises(migraphx.exception) as e:
            p.run({"x": np.ones((6, 3), np.float32)})
        self.assertIn("1..5", str(e.exception))

    def test_map_dyn_input_dims(self):
        dd = migraphx.shape.dynamic_dimension
        p = migraphx.parse_onnx(self.path, map_dyn_input_dims={"x": [dd(2, 4, {3}), dd(3, 3)]})
        self.assertEqual(p.get_inputs()["x"].dyn_dims()[0], dd(2, 4, {3}))
        p.compile(migraphx.get_target("ref"))
        x = np.full((3, 3), -1, np.float32)
        np.testing.assert_array_equal(np.array(p.run({"x": x})[0]), np.maximum(x + [1, -2, 0.5], 0))
        with self.assertRaises(migraphx.exception):
            p.run({"x": np.ones((1, 3), np.float32)})

    def test_parse_buffer(self):
        with open(self.path, "rb") as f:
            data = f.read()
        p = migraphx.parse_onnx_buffer(data, map_input_dims={"x": [2, 3]})
        self.assertEqual(p, migraphx.parse_onnx(self.path, map_input_dims={"x": [2, 3]}))
        self.check_runs(p, 2)

    def test_unknown_operator(self):
        node = helper.make_node("NoSuchOp", ["x"], ["y"], domain="")
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
        data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
        with self.assertRaises(migraphx.exception) as e:
            migraphx.parse_onnx_buffer(data)
        self.assertIn("NoSuchOp", str(e.exception))
        p = migraphx.parse_onnx_buffer(data, skip_unknown_operators=True)
        self.assertIn("x", p.get_inputs())

    def test_errors(self):
        with self.assertRaises(migraphx.exception) as e:
            migraphx.parse_onnx(os.path.join(self.dir.name, "missing.onnx"))
        self.assertIn("missing.onnx", str(e.exception))
        with self.assertRaises(migraphx.exception):
            migraphx.parse_onnx_buffer(b"not a model")
        with self.assertRaises(migraphx.exception) as e:
            migraphx.parse_onnx(self.path, map_input_dims={"x": [2, 3, 4]})
        self.assertIn("rank", str(e.exception))
        self.assertIn("Relu", migraphx.get_onnx_operators())


if __name__ == "__main__":
    run_tests()
