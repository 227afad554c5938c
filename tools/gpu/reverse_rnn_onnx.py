#!/usr/bin/env python3
"""Writes ONNX models of one reverse-direction LSTM (as tf2onnx exports a Keras layer with
go_backwards=True), random weights, for gpu::rnn's reverse form against the unrolled one:
  reverse_rnn_onnx.py OUT_DIR [--seq 32] [--input 64] [--hidden 128] [--batches 1,64] [--initial-states]
writes OUT_DIR/reverse_lstm_b<N>.onnx (inputs X {seq, N, input}, with --initial-states also
initial_h and initial_c {1, N, hidden}: reverse_lstm_h0_b<N>.onnx; outputs Y, Y_h, Y_c)."""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(seq, batch, inp, hidden, rng, states):
    gh = 4 * hidden
    scale = 1.0 / np.sqrt(hidden)
    w = numpy_helper.from_array((rng.standard_normal((1, gh, inp)) * scale).astype(np.float32), "W")
    r = numpy_helper.from_array((rng.standard_normal((1, gh, hidden)) * scale).astype(np.float32), "R")
    b = numpy_helper.from_array((rng.standard_normal((1, 2 * gh)) * 0.1).astype(np.float32), "B")
    ins = ["X", "W", "R", "B"] + (["", "initial_h", "initial_c"] if states else [])
    node = helper.make_node("LSTM", ins, ["Y", "Y_h", "Y_c"], hidden_size=hidden, direction="reverse")
    inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, [seq, batch, inp])]
    if states:
        inputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, batch, hidden])
                   for n in ("initial_h", "initial_c")]
    graph = helper.make_graph(
        [node], "reverse_lstm", inputs,
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
    ap.add_argument("--initial-states", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(7)
    for n in (int(x) for x in a.batches.split(",")):
        name = "reverse_lstm_h0" if a.initial_states else "reverse_lstm"
        path = os.path.join(a.out, f"{name}_b{n}.onnx")
        onnx.save(model(a.seq, n, a.input, a.hidden, rng, a.initial_states), path)
        print(path)


if __name__ == "__main__":
    main()
