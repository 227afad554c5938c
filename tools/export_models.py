#!/usr/bin/python3
"""Export test models to ONNX with reference outputs, from Debian's torch/torchvision.

Weights are random (seeded, no downloads). Batch-norm statistics are re-estimated on a few
random batches so activations keep a sensible scale through deep networks. Each model is
written in the ONNX test-data layout:

    DIR/<model>/model.onnx
    DIR/<model>/test_data_set_0/input_0.pb    (onnx.TensorProto, named as the model input)
    DIR/<model>/test_data_set_0/output_0.pb   (torch's output for that input)

Usage: tools/export_models.py --out DIR [--models resnet50,mobilenetv2,bert] [--opset N]
"""

import argparse
import math
import os
import sys
import time

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torch.nn as nn
import torchvision


def max_opset():
    try:
        from torch.onnx._constants import ONNX_MAX_OPSET
    except ImportError:  # older/newer layouts: 13 works everywhere we care about
        return 13
    return ONNX_MAX_OPSET


DEFAULT_OPSET = max(13, min(17, max_opset()))


def reestimate_batch_norm(model, make_batch, batches=4):
    """Recompute every BatchNorm's running mean/var as a plain average over random batches."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None  # cumulative average
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(make_batch())
    model.eval()


# --- a BERT-style encoder, written out in torch ---------------------------------------------

class SelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.scale = 1.0 / math.sqrt(d // heads)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x, mask_bias):
        b, s, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).split(d, dim=-1)
        q = q.reshape(b, s, h, d // h).transpose(1, 2)
        k = k.reshape(b, s, h, d // h).transpose(1, 2)
        v = v.reshape(b, s, h, d // h).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-1, -2)) * self.scale + mask_bias
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.proj(ctx.transpose(1, 2).reshape(b, s, d))


class EncoderLayer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.attn = SelfAttention(d, heads)
        self.ln1 = nn.LayerNorm(d)
        self.ff1 = nn.Linear(d, ffn)
        self.ff2 = nn.Linear(ffn, d)
        self.ln2 = nn.LayerNorm(d)

    def forward(self, x, mask_bias):
        x = self.ln1(x + self.attn(x, mask_bias))
        return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))


class BertEncoder(nn.Module):
    """Token + position embeddings, 4 post-norm encoder layers (d=256, 4 heads, ffn 1024)."""

    def __init__(self, vocab=30522, seq=128, d=256, heads=4, ffn=1024, layers=4):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.ln = nn.LayerNorm(d)
        self.layers = nn.ModuleList([EncoderLayer(d, heads, ffn) for _ in range(layers)])
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)
            if isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)

    def forward(self, input_ids, attention_mask):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.ln(self.tok(input_ids) + self.pos(positions))
        # 0 where attended, a large negative number where masked: (batch, 1, 1, seq)
        mask_bias = (1.0 - attention_mask.to(x.dtype)).unsqueeze(1).unsqueeze(2) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_bias)
        return x


# --- the models --------------------------------------------------------------------------------

def image_model(ctor):
    def make(gen):
        model = ctor()
        batch = lambda: torch.randn(8, 3, 224, 224, generator=gen)
        reestimate_batch_norm(model, batch)
        return model, {"input": torch.randn(1, 3, 224, 224, generator=gen)}, ["output"]
    return make


def bert(gen):
    seq = 128
    model = BertEncoder(seq=seq).eval()
    ids = torch.randint(0, 30522, (1, seq), generator=gen, dtype=torch.int64)
    mask = torch.ones(1, seq, dtype=torch.int64)
    mask[0, 100:] = 0  # some padding, so the mask matters
    return model, {"input_ids": ids, "attention_mask": mask}, ["last_hidden_state"]


MODELS = {
    "resnet50": image_model(lambda: torchvision.models.resnet50(weights=None)),
    "mobilenetv2": image_model(lambda: torchvision.models.mobilenet_v2(weights=None)),
    "bert": bert,
}


def save_tensor(array, name, path):
    tensor = onnx.numpy_helper.from_array(np.ascontiguousarray(array), name)
    with open(path, "wb") as f:
        f.write(tensor.SerializeToString())


def export(name, out_dir, opset, seed):
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    model, inputs, output_names = MODELS[name](gen)
    model.eval()
    model_dir = os.path.join(out_dir, name)
    data_dir = os.path.join(model_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    onnx_path = os.path.join(model_dir, "model.onnx")

    args = tuple(inputs.values())
    with torch.no_grad():
        outputs = model(*args)
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        torch.onnx.export(model, args, onnx_path, input_names=list(inputs), output_names=output_names,
                          opset_version=opset, do_constant_folding=True)
    onnx.checker.check_model(onnx.load(onnx_path))

    for i, (input_name, value) in enumerate(inputs.items()):
        save_tensor(value.numpy(), input_name, os.path.join(data_dir, f"input_{i}.pb"))
    for i, (output_name, value) in enumerate(zip(output_names, outputs)):
        save_tensor(value.numpy(), output_name, os.path.join(data_dir, f"output_{i}.pb"))
    first = outputs[0]
    return onnx_path, tuple(first.shape), float(first.abs().mean())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated list of: " + ", ".join(MODELS) + " (default: all)")
    parser.add_argument("--opset", type=int, default=DEFAULT_OPSET,
                        help=f"ONNX opset (default {DEFAULT_OPSET}, the newest up to 17 this torch exports)")
    parser.add_argument("--seed", type=int, default=0, help="random seed for weights and inputs")
    args = parser.parse_args(argv)

    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error("unknown model(s): " + ", ".join(unknown) + "; known: " + ", ".join(MODELS))
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    for name in names:
        start = time.time()
        path, shape, mean_abs = export(name, args.out, args.opset, args.seed)
        print(f"{name}: {path} opset {args.opset}, output {list(shape)} mean|y|={mean_abs:.4g} "
              f"({time.time() - start:.1f}s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
