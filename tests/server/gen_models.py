"""Writes the model repositories of the server's end-to-end tests under WORK (argv[1]):
repo/ (tiny: batching, 2 instances; plain: no config; ints: INT64; broken: not a model),
slowrepo/ (tiny with a 1.5 s batching delay, for the shutdown test). Exit 77 without onnx."""
import os
import shutil
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:
    print("onnx or numpy missing: skipping")
    sys.exit(77)

TINY_W = (np.arange(12, dtype=np.float32).reshape(4, 3) * 0.1 - 0.5).astype(np.float32)
TINY_B = np.array([0.1, -0.2, 0.3], dtype=np.float32)


def tiny(batch="N"):
    """y = relu(x @ W + b): [N, 3], z = 2 x: [N, 4] for x: float [N, 4]."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 3])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [batch, 4])
    nodes = [
        helper.make_node("MatMul", ["x", "W"], ["xw"]),
        helper.make_node("Add", ["xw", "b"], ["xwb"]),
        helper.make_node("Relu", ["xwb"], ["y"]),
        helper.make_node("Add", ["x", "x"], ["z"]),
    ]
    g = helper.make_graph(nodes, "tiny", [x], [y, z],
                          [numpy_helper.from_array(TINY_W, "W"), numpy_helper.from_array(TINY_B, "b")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def ints():
    """out = a + a for a: int64 [2, 3]."""
    a = helper.make_tensor_value_info("a", TensorProto.INT64, [2, 3])
    o = helper.make_tensor_value_info("out", TensorProto.INT64, [2, 3])
    g = helper.make_graph([helper.make_node("Add", ["a", "a"], ["out"])], "ints", [a], [o])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


TINY_CONFIG = """# a Triton config.pbtxt: the fields migraphx-server does not read are skipped
name: "tiny"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 3 ] }, { name: "z" data_type: TYPE_FP32 dims: [ 4 ] } ]
instance_group [ { count: 2 kind: KIND_CPU } ]
dynamic_batching { max_queue_delay_microseconds: %d }
"""


def write(path, model):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    onnx.save(model, path)


def main():
    work = sys.argv[1]
    for d in ("repo", "slowrepo"):
        shutil.rmtree(os.path.join(work, d), ignore_errors=True)
    repo = os.path.join(work, "repo")
    write(os.path.join(repo, "tiny", "1", "model.onnx"), tiny())
    open(os.path.join(repo, "tiny", "config.pbtxt"), "w").write(TINY_CONFIG % 20000)
    write(os.path.join(repo, "plain", "1", "model.onnx"), tiny(1))
    write(os.path.join(repo, "ints", "1", "model.onnx"), ints())
    os.makedirs(os.path.join(repo, "broken", "1"))
    open(os.path.join(repo, "broken", "1", "model.onnx"), "wb").write(b"this is not an ONNX model")
    slow = os.path.join(work, "slowrepo")
    write(os.path.join(slow, "tiny", "1", "model.onnx"), tiny())
    open(os.path.join(slow, "tiny", "config.pbtxt"), "w").write(TINY_CONFIG % 1500000)
    np.save(os.path.join(work, "tiny_w.npy"), TINY_W)
    np.save(os.path.join(work, "tiny_b.npy"), TINY_B)
    print("wrote", repo, slow)


if __name__ == "__main__":
    main()
