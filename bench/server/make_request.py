"""Writes a v2 infer request body for the load test: argv[1] = input name, argv[2] = dims
(comma-separated), argv[3] = output file. The input goes as a binary tensor (the binary-tensor
extension); prints the JSON part's length (the Inference-Header-Content-Length)."""
import json
import sys

import numpy as np

name, dims, out = sys.argv[1], [int(d) for d in sys.argv[2].split(",")], sys.argv[3]
x = np.random.default_rng(0).standard_normal(dims).astype(np.float32)
head = json.dumps({"inputs": [{"name": name, "datatype": "FP32", "shape": dims,
                               "parameters": {"binary_data_size": x.nbytes}}],
                   "parameters": {"binary_data_output": True}}).encode()
open(out, "wb").write(head + x.tobytes())
print(len(head))
