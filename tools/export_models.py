#!/usr/bin/python3
"""Export test models to ONNX with reference outputs, from Debian's torch/torchvision.

Weights are random (seeded, no downloads). Batch-norm statistics are re-estimated on a few
random batches so activations keep a sensible scale through deep networks. Each model is
written in the ONNX test-data layout:

    DIR/<model>/model.onnx
    DIR/<model>/test_data_set_0/input_0.pb    (onnx.TensorProto, named as the model input)
    DIR/<model>/test_data_set_0/output_0.pb   (torch's output for that input)

Models: resnet50, mobilenetv2 (torchvision, 1x3x224x224), bert (4-layer d256 encoder, sequence 128),
lstm (2-layer LSTM + Linear on [seq 32, batch 1, 64]), unet (3-level UNet, 1x3x128x128),
ssdlite (torchvision ssdlite320_mobilenet_v3_large backbone + heads, raw box/class outputs, no
anchors decoding or NMS).

With --dynamic, models are also written as DIR/<model>_dyn/ with symbolic dims (torch's
dynamic_axes): N, H and W for the image models, batch and sequence length for bert (spec 9.1.1).

Usage: tools/export_models.py --out DIR [--models resnet50,mobilenetv2,...] [--opset N] [--skip-existing]
                              [--dynamic]
"""

import argparse
import hashlib
import inspect
import math
import os
import sys
import time

try:
    import numpy as np
    import onnx
    import onnx.numpy_helper
    import torch
    import torch.nn as nn
    import torchvision
except ImportError as e:  # 77: CTest's skip code (tests/models runs this as its setup)
    print(f"export_models.py: {e}; needs Debian's python3-torch, python3-torchvision, python3-onnx",
          file=sys.stderr)
    sys.exit(77)


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
        # Biases and LayerNorm scales and shifts drawn around their initial values, as a trained
        # model has them: at exactly 0 and 1 an engine's simplifier removes them and the model is
        # lighter than any real one.
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.bias, std=0.02)
            if isinstance(m, nn.LayerNorm):
                nn.init.normal_(m.weight, mean=1.0, std=0.1)
                nn.init.normal_(m.bias, std=0.1)

    def forward(self, input_ids, attention_mask):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.ln(self.tok(input_ids) + self.pos(positions))
        # 0 where attended, a large negative number where masked: (batch, 1, 1, seq)
        mask_bias = (1.0 - attention_mask.to(x.dtype)).unsqueeze(1).unsqueeze(2) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_bias)
        return x


# --- an LSTM sequence model ---------------------------------------------------------------------

class LstmModel(nn.Module):
    """2-layer unidirectional LSTM over [seq, batch, feat] and a Linear on every step."""

    def __init__(self, feat=64, hidden=128, layers=2, out=32):
        super().__init__()
        self.lstm = nn.LSTM(feat, hidden, num_layers=layers)
        self.fc = nn.Linear(hidden, out)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y)


def lstm(gen):
    model = LstmModel().eval()
    return model, {"input": torch.randn(32, 1, 64, generator=gen)}, ["output"]


# --- a small UNet ---------------------------------------------------------------------------------

