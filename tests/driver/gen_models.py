#!/usr/bin/python3
"""Writes the small ONNX models the driver tests run on into the folder given as argv[1]."""
import os
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:  # no onnx for Python: the driver tests are skipped, not failed
    print("skipping: " + str(e))
    sys.exit(77)


def save(graph, path):
    model = helper.make_model(graph, producer_name="migx-driver-tests",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, path)


def add_relu(path):
    """sum = x + y, z = relu(sum); outputs z then sum, all {1, 3, 4, 4}."""
    dims = [1, 3, 4, 4]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, dims)
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, dims)
    s = helper.make_tensor_value_info("sum", TensorProto.FLOAT, dims)
    nodes = [helper.make_node("Add", ["x", "y"], ["sum"]), helper.make_node("Relu", ["sum"], ["z"])]
    save(helper.make_graph(nodes, "add_relu", [x, y], [z, s]), path)


def conv_relu(path):
    """y = relu(conv(x, ones{2, 3, 3, 3}) + {0.5, -100}), x {N, 3, 8, 8} with a symbolic batch N.
    With x all ones: channel 0 is 27.5 everywhere, channel 1 is 0."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2, 6, 6])
    w = numpy_helper.from_array(np.ones([2, 3, 3, 3], dtype=np.float32), "w")
    b = numpy_helper.from_array(np.array([0.5, -100], dtype=np.float32), "b")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3]),
             helper.make_node("Relu", ["c"], ["y"])]
    save(helper.make_graph(nodes, "conv_relu", [x], [y], initializer=[w, b]), path)


def nonzero_reshape(path):
    """y = float(reshape(transpose(nonzero(x * {1, 0, 2, 0, 3, 0})), [-1]))^2, x {6}: a result of
    data-dependent size (3 rows where x is all ones, 6 declared) viewed by a reshape."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [6])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["K"])
    w = numpy_helper.from_array(np.array([1, 0, 2, 0, 3, 0], dtype=np.float32), "w")
    s = numpy_helper.from_array(np.array([-1], dtype=np.int64), "s")
    nodes = [helper.make_node("Mul", ["x", "w"], ["m"]), helper.make_node("NonZero", ["m"], ["nz"]),
             helper.make_node("Transpose", ["nz"], ["t"], perm=[1, 0]), helper.make_node("Reshape", ["t", "s"], ["r"]),
             helper.make_node("Cast", ["r"], ["c"], to=TensorProto.FLOAT), helper.make_node("Mul", ["c", "c"], ["y"])]
    save(helper.make_graph(nodes, "nonzero_reshape", [x], [y], initializer=[w, s]), path)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    add_relu(os.path.join(out, "add_relu.onnx"))
    conv_relu(os.path.join(out, "conv_relu.onnx"))
    nonzero_reshape(os.path.join(out, "nonzero_reshape.onnx"))
    with open(os.path.join(out, "garbage.onnx"), "wb") as f:
        f.write(b"\x08\xff\xff this is not a protobuf \x00\x01")
    with open(os.path.join(out, "model.bin"), "wb") as f:
        f.write(b"\x00")


if __name__ == "__main__":
    main()
