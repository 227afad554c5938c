#!/usr/bin/python3
"""Writes the seed models of the parse_onnx_buffer fuzzer into fuzz_corpus/ (small, varied graphs)."""
import os
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto as T

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_corpus")
os.makedirs(out, exist_ok=True)


def save(name, nodes, inputs, outputs, inits=(), opset=17):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def vi(name, t, dims):
    return helper.make_tensor_value_info(name, t, dims)


f = T.FLOAT
save("relu", [helper.make_node("Relu", ["x"], ["y"])], [vi("x", f, ["N", 3])], [vi("y", f, None)])
w = numpy_helper.from_array(np.ones((2, 3, 3, 3), np.float32), "w")
save("conv_pool", [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2]),
                   helper.make_node("MaxPool", ["c"], ["y"], kernel_shape=[2, 2], auto_pad="SAME_UPPER")],
     [vi("x", f, [1, 3, 8, 8])], [vi("y", f, None)], [w])
shape = numpy_helper.from_array(np.array([0, -1], np.int64), "shape")
save("shape_ops", [helper.make_node("Reshape", ["x", "shape"], ["r"]),
                   helper.make_node("Transpose", ["r"], ["t"], perm=[1, 0]),
                   helper.make_node("Slice", ["t", "st", "en"], ["y"])],
     [vi("x", f, [2, 3, 4])], [vi("y", f, None)],
     [shape, numpy_helper.from_array(np.array([1], np.int64), "st"),
      numpy_helper.from_array(np.array([-1], np.int64), "en")])
then_g = helper.make_graph([helper.make_node("Neg", ["x"], ["o"])], "then", [], [vi("o", f, None)])
else_g = helper.make_graph([helper.make_node("Abs", ["x"], ["o"])], "else", [], [vi("o", f, None)])
save("if", [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
     [vi("c", T.BOOL, []), vi("x", f, [2])], [vi("y", f, None)])
body = helper.make_graph([helper.make_node("Identity", ["cin"], ["cout"]),
                          helper.make_node("Add", ["v", "v"], ["vout"])], "body",
                         [vi("i", T.INT64, []), vi("cin", T.BOOL, []), vi("v", f, [2])],
                         [vi("cout", T.BOOL, []), vi("vout", f, [2])])
save("loop", [helper.make_node("Loop", ["m", "", "x"], ["y"], body=body)], [vi("x", f, [2])], [vi("y", f, None)],
     [numpy_helper.from_array(np.array(3, np.int64), "m")])
save("resize", [helper.make_node("Resize", ["x", "", "s"], ["y"], mode="linear")], [vi("x", f, [1, 1, 2, 2])],
     [vi("y", f, None)], [numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "s")])
save("lstm", [helper.make_node("LSTM", ["x", "w", "r"], ["y", "h"], hidden_size=2)], [vi("x", f, [3, 1, 2])],
     [vi("y", f, None), vi("h", f, None)],
     [numpy_helper.from_array(np.ones((1, 8, 2), np.float32), "w"),
      numpy_helper.from_array(np.ones((1, 8, 2), np.float32), "r")])
save("einsum_gemm", [helper.make_node("Einsum", ["a", "b"], ["e"], equation="bij,bjk->bik"),
                     helper.make_node("Gemm", ["m", "m"], ["g"], transB=1)],
     [vi("a", f, [2, 2, 3]), vi("b", f, [2, 3, 2]), vi("m", f, [2, 2])], [vi("e", f, None), vi("g", f, None)])
save("legacy_opset6", [helper.make_node("Add", ["x", "b"], ["y"], broadcast=1, axis=1)],
     [vi("x", f, [2, 3, 4]), vi("b", f, [3])], [vi("y", f, None)], opset=6)
save("maxroipool_bernoulli", [helper.make_node("MaxRoiPool", ["x", "rois"], ["p"], pooled_shape=[2, 2], spatial_scale=0.5),
                              helper.make_node("Sigmoid", ["p"], ["s"]),
                              helper.make_node("Bernoulli", ["s"], ["y"], seed=1.0)],
     [vi("x", f, [1, 2, 6, 6])], [vi("y", f, None)],
     [numpy_helper.from_array(np.array([[0, 0, 0, 8, 8], [0, 2, 2, 6, 10]], np.float32), "rois")])