def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    """Three resolution levels and a bottleneck; ConvTranspose up-sampling on the two deeper
    levels, bilinear Upsample on the last, each followed by a concat with the skip connection."""

    def __init__(self, cin=3, classes=4, width=16):
        super().__init__()
        w = width
        self.enc1, self.enc2, self.enc3 = conv_block(cin, w), conv_block(w, 2 * w), conv_block(2 * w, 4 * w)
        self.pool = nn.MaxPool2d(2)
        self.mid = conv_block(4 * w, 8 * w)
        self.up3 = nn.ConvTranspose2d(8 * w, 4 * w, 2, stride=2)
        self.dec3 = conv_block(8 * w, 4 * w)
        self.up2 = nn.ConvTranspose2d(4 * w, 2 * w, 2, stride=2)
        self.dec2 = conv_block(4 * w, 2 * w)
        self.up1 = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                                 nn.Conv2d(2 * w, w, 1))
        self.dec1 = conv_block(2 * w, w)
        self.head = nn.Conv2d(w, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        e3 = self.enc3(self.pool(e2))
        m = self.mid(self.pool(e3))
        d3 = self.dec3(torch.cat([self.up3(m), e3], dim=1))
        d2 = self.dec2(torch.cat([self.up2(d3), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        return self.head(d1)


def unet(gen):
    model = UNet()
    reestimate_batch_norm(model, lambda: torch.randn(4, 3, 128, 128, generator=gen))
    return model, {"input": torch.randn(1, 3, 128, 128, generator=gen)}, ["output"]


# --- a small detector: SSDLite's network without its post-processing -----------------------------

class SsdLiteRaw(nn.Module):
    """torchvision's SSDLite320 (MobileNetV3-Large backbone, separable heads) on an already
    normalised 320x320 image: returns the raw per-anchor box regressions [1, anchors, 4] and class
    logits [1, anchors, 91]. Anchor decoding, score thresholds and NMS are left out: their output
    sizes depend on the data (NonZero, TopK over ties), which random weights make meaningless."""

    def __init__(self):
        super().__init__()
        ssd = torchvision.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)
        self.backbone = ssd.backbone
        self.head = ssd.head

    def forward(self, x):
        features = list(self.backbone(x).values())
        out = self.head(features)
        return out["bbox_regression"], out["cls_logits"]


def ssdlite(gen):
    model = SsdLiteRaw()
    reestimate_batch_norm(model, lambda: torch.randn(4, 3, 320, 320, generator=gen))
    return model, {"input": torch.randn(1, 3, 320, 320, generator=gen)}, ["boxes", "scores"]


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
    "lstm": lstm,
    "unet": unet,
    "ssdlite": ssdlite,
}


_NHW = {0: "batch", 2: "height", 3: "width"}
# Symbolic dims of the --dynamic exports (torch.onnx.export's dynamic_axes).
DYNAMIC_AXES = {
    "resnet50": {"input": _NHW, "output": {0: "batch"}},
    "mobilenetv2": {"input": _NHW, "output": {0: "batch"}},
    "unet": {"input": _NHW, "output": _NHW},
    "bert": {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
             "last_hidden_state": {0: "batch", 1: "seq"}},
}


def save_tensor(array, name, path):
    tensor = onnx.numpy_helper.from_array(np.ascontiguousarray(array), name)
    with open(path, "wb") as f:
        f.write(tensor.SerializeToString())


def export(name, out_dir, opset, seed, dynamic=False):
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    model, inputs, output_names = MODELS[name](gen)
    model.eval()
    model_dir = os.path.join(out_dir, name + ("_dyn" if dynamic else ""))
    data_dir = os.path.join(model_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    onnx_path = os.path.join(model_dir, "model.onnx")

    args = tuple(inputs.values())
    with torch.no_grad():
        outputs = model(*args)
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        # The TorchScript exporter: newer torch (2.9+) defaults to the dynamo one, which writes
        # batch-specific Reshape constants (and opset 18) and so breaks the symbolic-batch copies.
        kw = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
        torch.onnx.export(model, args, onnx_path, input_names=list(inputs), output_names=output_names,
                          opset_version=opset, do_constant_folding=True,
                          dynamic_axes=DYNAMIC_AXES[name] if dynamic else None, **kw)
    onnx.checker.check_model(onnx.load(onnx_path))

    for i, (input_name, value) in enumerate(inputs.items()):
        save_tensor(value.numpy(), input_name, os.path.join(data_dir, f"input_{i}.pb"))
    for i, (output_name, value) in enumerate(zip(output_names, outputs)):
        save_tensor(value.numpy(), output_name, os.path.join(data_dir, f"output_{i}.pb"))
    return onnx_path, [(tuple(o.shape), float(o.abs().double().mean())) for o in outputs]


def export_stamp(opset, seed):
    """What an export depends on: this script, the options and the torch version."""
    with open(os.path.abspath(__file__), "rb") as f:
        script = hashlib.sha256(f.read()).hexdigest()
    return f"{script} opset={opset} seed={seed} torch={torch.__version__}\n"


def exported(model_dir, stamp):
    try:
        with open(os.path.join(model_dir, "export.stamp")) as f:
            return f.read() == stamp
    except OSError:
        return False


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated list of: " + ", ".join(MODELS) + " (default: all)")
    parser.add_argument("--opset", type=int, default=DEFAULT_OPSET,
                        help=f"ONNX opset (default {DEFAULT_OPSET}, the newest up to 17 this torch exports)")
    parser.add_argument("--seed", type=int, default=0, help="random seed for weights and inputs")
    parser.add_argument("--dynamic", action="store_true",
                        help="also export <model>_dyn with symbolic dims (" + ", ".join(DYNAMIC_AXES) + ")")
    parser.add_argument("--skip-existing", action="store_true",
                        help="leave a model alone that this script already exported with the same options")
    args = parser.parse_args(argv)

    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error("unknown model(s): " + ", ".join(unknown) + "; known: " + ", ".join(MODELS))
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    jobs = [(n, False) for n in names] + [(n, True) for n in names if args.dynamic and n in DYNAMIC_AXES]
    for name, dynamic in jobs:
        model_dir = os.path.join(args.out, name + ("_dyn" if dynamic else ""))
        stamp = export_stamp(args.opset, args.seed)
        if args.skip_existing and exported(model_dir, stamp):
            print(f"{name}: {model_dir} is up to date", flush=True)
            continue
        if os.path.exists(os.path.join(model_dir, "export.stamp")):
            os.remove(os.path.join(model_dir, "export.stamp"))  # stale until the new export is whole
        start = time.time()
        path, outs = export(name, args.out, args.opset, args.seed, dynamic)
        with open(os.path.join(model_dir, "export.stamp"), "w") as f:
            f.write(stamp)
        desc = ", ".join(f"{list(shape)} mean|y|={mean_abs:.4g}" for shape, mean_abs in outs)
        print(f"{name}: {path} opset {args.opset}, output {desc} ({time.time() - start:.1f}s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
