#!/usr/bin/env python3
"""Writes ONNX models of one reverse-direction LSTM (as tf2onnx exports a Keras layer with
go_backwards=True), random weights, for gpu::rnn's reverse form against the unrolled one:
  reverse_rnn_onnx.py OUT_DIR [--seq 32] [--input 64] [--hidden 128] [--batches 1,64]
writes OUT_DIR/reverse_lstm_b<N>.onnx (inputs X {seq, N, input}; outputs Y, Y_h, Y_c)."""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(seq, batch, inp, hidden, rng):
    gh = 4 * hidden
    scale = 1.0 / np.sqrt(hidden)
    w = numpy_helper.from_array((rng.standard_normal((1, gh, inp)) * scale).astype(np.float32), "W")
    r = numpy_helper.from_array((rng.standard_normal((1, gh, hidden)) * scale).astype(np.float32), "R")
    b = numpy_helper.from_array((rng.standard_normal((1, 2 * gh)) * 0.1).astype(np.float32), "B")
    node = helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y", "Y_h", "Y_c"], hidden_size=hidden,
                            direction="reverse")
    graph = helper.make_graph(
        [node], "reverse_lstm",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [seq, batch, inp])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [seq, 1, batch, hidden]),
         helper.make_tensor_value_info("Y_h", TensorProto.FLOAT, [1, batch, hidden]),
         helper.make_tensor_value_info("Y_c", TensorProto.FLOAT, [1, batch, hidden])],
        initializer=[w, r, b])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(m)
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--seq", type=int, default=32)
    ap.add_argument("--input", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--batches", default="1,64")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(7)
    for n in (int(x) for x in a.batches.split(",")):
        path = os.path.join(a.out, f"reverse_lstm_b{n}.onnx")
        onnx.save(model(a.seq, n, a.input, a.hidden, rng), path)
        print(path)


if __name__ == "__main__":
    main()
