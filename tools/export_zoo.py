#!/usr/bin/python3
"""Export the model zoo (issue 11: the spec's section 1.5 model list) to ONNX with reference outputs.

Uses Debian's torch/torchvision (no downloads: weights are random and seeded) and the helpers of
tools/export_models.py: batch-norm statistics are re-estimated on random batches
(export_models.reestimate_batch_norm) so activations keep a usable scale, the model is put in
eval() and exported by export_models.export, which writes the ONNX test-data layout:

    DIR/<model>/model.onnx
    DIR/<model>/test_data_set_0/input_<i>.pb    (onnx.TensorProto named as the model input)
    DIR/<model>/test_data_set_0/output_<i>.pb   (torch's output for that input)

Every model of ZOO is attempted; a failure (torch export error, a torchvision that lacks the
model) is printed with its reason and written to DIR/<model>/export.error, so that
tools/run_zoo.py lists it as a row of its table instead of leaving it out.

Dynamic-shape variants (spec 9.3, DYNAMIC): DIR/<model>_dyn/ holds the same model exported with
symbolic dims (N/H/W, N/W for CRNN, sequence length for BERT and GPT-2) and three test data sets
test_data_set_0..2 at three sizes (set 0 is the static model's own data), each with torch's outputs.

torch's own fp16 (for run_zoo.py --fp16, which judges migx's fp16 error against it): after the
fp32 references are written, the same model is run with model.half() on the same inputs (float
inputs cast to half, integer inputs as they are), on CUDA where torch has it (--fp16-ref auto),
and its outputs are written beside the fp32 ones, outside the ONNX test-data layout:

    DIR/<model>/torch_fp16/info.json                       device, torch version, status (ok /
                                                           failed with torch's error / not computed)
    DIR/<model>/torch_fp16/test_data_set_<k>/output_<i>.pb torch's half-precision output for set k

A model torch cannot run in half (CPU torch 1.13 has no half kernels for conv, matmul, softmax,
layer norm...) gets info.json with status "failed" and torch's error, and no outputs: run_zoo
then says so and judges the row by its fixed bound alone.

Hugging Face models (bert_hf, gpt2_hf: tools/export_transformers.py) are exported where
`transformers` imports (the GPU machine's Python); elsewhere they are "skipped: transformers not
installed" rows.

Usage: tools/export_zoo.py --out DIR [--models a,b,c|all|static|dynamic] [--opset N] [--seed S] [--skip-existing]
                           [--fp16-ref auto|cuda|cpu|none]
       tools/export_zoo.py --list
"""

import argparse
import glob
import hashlib
import json
import math
import os
import shutil
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models as em  # noqa: E402  (exits 77 when torch/onnx are missing)

import torch  # noqa: E402
import torchvision  # noqa: E402


def register_roi_align_opset16():
    """torchvision before 0.15 registers its roi_align symbolic for opset 11 only: the RoiAlign it
    writes has no coordinate_transformation_mode, which from opset 16 on means half_pixel (torch's
    aligned=True), while MultiScaleRoIAlign runs aligned=False (output_half_pixel): an opset-16+
    export then computes other RoI features than torch. Register the opset-16 symbolic that
    torchvision 0.15 has (pytorch/vision#6685), naming the mode."""
    from torch.onnx import register_custom_op_symbolic, symbolic_helper
    from torch.onnx.symbolic_opset11 import select, squeeze

    @symbolic_helper.parse_args("v", "v", "f", "i", "i", "i", "i")
    def roi_align_opset16(g, input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned):
        col0 = g.op("Constant", value_t=torch.tensor([0], dtype=torch.long))
        batch_indices = g.op("Cast", squeeze(g, select(g, rois, 1, col0), 1), to_i=7)  # INT64
        boxes = select(g, rois, 1, g.op("Constant", value_t=torch.tensor([1, 2, 3, 4], dtype=torch.long)))
        return g.op("RoiAlign", input, boxes, batch_indices,
                    coordinate_transformation_mode_s="half_pixel" if aligned else "output_half_pixel",
                    spatial_scale_f=spatial_scale, output_height_i=pooled_height, output_width_i=pooled_width,
                    sampling_ratio_i=max(sampling_ratio, 0))

    register_custom_op_symbolic("torchvision::roi_align", roi_align_opset16, 16)


register_roi_align_opset16()

tvm = torchvision.models


def no_fused_attention(model):
    """torch runs an eval() nn.MultiheadAttention as one aten::_native_multi_head_attention, which
    its ONNX exporter cannot export; a non-zero dropout probability keeps torch 1.13 on the
    decomposed path (dropout itself is not applied in eval())."""
    for m in model.modules():
        if isinstance(m, torch.nn.MultiheadAttention) and m.dropout == 0.0:
            m.dropout = 1e-9
    # Newer torch (2.x, the GPU machine's) takes the fused path regardless; it has a switch.
    mha = getattr(torch.backends, "mha", None)
    if mha is not None and hasattr(mha, "set_fastpath_enabled"):
        mha.set_fastpath_enabled(False)
    return model


def vit_prepare(model):
    """torchvision's ViT initialises its classifier head to zeros (an all-zero output): give it
    random weights as the other classifiers have, and keep attention exportable."""
    torch.nn.init.normal_(model.heads.head.weight, std=0.02)
    torch.nn.init.normal_(model.heads.head.bias, std=0.02)
    return no_fused_attention(model)


def image(ctor_name, size=224, batches=2, batch=4, prepare=None, **kwargs):
    """A torchvision classifier `ctor_name(weights=None, **kwargs)` on a 1x3xSIZExSIZE input.

    Batch norm is re-estimated on `batches` random batches of `batch` images (fewer than
    export_models' 4x8: the big zoo models are slow on a 2-core machine)."""

    def make(gen):
        ctor = getattr(tvm, ctor_name, None)
        if ctor is None:
            raise NotInstalled(f"torchvision {torchvision.__version__} has no models.{ctor_name}")
        model = ctor(weights=None, **kwargs)
        if prepare is not None:
            model = prepare(model)
        em.reestimate_batch_norm(model, lambda: torch.randn(batch, 3, size, size, generator=gen), batches)
        return model, {"input": torch.randn(1, 3, size, size, generator=gen)}, ["output"]

    return make


class NotInstalled(Exception):
    """The installed torchvision lacks the model: the model is skipped, and said so."""


class NotWritten(Exception):
    """A model of the issue's list this script does not export yet: a TODO row, not a silent gap."""


def todo(what):
    def make(gen):
        raise NotWritten(what)
    return make


class DetectionRaw(torch.nn.Module):
    """A torchvision single-stage detector (SSD, RetinaNet) on an already normalised image: the
    raw per-anchor box regressions and class logits of its head, as export_models.SsdLiteRaw does
    for SSDLite (anchor decoding and NMS are data dependent and left out)."""

    def __init__(self, det):
        super().__init__()
        self.backbone = det.backbone
        self.head = det.head

    def forward(self, x):
        features = self.backbone(x)
        features = list(features.values()) if isinstance(features, dict) else [features]
        out = self.head(features)
        return out["bbox_regression"], out["cls_logits"]


def detection_raw(ctor_name, size):
    def make(gen):
        ctor = getattr(tvm.detection, ctor_name, None)
        if ctor is None:
            raise NotInstalled(f"torchvision {torchvision.__version__} has no models.detection.{ctor_name}")
        model = DetectionRaw(ctor(weights=None, weights_backbone=None))
        em.reestimate_batch_norm(model, lambda: torch.randn(2, 3, size, size, generator=gen), 2)
        return model, {"input": torch.randn(1, 3, size, size, generator=gen)}, ["boxes", "scores"]
    return make


class DetectionBoxes(torch.nn.Module):
    """A whole torchvision detector in eval() (SSD, RetinaNet, SSDLite; Faster/Mask R-CNN) on one
    image [1, 3, H, W] in 0..1: its own transform (normalisation; the resize to its size, here the
    identity), anchor decode, score threshold, per-class top-k, class-aware NMS
    (torchvision.ops.batched_nms), the top detections_per_img and the rescale to the input's size:
    the final boxes [K, 4] (x1, y1, x2, y2), scores [K] and labels [K] (int64), K data dependent."""

    def __init__(self, det):
        super().__init__()
        self.det = det

    def forward(self, x):
        d = self.det([x[0]])[0]
        return d["boxes"], d["scores"], d["labels"]


def gap_threshold(scores, lo, hi):
    """A score threshold that keeps between `lo` and `hi` of `scores` (every score the detector's
    postprocess compares with its score_thresh) and lies in the middle of the widest relative gap
    of the sorted scores there: no score is near it, so an engine's 1e-6 rounding cannot move a
    candidate across it. Returns (threshold, how many scores pass, the gap's relative margin)."""
    s = scores.flatten().double().sort(descending=True).values
    s = s[: hi + 1]
    rel = (s[lo - 1: hi] - s[lo: hi + 1]) / s[lo: hi + 1]  # gap after the k-th score, k = lo..hi
    k = int(rel.argmax())
    upper, lower = float(s[lo - 1 + k]), float(s[lo + k])
    return (upper + lower) / 2, lo + k, (upper - lower) / (upper + lower)


def nms_margin(boxes, labels, iou_threshold):
    """The smallest |IoU - iou_threshold| over the same-class pairs of `boxes` (the candidates NMS
    sees): how far the closest suppression decision is from flipping."""
    iou = torchvision.ops.box_iou(boxes.double(), boxes.double())
    same = (labels[:, None] == labels[None, :]) & ~torch.eye(len(labels), dtype=torch.bool)
    return float((iou[same] - iou_threshold).abs().min()) if bool(same.any()) else float("inf")


def detection_boxes_tv(ctor_name, size, candidates=(60, 150), **kwargs):
    """torchvision's `ctor_name` detector whole (DetectionBoxes) at SIZE x SIZE, random weights,
    batch norm re-estimated on its normalised inputs. Random weights give near-uniform class scores,
    which the default score_thresh either keeps by the tens of thousands (SSD's softmax over 91
    classes is ~0.011 against 0.01) or not at all (RetinaNet's sigmoid starts at its 0.01 prior
    against 0.05): score_thresh is set from the test input's own scores to keep between
    candidates[0] and candidates[1] (anchor, class) candidates, in the widest gap of the sorted
    scores there (gap_threshold). Fewer candidates than topk_candidates (per class or level) and
    than detections_per_img, so neither top-k cuts anywhere; the NMS keeps what it keeps."""

    def make(gen):
        ctor = getattr(tvm.detection, ctor_name, None)
        if ctor is None:
            raise NotInstalled(f"torchvision {torchvision.__version__} has no models.detection.{ctor_name}")
        det = ctor(weights=None, weights_backbone=None, **kwargs)
        t = det.transform
        mean = torch.tensor(t.image_mean).view(1, 3, 1, 1)
        std = torch.tensor(t.image_std).view(1, 3, 1, 1)
        em.reestimate_batch_norm(DetectionRaw(det),
                                 lambda: (torch.rand(2, 3, size, size, generator=gen) - mean) / std, 2)
        det.eval()
        x = torch.rand(1, 3, size, size, generator=gen)
        with torch.no_grad():  # every score the postprocess compares with score_thresh, as it computes them
            images, _ = t([x[0]])
            features = det.backbone(images.tensors)
            features = list(features.values()) if isinstance(features, dict) else [features]
            logits = det.head(features)["cls_logits"]
        ssd = isinstance(det, tvm.detection.ssd.SSD)
        scores = torch.softmax(logits, -1)[..., 1:] if ssd else torch.sigmoid(logits)
        assert candidates[1] < min(det.topk_candidates, det.detections_per_img)
        det.score_thresh, n, gap = gap_threshold(scores, *candidates)
        model = DetectionBoxes(det).eval()
        nms = det.nms_thresh
        det.nms_thresh = 1.0  # nothing suppressed: the candidates NMS sees
        with torch.no_grad():
            boxes, _, labels = model(x)
        det.nms_thresh = nms
        with torch.no_grad():
            kept = len(model(x)[0])
        print(f"  {ctor_name}: score_thresh {det.score_thresh:.6g} keeps {n} candidates (scores within "
              f"{gap:.2e} relative of it: none), NMS (IoU {nms}) keeps {kept}; closest same-class IoU to "
              f"the NMS threshold: {nms_margin(boxes, labels, nms):.2e} away", flush=True)
        return model, {"input": x}, ["boxes", "scores", "labels"]
    return make


def bert_base(gen):
    """export_models.BertEncoder at BERT-base's size; inputs as export_models.bert's."""
    seq = 128
    model = em.BertEncoder(seq=seq, d=768, heads=12, ffn=3072, layers=12).eval()
    ids = torch.randint(0, 30522, (1, seq), generator=gen, dtype=torch.int64)
    mask = torch.ones(1, seq, dtype=torch.int64)
    mask[0, 100:] = 0
    return model, {"input_ids": ids, "attention_mask": mask}, ["last_hidden_state"]


class TwoStageRaw(torch.nn.Module):
    """A torchvision Faster/Mask R-CNN without its data-dependent parts: the backbone + FPN, the
    RPN head's raw objectness and box deltas (all levels, flattened), and the RoI heads run on
    RoIs given as an input ([K, 4] boxes in image pixels) instead of the RPN's NMS'd proposals:
    MultiScaleRoIAlign, the box head's class logits and box regressions, and for Mask R-CNN the
    mask head's logits."""

    def __init__(self, det):
        super().__init__()
        self.backbone = det.backbone
        self.rpn_head = det.rpn.head
        self.box_roi_pool = det.roi_heads.box_roi_pool
        self.box_head = det.roi_heads.box_head
        self.box_predictor = det.roi_heads.box_predictor
        self.mask_roi_pool = det.roi_heads.mask_roi_pool
        self.mask_head = det.roi_heads.mask_head
        self.mask_predictor = det.roi_heads.mask_predictor

    def forward(self, x, rois):
        features = self.backbone(x)
        objectness, deltas = self.rpn_head(list(features.values()))
        image_shapes = [(x.shape[-2], x.shape[-1])]
        box = self.box_head(self.box_roi_pool(features, [rois], image_shapes))
        logits, regression = self.box_predictor(box)
        outs = (torch.cat([o.flatten(1) for o in objectness], 1), torch.cat([d.flatten(1) for d in deltas], 1),
                logits, regression)
        if self.mask_roi_pool is not None:
            outs += (self.mask_predictor(self.mask_head(self.mask_roi_pool(features, [rois], image_shapes))),)
        return outs


class Star(torch.nn.Module):
    """model(*batch): for export_models.reestimate_batch_norm, which calls model(batch)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, batch):
        return self.model(*batch)


def two_stage_raw(ctor_name, size=320, rois=8):
    def make(gen):
        ctor = getattr(tvm.detection, ctor_name, None)
        if ctor is None:
            raise NotInstalled(f"torchvision {torchvision.__version__} has no models.detection.{ctor_name}")
        model = TwoStageRaw(ctor(weights=None, weights_backbone=None))
        xy = torch.rand(rois, 2, generator=gen) * (size * 0.6)
        wh = 16 + torch.rand(rois, 2, generator=gen) * (size * 0.4 - 16)  # 16..128 px: several FPN levels
        boxes = torch.cat([xy, xy + wh], 1)
        em.reestimate_batch_norm(Star(model), lambda: (torch.randn(2, 3, size, size, generator=gen), boxes), 2)
        names = ["rpn_objectness", "rpn_deltas", "class_logits", "box_regression"]
        if model.mask_roi_pool is not None:
            names.append("mask_logits")
        return model, {"input": torch.randn(1, 3, size, size, generator=gen), "rois": boxes}, names
    return make


def two_stage_boxes(ctor_name, size=320, proposals=(100, 250), candidates=(30, 90)):
    """torchvision's Faster/Mask R-CNN whole (DetectionBoxes) at SIZE x SIZE, random weights,
    the backbone's batch norm re-estimated on normalised inputs. Two data-dependent stages, each
    made to decide nothing within rounding, as detection_boxes_tv does for one: the RPN's
    score_thresh keeps proposals[0]..proposals[1] of the anchors' objectness in the widest gap
    of their sorted scores (so the per-level pre-NMS top-k, 1000 a level, only drops anchors the
    threshold drops anyway, and the post-NMS top-k, 1000, cuts nothing); the RoI heads'
    score_thresh keeps candidates[0]..candidates[1] (proposal, class) scores, fewer than
    detections_per_img (100). Mask R-CNN also returns its masks (MaskBoxes)."""

    def make(gen):
        ctor = getattr(tvm.detection, ctor_name, None)
        if ctor is None:
            raise NotInstalled(f"torchvision {torchvision.__version__} has no models.detection.{ctor_name}")
        det = ctor(weights=None, weights_backbone=None, min_size=size, max_size=size)
        t = det.transform
        mean = torch.tensor(t.image_mean).view(1, 3, 1, 1)
        std = torch.tensor(t.image_std).view(1, 3, 1, 1)
        em.reestimate_batch_norm(det.backbone, lambda: (torch.rand(2, 3, size, size, generator=gen) - mean) / std, 2)
        det.eval()
        x = torch.rand(1, 3, size, size, generator=gen)
        rpn, heads = det.rpn, det.roi_heads
        with torch.no_grad():
            images, _ = t([x[0]])
            features = det.backbone(images.tensors)
            objectness, _ = rpn.head(list(features.values()))
            scores = torch.sigmoid(torch.cat([o.flatten() for o in objectness]))
            rpn.score_thresh, n_rpn, gap_rpn = gap_threshold(scores, *proposals)
            props, _ = rpn(images, features)
            box = heads.box_head(heads.box_roi_pool(features, props, images.image_sizes))
            logits, _ = heads.box_predictor(box)
            cls = torch.softmax(logits, -1)[:, 1:]
            heads.score_thresh, n_cls, gap_cls = gap_threshold(cls, *candidates)
        assert candidates[1] < heads.detections_per_img
        model = DetectionBoxes(det).eval()
        with torch.no_grad():
            kept = len(model(x)[0])
        print(f"  {ctor_name}: RPN score_thresh {rpn.score_thresh:.6g} keeps {n_rpn} anchors (gap {gap_rpn:.2e}), "
              f"{len(props[0])} proposals after its NMS; box score_thresh {heads.score_thresh:.6g} keeps {n_cls} "
              f"(gap {gap_cls:.2e}), NMS keeps {kept}", flush=True)
        names = ["boxes", "scores", "labels"]
        if heads.mask_roi_pool is not None:
            model = MaskBoxes(det).eval()
            names.append("masks")
        return model, {"input": x}, names
    return make


class MaskBoxes(DetectionBoxes):
    """Mask R-CNN's final boxes, scores and labels, and each detection's mask probabilities as its
    mask head gives them ([K, 1, 28, 28]): the model up to its transform's postprocess, which at
    this size leaves the boxes as they are and pastes each mask into the image (a Resize to the
    box's own size in a Loop over the detections: sizes from box values, which migx's static
    shapes cannot hold; not exported)."""

    def forward(self, x):
        images, _ = self.det.transform([x[0]])
        features = self.det.backbone(images.tensors)
        proposals, _ = self.det.rpn(images, features)
        d = self.det.roi_heads(features, proposals, images.image_sizes)[0][0]
        return d["boxes"], d["scores"], d["labels"], d["masks"]


class Crnn(torch.nn.Module):
    """CRNN (Shi et al.): a VGG-style conv stack with batch norm over a 1x32xW grey text line,
    collapsed to a sequence of W/4 feature columns, a 2-layer bidirectional LSTM and a per-step
    Linear to 37 classes (36 characters + CTC blank): [W/4, N, 37] logits."""

    def __init__(self, classes=37, hidden=128):
        super().__init__()

        def block(cin, cout, pool):
            layers = [torch.nn.Conv2d(cin, cout, 3, padding=1, bias=False), torch.nn.BatchNorm2d(cout),
                      torch.nn.ReLU(inplace=True)]
            return layers + ([torch.nn.MaxPool2d(pool, pool)] if pool else [])

        self.cnn = torch.nn.Sequential(*block(1, 64, (2, 2)), *block(64, 128, (2, 2)), *block(128, 256, None),
                                       *block(256, 256, (2, 1)), *block(256, 256, (2, 1)),
                                       *block(256, 256, (2, 1)))  # H 32 -> 1, W -> W/4
        self.rnn = torch.nn.LSTM(256, hidden, num_layers=2, bidirectional=True)
        self.fc = torch.nn.Linear(2 * hidden, classes)

    def forward(self, x):
        f = self.cnn(x).squeeze(2).permute(2, 0, 1)  # [W/4, N, 256]
        y, _ = self.rnn(f)
        return self.fc(y)


def crnn(gen):
    model = Crnn()
    em.reestimate_batch_norm(model, lambda: torch.randn(4, 1, 32, 128, generator=gen), 2)
    return model, {"input": torch.randn(1, 1, 32, 128, generator=gen)}, ["output"]


class SpeechGru(torch.nn.Module):
    """A speech-style acoustic model: a 2-layer bidirectional GRU over [T, N, 80] filterbank
    frames (PyTorch's GRU exports linear_before_reset=1) and a per-frame Linear to 29 classes."""

    def __init__(self, feat=80, hidden=128, classes=29):
        super().__init__()
        self.rnn = torch.nn.GRU(feat, hidden, num_layers=2, bidirectional=True)
        self.fc = torch.nn.Linear(2 * hidden, classes)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y)


def speech_gru(gen):
    return SpeechGru().eval(), {"input": torch.randn(50, 1, 80, generator=gen)}, ["output"]


class MtcnnPNet(torch.nn.Module):
    """MTCNN's first cascade stage (P-Net), fully convolutional: PReLU convs, a 2-way face
    probability map (softmax over channels) and a 4-channel box regression map."""

    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(
            torch.nn.Conv2d(3, 10, 3), torch.nn.PReLU(10), torch.nn.MaxPool2d(2, 2, ceil_mode=True),
            torch.nn.Conv2d(10, 16, 3), torch.nn.PReLU(16), torch.nn.Conv2d(16, 32, 3), torch.nn.PReLU(32))
        self.prob = torch.nn.Conv2d(32, 2, 1)
        self.box = torch.nn.Conv2d(32, 4, 1)

    def forward(self, x):
        f = self.body(x)
        return torch.softmax(self.prob(f), dim=1), self.box(f)


def mtcnn_pnet(gen):
    model = MtcnnPNet().eval()
    return model, {"input": torch.randn(1, 3, 120, 160, generator=gen)}, ["prob", "boxes"]


class MtcnnRNetONet(torch.nn.Module):
    """MTCNN's second and third cascade stages on given crops: R-Net (24x24 crops: face
    probability and box refinement) keeps the candidates that torchvision's NMS keeps (IoU 0.7 over
    the candidates' boxes refined by R-Net, ordered by its face probability), and O-Net (48x48
    crops) scores every candidate (probability, box, 5 landmarks). Cropping the kept boxes out of
    the image is data-dependent resizing that the stages themselves do not do; the O-Net input is
    given."""

    def __init__(self):
        super().__init__()
        p = torch.nn.PReLU
        self.r_body = torch.nn.Sequential(
            torch.nn.Conv2d(3, 28, 3), p(28), torch.nn.MaxPool2d(3, 2, ceil_mode=True),
            torch.nn.Conv2d(28, 48, 3), p(48), torch.nn.MaxPool2d(3, 2, ceil_mode=True),
            torch.nn.Conv2d(48, 64, 2), p(64), torch.nn.Flatten(), torch.nn.Linear(576, 128), p(128))
        self.r_prob, self.r_box = torch.nn.Linear(128, 2), torch.nn.Linear(128, 4)
        self.o_body = torch.nn.Sequential(
            torch.nn.Conv2d(3, 32, 3), p(32), torch.nn.MaxPool2d(3, 2, ceil_mode=True),
            torch.nn.Conv2d(32, 64, 3), p(64), torch.nn.MaxPool2d(3, 2, ceil_mode=True),
            torch.nn.Conv2d(64, 64, 3), p(64), torch.nn.MaxPool2d(2, 2, ceil_mode=True),
            torch.nn.Conv2d(64, 128, 2), p(128), torch.nn.Flatten(), torch.nn.Linear(1152, 256), p(256))
        self.o_prob, self.o_box, self.o_marks = torch.nn.Linear(256, 2), torch.nn.Linear(256, 4), torch.nn.Linear(256, 10)

    def forward(self, crops24, boxes, crops48):
        f = self.r_body(crops24)
        prob = torch.softmax(self.r_prob(f), dim=1)
        refined = boxes + self.r_box(f) * (boxes[:, 2:].repeat(1, 2) - boxes[:, :2].repeat(1, 2))
        keep = torchvision.ops.nms(refined, prob[:, 1], 0.7)
        g = self.o_body(crops48)
        return prob, refined, keep, torch.softmax(self.o_prob(g), dim=1), self.o_box(g), self.o_marks(g)


def mtcnn_rnet_onet(gen):
    model = MtcnnRNetONet().eval()
    n = 32
    xy = torch.rand(n, 2, generator=gen) * 96
    wh = 12 + torch.rand(n, 2, generator=gen) * 36
    # clusters of overlapping candidates, as P-Net gives: every fourth box near the one before
    boxes = torch.cat([xy, xy + wh], 1)
    boxes[1::4] = boxes[0::4] + torch.rand(n // 4, 4, generator=gen) * 3
    inputs = {"crops24": torch.randn(n, 3, 24, 24, generator=gen), "boxes": boxes,
              "crops48": torch.randn(n, 3, 48, 48, generator=gen)}
    return model, inputs, ["r_prob", "r_boxes", "keep", "o_prob", "o_boxes", "o_landmarks"]


def cbs(cin, cout, k=1, stride=1):
    """Conv + BatchNorm + SiLU, the YOLOv5-style building block."""
    return torch.nn.Sequential(torch.nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, bias=False), torch.nn.BatchNorm2d(cout),
                               torch.nn.SiLU())


class Csp(torch.nn.Module):
    """A C3-style cross-stage-partial block: two 1x1 branches, n bottlenecks on one, concat, 1x1."""

    def __init__(self, cin, cout, n=1, shortcut=True):
        super().__init__()
        h = cout // 2
        self.a, self.b, self.out = cbs(cin, h), cbs(cin, h), cbs(2 * h, cout)
        self.m = torch.nn.ModuleList([torch.nn.Sequential(cbs(h, h), cbs(h, h, 3)) for _ in range(n)])
        self.shortcut = shortcut

    def forward(self, x):
        y = self.a(x)
        for m in self.m:
            y = y + m(y) if self.shortcut else m(y)
        return self.out(torch.cat([y, self.b(x)], 1))


class YoloStyle(torch.nn.Module):
    """A YOLOv5-style detector at width 1/4: CSP backbone with SPPF, PAN neck, three detection
    heads (strides 8/16/32, 3 anchors each, 80 classes) and the decode (sigmoid, grid offsets,
    anchor sizes) to [1, anchors, 85] = (cx, cy, w, h, objectness, 80 class scores)."""

    ANCHORS = [[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]]

    def __init__(self, classes=80, w=16, size=320):
        super().__init__()
        self.no = classes + 5
        self.stem = torch.nn.Sequential(cbs(3, w, 6, 2), cbs(w, 2 * w, 3, 2), Csp(2 * w, 2 * w))
        self.p3 = torch.nn.Sequential(cbs(2 * w, 4 * w, 3, 2), Csp(4 * w, 4 * w, 2))
        self.p4 = torch.nn.Sequential(cbs(4 * w, 8 * w, 3, 2), Csp(8 * w, 8 * w, 3))
        self.p5 = torch.nn.Sequential(cbs(8 * w, 16 * w, 3, 2), Csp(16 * w, 16 * w))
        self.sppf_in, self.sppf_out = cbs(16 * w, 8 * w), cbs(32 * w, 16 * w)
        self.pool = torch.nn.MaxPool2d(5, 1, 2)
        self.lat5, self.up_csp4 = cbs(16 * w, 8 * w), Csp(16 * w, 8 * w, shortcut=False)
        self.lat4, self.up_csp3 = cbs(8 * w, 4 * w), Csp(8 * w, 4 * w, shortcut=False)
        self.down3, self.down_csp4 = cbs(4 * w, 4 * w, 3, 2), Csp(8 * w, 8 * w, shortcut=False)
        self.down4, self.down_csp5 = cbs(8 * w, 8 * w, 3, 2), Csp(16 * w, 16 * w, shortcut=False)
        self.heads = torch.nn.ModuleList([torch.nn.Conv2d(c, 3 * self.no, 1) for c in (4 * w, 8 * w, 16 * w)])
        grids, anchors = [], []
        for i, stride in enumerate((8, 16, 32)):
            n = size // stride
            yv, xv = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
            grids.append(torch.stack((xv, yv), 2).view(1, 1, n, n, 2).float() * stride)
            anchors.append(torch.tensor(self.ANCHORS[i], dtype=torch.float32).view(1, 3, 1, 1, 2))
        self.strides = (8, 16, 32)
        # False: the grids are buffers for SIZE (the static export); True: computed from each
        # feature map's shape (Range/meshgrid in the graph), so any multiple of 32 works (the
        # dynamic-shape variant, yolo_style_dyn).
        self.grid_from_shape = False
        for i in range(3):
            self.register_buffer(f"grid{i}", grids[i])
            self.register_buffer(f"anchor{i}", anchors[i])

    def forward(self, x):
        c3 = self.p3(self.stem(x))
        c4 = self.p4(c3)
        c5 = self.p5(c4)
        y = self.sppf_in(c5)
        y1 = self.pool(y)
        y2 = self.pool(y1)
        c5 = self.sppf_out(torch.cat([y, y1, y2, self.pool(y2)], 1))
        up = torch.nn.functional.interpolate
        l5 = self.lat5(c5)
        n4 = self.up_csp4(torch.cat([up(l5, scale_factor=2.0, mode="nearest"), c4], 1))
        l4 = self.lat4(n4)
        n3 = self.up_csp3(torch.cat([up(l4, scale_factor=2.0, mode="nearest"), c3], 1))
        n4 = self.down_csp4(torch.cat([self.down3(n3), l4], 1))
        n5 = self.down_csp5(torch.cat([self.down4(n4), l5], 1))
        outs = []
        for i, f in enumerate((n3, n4, n5)):
            b, _, h, w = f.shape
            p = self.heads[i](f).view(b, 3, self.no, h, w).permute(0, 1, 3, 4, 2).sigmoid()
            if self.grid_from_shape:
                yv, xv = torch.meshgrid(torch.arange(h, device=f.device), torch.arange(w, device=f.device),
                                        indexing="ij")
                grid = torch.stack((xv, yv), 2).view(1, 1, h, w, 2).float() * self.strides[i]
            else:
                grid = getattr(self, f"grid{i}")
            xy = (p[..., 0:2] * 2 - 0.5) * self.strides[i] + grid
            wh = (p[..., 2:4] * 2) ** 2 * getattr(self, f"anchor{i}")
            outs.append(torch.cat([xy, wh, p[..., 4:]], -1).view(b, -1, self.no))
        return torch.cat(outs, 1)


def yolo_style(gen):
    model = YoloStyle()
    em.reestimate_batch_norm(model, lambda: torch.randn(2, 3, 320, 320, generator=gen), 2)
    return model, {"input": torch.randn(1, 3, 320, 320, generator=gen)}, ["detections"]


class YoloFinalBoxes(torch.nn.Module):
    """The final boxes of yolo_style, as a YOLO deployment computes them: score = objectness x
    best class score, the top 100 candidates by score, corners from (cx, cy, w, h), class-aware
    NMS at IoU 0.45 (torchvision.ops.batched_nms: boxes offset by class), then the kept boxes,
    scores and labels (their number depends on the data)."""

    def __init__(self, detector, top=100):
        super().__init__()
        self.detector, self.top = detector, top

    def forward(self, x):
        d = self.detector(x)[0]
        cls_score, label = d[:, 5:].max(1)
        score = d[:, 4] * cls_score
        score, idx = score.topk(self.top)
        c = d[idx]
        boxes = torch.cat([c[:, :2] - c[:, 2:4] / 2, c[:, :2] + c[:, 2:4] / 2], 1)
        label = label[idx]
        keep = torchvision.ops.batched_nms(boxes, score, label, 0.45)
        return boxes[keep], score[keep], label[keep]


def detection_boxes(gen):
    model, inputs, _ = yolo_style(gen)
    return YoloFinalBoxes(model).eval(), inputs, ["boxes", "scores", "labels"]


class DbnetStyle(torch.nn.Module):
    """A DBNet-style text detector: torchvision ResNet-18 features (strides 4..32), an FPN
    (1x1 laterals, nearest up-sampling and adds, 3x3 smoothing, all levels up-sampled to 1/4 and
    concatenated), the probability and threshold heads (conv-BN-ReLU, two stride-2
    ConvTranspose, sigmoid) and the differentiable binarisation 1 / (1 + exp(-50 (P - T)))."""

    def __init__(self, inner=64):
        super().__init__()
        r = tvm.resnet18(weights=None)
        self.stem = torch.nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool)
        self.layers = torch.nn.ModuleList([r.layer1, r.layer2, r.layer3, r.layer4])
        self.lateral = torch.nn.ModuleList([torch.nn.Conv2d(c, inner, 1) for c in (64, 128, 256, 512)])
        self.smooth = torch.nn.ModuleList([torch.nn.Conv2d(inner, inner // 4, 3, padding=1) for _ in range(4)])

        def head():
            q = inner // 4
            return torch.nn.Sequential(
                torch.nn.Conv2d(inner, q, 3, padding=1, bias=False), torch.nn.BatchNorm2d(q), torch.nn.ReLU(),
                torch.nn.ConvTranspose2d(q, q, 2, 2), torch.nn.BatchNorm2d(q), torch.nn.ReLU(),
                torch.nn.ConvTranspose2d(q, 1, 2, 2), torch.nn.Sigmoid())

        self.prob, self.thresh = head(), head()

    def forward(self, x):
        feats, y = [], self.stem(x)
        for layer in self.layers:
            y = layer(y)
            feats.append(y)
        up = torch.nn.functional.interpolate
        lat = [l(f) for l, f in zip(self.lateral, feats)]
        for i in (2, 1, 0):
            lat[i] = lat[i] + up(lat[i + 1], scale_factor=2.0, mode="nearest")
        size = lat[0].shape[-2:]
        fused = torch.cat([up(s(l), size=size, mode="nearest") if i else s(l)
                           for i, (s, l) in enumerate(zip(self.smooth, lat))], 1)
        p, t = self.prob(fused), self.thresh(fused)
        return p, t, torch.reciprocal(1 + torch.exp(-50 * (p - t)))


def dbnet_style(gen):
    model = DbnetStyle()
    em.reestimate_batch_norm(model, lambda: torch.randn(2, 3, 256, 256, generator=gen), 2)
    return model, {"input": torch.randn(1, 3, 256, 256, generator=gen)}, ["prob", "thresh", "binary"]


class GptBlock(torch.nn.Module):
    """A GPT-2 block: pre-norm causal self-attention over past + current keys/values, GELU (tanh) MLP."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.c_attn, self.c_proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.fc, self.proj = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x, past):  # past: [2, batch, heads, past_len, head_dim]
        b, s, d = x.shape
        h = self.heads
        q, k, v = self.c_attn(self.ln1(x)).split(d, dim=-1)
        q, k, v = (t.reshape(b, s, h, d // h).transpose(1, 2) for t in (q, k, v))
        k = torch.cat([past[0], k], dim=2)
        v = torch.cat([past[1], v], dim=2)
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d // h)
        past_len = past.shape[3]
        q_pos = torch.arange(s, device=x.device).unsqueeze(1) + past_len
        k_pos = torch.arange(k.shape[2], device=x.device).unsqueeze(0)
        scores = torch.where(k_pos <= q_pos, scores, torch.tensor(-1e4, dtype=scores.dtype))  # causal
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(b, s, d)
        x = x + self.c_proj(ctx)
        x = x + self.proj(torch.nn.functional.gelu(self.fc(self.ln2(x)), approximate="tanh"))
        return x, torch.stack([k, v])


class Gpt2Style(torch.nn.Module):
    """GPT-2-small-sized decoder (12 layers, d768, 12 heads, vocab 50257, tied LM head) on input_ids
    [batch, seq] and past_key_values [layers, 2, batch, heads, past_len, 64]: logits and the present
    keys/values [layers, 2, batch, heads, past_len + seq, 64]."""

    def __init__(self, vocab=50257, positions=1024, d=768, heads=12, layers=12):
        super().__init__()
        self.wte, self.wpe = torch.nn.Embedding(vocab, d), torch.nn.Embedding(positions, d)
        self.blocks = torch.nn.ModuleList([GptBlock(d, heads) for _ in range(layers)])
        self.ln_f = torch.nn.LayerNorm(d)
        for m in self.modules():
            if isinstance(m, (torch.nn.Linear, torch.nn.Embedding)):
                torch.nn.init.normal_(m.weight, std=0.02)
            if isinstance(m, torch.nn.Linear):
                torch.nn.init.zeros_(m.bias)

    def forward(self, input_ids, past_key_values):
        past_len = past_key_values.shape[4]
        pos = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0) + past_len
        x = self.wte(input_ids) + self.wpe(pos)
        presents = []
        for i, block in enumerate(self.blocks):
            x, present = block(x, past_key_values[i])
            presents.append(present)
        return torch.matmul(self.ln_f(x), self.wte.weight.t()), torch.stack(presents)


def gpt2_style(gen, seq=8, past=16):
    model = Gpt2Style().eval()
    ids = torch.randint(0, 50257, (1, seq), generator=gen, dtype=torch.int64)
    past_kv = torch.randn(12, 2, 1, 12, past, 64, generator=gen)
    return model, {"input_ids": ids, "past_key_values": past_kv}, ["logits", "present_key_values"]


class SegmentationOut(torch.nn.Module):
    """torchvision's segmentation models return a dict: keep its 'out' tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def segmentation(ctor_name, size=224):
    def make(gen):
        ctor = getattr(tvm.segmentation, ctor_name, None)
        if ctor is None:
            raise NotInstalled(f"torchvision {torchvision.__version__} has no models.segmentation.{ctor_name}")
        model = SegmentationOut(ctor(weights=None, weights_backbone=None, aux_loss=False))
        em.reestimate_batch_norm(model, lambda: torch.randn(2, 3, size, size, generator=gen), 2)
        return model, {"input": torch.randn(1, 3, size, size, generator=gen)}, ["output"]
    return make


def hugging_face(factory_name):
    """tools/export_transformers.py's factory; NotInstalled where transformers does not import."""
    def make(gen):
        import export_transformers as et
        try:
            return getattr(et, factory_name)(gen)
        except et.TransformersMissing as e:
            raise NotInstalled(str(e)) from None
    return make


# name -> (factory, what it is). Classifiers at 224 (Inception-v3 at its 299); EfficientNet-B5/B7
# at 224 rather than their 456/600 to keep exports and runs short (the network is the same).
ZOO = {
    "alexnet": (image("alexnet"), "AlexNet, 224"),
    "vgg16": (image("vgg16"), "VGG16, 224"),
    "vgg19": (image("vgg19"), "VGG19, 224"),
    "googlenet": (image("googlenet", aux_logits=False, init_weights=True), "GoogLeNet, 224, no aux heads"),
    "inception_v3": (image("inception_v3", size=299, aux_logits=False, init_weights=True), "Inception-v3, 299"),
    "resnet50": (em.MODELS["resnet50"], "ResNet-50, 224 (export_models.py)"),
    "densenet121": (image("densenet121"), "DenseNet-121, 224"),
    "shufflenet_v2": (image("shufflenet_v2_x1_0"), "ShuffleNet-v2 x1.0, 224"),
    "squeezenet": (image("squeezenet1_1"), "SqueezeNet 1.1, 224"),
    "mobilenet_v2": (em.MODELS["mobilenetv2"], "MobileNet-v2, 224 (export_models.py)"),
    "mobilenet_v3": (image("mobilenet_v3_large"), "MobileNet-v3-Large, 224"),
    "efficientnet_b3": (image("efficientnet_b3"), "EfficientNet-B3, 224"),
    "efficientnet_b5": (image("efficientnet_b5"), "EfficientNet-B5, 224"),
    "efficientnet_b7": (image("efficientnet_b7"), "EfficientNet-B7, 224"),
    "vit_b_16": (image("vit_b_16", prepare=vit_prepare), "ViT-B/16, 224"),
    "swin_t": (image("swin_t"), "Swin-T, 224"),
    "fcn_resnet50": (segmentation("fcn_resnet50"), "FCN-ResNet50, 224, 'out' head"),
    "ssd_vgg16_raw": (detection_raw("ssd300_vgg16", 300), "SSD300-VGG16 raw heads, no decode/NMS"),
    "retinanet_raw": (detection_raw("retinanet_resnet50_fpn", 320), "RetinaNet-ResNet50-FPN raw heads, 320"),
    "faster_rcnn_raw": (two_stage_raw("fasterrcnn_resnet50_fpn"),
                        "Faster R-CNN-ResNet50-FPN, 320: RPN raw heads + RoI heads on 8 given RoIs"),
    "mask_rcnn_raw": (two_stage_raw("maskrcnn_resnet50_fpn"),
                      "Mask R-CNN-ResNet50-FPN, 320: RPN raw heads + box and mask heads on 8 given RoIs"),
    "faster_rcnn_boxes": (two_stage_boxes("fasterrcnn_resnet50_fpn"),
                          "Faster R-CNN-ResNet50-FPN whole, 320: RPN decode, score threshold, per-level NMS, "
                          "RoIAlign on its proposals, box head, class-aware NMS; both score_thresh set in gaps"),
    "mask_rcnn_boxes": (two_stage_boxes("maskrcnn_resnet50_fpn"),
                        "Mask R-CNN-ResNet50-FPN whole, 320: as faster_rcnn_boxes, plus each detection's 28x28 "
                        "mask probabilities (not pasted into the image)"),
    "ssd_vgg16_boxes": (detection_boxes_tv("ssd300_vgg16", 300),
                        "SSD300-VGG16 whole, 300: its decode, score threshold, per-class top-k, class-aware NMS "
                        "(IoU 0.45), boxes/scores/labels; score_thresh set to keep 60-150 candidates"),
    "retinanet_boxes": (detection_boxes_tv("retinanet_resnet50_fpn", 320, min_size=320, max_size=320),
                        "RetinaNet-ResNet50-FPN whole, 320: decode, score threshold, per-level top-k, "
                        "class-aware NMS (IoU 0.5), boxes/scores/labels; score_thresh set to keep 60-150"),
    "ssdlite_boxes": (detection_boxes_tv("ssdlite320_mobilenet_v3_large", 320),
                      "SSDLite320-MobileNetV3-Large whole, 320: decode, score threshold, per-class top-k, "
                      "class-aware NMS (IoU 0.55), boxes/scores/labels; score_thresh set to keep 60-150"),
    "detection_boxes": (detection_boxes, "yolo_style's final boxes: top-100 by score, class-aware NMS (IoU 0.45)"),
    "yolo_style": (yolo_style, "YOLOv5-style CSP/SPPF/PAN detector, width 1/4, 320, with decode (no NMS)"),
    "dbnet_style": (dbnet_style, "DBNet-style: ResNet-18 + FPN + prob/thresh heads + binarisation, 256"),
    "crnn": (crnn, "CRNN: VGG-style conv + 2-layer bidirectional LSTM, 1x1x32x128"),
    "speech_gru": (speech_gru, "2-layer bidirectional GRU + Linear over [50, 1, 80] filterbank frames"),
    "mtcnn_pnet": (mtcnn_pnet, "MTCNN P-Net stage (PReLU, softmax map + box map), 1x3x120x160"),
    "mtcnn_rnet_onet": (mtcnn_rnet_onet, "MTCNN R-Net (24x24 crops) with the cascade's NMS, and O-Net (48x48 crops)"),
    "bert_base": (bert_base, "BERT-base-sized encoder (12 layers, d768, 12 heads), seq 128, torch-written"),
    "gpt2_small": (gpt2_style, "GPT-2-small-sized decoder, 8 new tokens after 16 past key/values, torch-written"),
    "unet": (em.MODELS["unet"], "3-level UNet, 128 (export_models.py)"),
    "bert_small": (em.MODELS["bert"], "BERT-style 4-layer encoder, seq 128 (export_models.py)"),
    "lstm": (em.MODELS["lstm"], "2-layer LSTM + Linear (export_models.py)"),
    "ssdlite_raw": (em.MODELS["ssdlite"], "SSDLite320 raw heads, no NMS (export_models.py)"),
    "bert_hf": (hugging_face("bert_hf"), "transformers BertModel(BertConfig()): BERT-base, random weights, eager "
                "attention, seq 128 with attention mask (last 28 padding); last_hidden_state + pooler_output"),
    "gpt2_hf": (hugging_face("gpt2_hf"), "transformers GPT2LMHeadModel(GPT2Config()): GPT-2 small, random weights, "
                "eager attention, 8 new tokens after 16 past key/values (input past_key_values [12,2,1,12,16,64]); "
                "logits + present_key_values"),
}


# --- dynamic-shape variants (spec 9.3) --------------------------------------------------------------

class Dynamic:
    """A dynamic-shape variant `<base>_dyn` of a zoo model (spec 9.3's list): the same model (the
    base's factory, same seed: same weights and batch-norm statistics) exported with the dims of
    `axes` symbolic (torch.onnx.export's dynamic_axes), and three test data sets: set 0 is the base
    model's own input (its test_data_set_0 exactly), sets 1 and 2 are `make_inputs(gen, size)` for
    each of `sizes`, each with torch's outputs at that size."""

    def __init__(self, base, axes, sizes, make_inputs, what, factory=None):
        self.base, self.axes, self.sizes, self.make_inputs = base, axes, sizes, make_inputs
        self.what, self.factory = what, factory


_NHW = {0: "batch", 2: "height", 3: "width"}


def nhw_inputs(channels=3):
    def make(gen, size):
        n, h, w = size
        return {"input": torch.randn(n, channels, h, w, generator=gen)}
    return make


def bert_inputs(gen, seq, vocab=30522):
    ids = torch.randint(0, vocab, (1, seq), generator=gen, dtype=torch.int64)
    mask = torch.ones(1, seq, dtype=torch.int64)
    mask[0, seq - seq // 5:] = 0  # the last fifth padded, as the base's 28 of 128
    return {"input_ids": ids, "attention_mask": mask}


def gpt2_inputs(gen, size):
    seq, past = size
    return {"input_ids": torch.randint(0, 50257, (1, seq), generator=gen, dtype=torch.int64),
            "past_key_values": torch.randn(12, 2, 1, 12, past, 64, generator=gen)}


def yolo_style_dyn(gen):
    model, inputs, names = yolo_style(gen)
    model.grid_from_shape = True  # same weights; the decode's grids follow the feature maps
    return model, inputs, names


def nhw_sizes(base, sizes):
    return "N x H x W " + ", ".join(f"{n}x{h}x{w}" for n, h, w in [(1, base, base)] + sizes)


_IMAGE_OUT = {"output": {0: "batch"}}
# Sizes: N 1/2/3 with the base H/W, a smaller (non-square) and a larger one where the network
# allows (multiples of its stride); kept modest for a 2-core machine. FCN (dilated, ~28 GMAC at
# 224) and Inception-v3 stay at N <= 2.
DYNAMIC = {
    "resnet50_dyn": Dynamic("resnet50", {"input": _NHW, **_IMAGE_OUT}, [(2, 160, 192), (3, 256, 256)],
                            nhw_inputs(), "ResNet-50, " + nhw_sizes(224, [(2, 160, 192), (3, 256, 256)])),
    "mobilenet_v2_dyn": Dynamic("mobilenet_v2", {"input": _NHW, **_IMAGE_OUT}, [(2, 160, 192), (3, 256, 256)],
                                nhw_inputs(), "MobileNet-v2, " + nhw_sizes(224, [(2, 160, 192), (3, 256, 256)])),
    "unet_dyn": Dynamic("unet", {"input": _NHW, "output": _NHW}, [(2, 96, 160), (3, 160, 160)],
                        nhw_inputs(), "UNet, " + nhw_sizes(128, [(2, 96, 160), (3, 160, 160)])),
    "crnn_dyn": Dynamic("crnn", {"input": {0: "batch", 3: "width"}, "output": {0: "steps", 1: "batch"}},
                        [(2, 32, 96), (3, 32, 160)], nhw_inputs(1),
                        "CRNN, N x W 1x128, 2x96, 3x160 (H 32)"),
    "bert_small_dyn": Dynamic("bert_small", {"input_ids": {1: "seq"}, "attention_mask": {1: "seq"},
                                             "last_hidden_state": {1: "seq"}},
                              [64, 96], bert_inputs, "BERT-style 4-layer encoder, sequence 128, 64, 96"),
    "inception_v3_dyn": Dynamic("inception_v3", {"input": _NHW, **_IMAGE_OUT}, [(2, 256, 224), (1, 331, 331)],
                                nhw_inputs(), "Inception-v3, " + nhw_sizes(299, [(2, 256, 224), (1, 331, 331)])),
    "yolo_style_dyn": Dynamic("yolo_style", {"input": _NHW, "detections": {0: "batch", 1: "anchors"}},
                              [(2, 256, 320), (3, 384, 384)], nhw_inputs(),
                              "YOLOv5-style, decode grids from the shape, "
                              + nhw_sizes(320, [(2, 256, 320), (3, 384, 384)]), factory=yolo_style_dyn),
    "dbnet_style_dyn": Dynamic("dbnet_style", {"input": _NHW, "prob": _NHW, "thresh": _NHW, "binary": _NHW},
                               [(2, 192, 288), (3, 320, 320)], nhw_inputs(),
                               "DBNet-style, " + nhw_sizes(256, [(2, 192, 288), (3, 320, 320)])),
    "fcn_resnet50_dyn": Dynamic("fcn_resnet50", {"input": _NHW, "output": _NHW}, [(2, 160, 192), (1, 256, 288)],
                                nhw_inputs(), "FCN-ResNet50, " + nhw_sizes(224, [(2, 160, 192), (1, 256, 288)])),
    "bert_base_dyn": Dynamic("bert_base", {"input_ids": {1: "seq"}, "attention_mask": {1: "seq"},
                                           "last_hidden_state": {1: "seq"}},
                             [64, 96], bert_inputs, "BERT-base-sized encoder, sequence 128, 64, 96"),
    "gpt2_small_dyn": Dynamic("gpt2_small", {"input_ids": {1: "seq"}, "past_key_values": {4: "past"},
                                             "logits": {1: "seq"}, "present_key_values": {4: "total"}},
                              [(1, 23), (16, 4)], gpt2_inputs,
                              "GPT-2-small-sized decoder, new tokens x past length 8x16, 1x23 (a decode "
                              "step), 16x4"),
}


# --- torch's own fp16 outputs (run_zoo.py --fp16 compares migx's fp16 error with theirs) ----------

FP16_METHOD = "model.half(); float inputs cast to half, integer inputs unchanged; no autocast"


def fp16_device(mode):
    """The device --fp16-ref MODE computes torch's half-precision outputs on (None: not computed)."""
    if mode == "none":
        return None
    if mode == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return mode


def write_torch_fp16(model, sets, output_names, model_dir, mode):
    """Runs `model` (already exported: it is converted to half in place) in half precision on each
    input set of `sets` and writes model_dir/torch_fp16/test_data_set_<k>/output_<i>.pb and
    info.json; a model torch cannot run in half gets info.json with the error and no outputs.
    Returns a one-line summary."""
    folder = os.path.join(model_dir, "torch_fp16")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    device = fp16_device(mode)
    info = {"torch": torch.__version__, "method": FP16_METHOD, "device": device or "none",
            "output_names": list(output_names), "sets": len(sets)}
    if device == "cuda" and torch.cuda.is_available():
        info["device_name"] = torch.cuda.get_device_name(0)
    start = time.time()
    try:
        if device is None:
            raise RuntimeError("not computed (--fp16-ref none)")
        if device == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("CUDA is not available to this torch")
        model = model.half().to(device).eval()
        nonfinite = {}
        for k, data in enumerate(sets):
            args = [v.to(device).half() if v.is_floating_point() else v.to(device) for v in data.values()]
            with torch.no_grad():
                outputs = model(*args)
            if isinstance(outputs, torch.Tensor):
                outputs = (outputs,)
            if len(outputs) != len(output_names):
                raise RuntimeError(f"{len(outputs)} outputs in half, {len(output_names)} in fp32")
            data_dir = os.path.join(folder, f"test_data_set_{k}")
            os.makedirs(data_dir)
            for i, (output_name, value) in enumerate(zip(output_names, outputs)):
                value = value.detach().cpu()
                if value.is_floating_point():
                    bad = int((~torch.isfinite(value)).sum())
                    if bad:
                        nonfinite[f"set {k} {output_name}"] = bad
                em.save_tensor(value.numpy(), output_name, os.path.join(data_dir, f"output_{i}.pb"))
        info.update(status="ok", nonfinite=nonfinite)
    except Exception as e:  # noqa: BLE001  a model torch cannot run in half: recorded, not an export failure
        for d in glob.glob(os.path.join(folder, "test_data_set_*")):
            shutil.rmtree(d, ignore_errors=True)
        text = str(e).strip().splitlines()[0] if str(e).strip() else ""
        info.update(status="failed" if device else "not computed", error=f"{type(e).__name__}: {text}"[:300])
    finally:
        model.to("cpu")
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    info["seconds"] = round(time.time() - start, 2)
    with open(os.path.join(folder, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
    where = info.get("device_name", info["device"])
    if info["status"] == "ok":
        bad = "; non-finite " + ", ".join(f"{n}: {c}" for n, c in info["nonfinite"].items()) if info["nonfinite"] else ""
        return f"torch fp16 on {where}: ok{bad}"
    return f"torch fp16 on {where}: {info['status']}: {info['error']}"


def export_dynamic(name, out_dir, opset, seed, fp16_ref="none"):
    """Writes DIR/<name>/model.onnx with DYNAMIC[name]'s symbolic dims and test_data_set_0..2 (and
    torch's fp16 outputs of each set, --fp16-ref); returns (onnx path, [(set, shape, mean |y|) per
    output and set], torch fp16 summary)."""
    import inspect
    dyn = DYNAMIC[name]
    factory = dyn.factory or ZOO[dyn.base][0]
    gen = torch.Generator().manual_seed(seed)  # as export_models.export: the base model's weights
    torch.manual_seed(seed)
    model, inputs, output_names = factory(gen)
    model.eval()
    sets = [inputs] + [dyn.make_inputs(gen, size) for size in dyn.sizes]
    model_dir = os.path.join(out_dir, name)
    for old in glob.glob(os.path.join(model_dir, "test_data_set_*")):
        shutil.rmtree(old)
    onnx_path = os.path.join(model_dir, "model.onnx")
    kw = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    with torch.no_grad():
        torch.onnx.export(model, tuple(inputs.values()), onnx_path, input_names=list(inputs),
                          output_names=output_names, opset_version=opset, do_constant_folding=True,
                          dynamic_axes=dyn.axes, **kw)
    em.onnx.checker.check_model(em.onnx.load(onnx_path))
    outs = []
    for k, data in enumerate(sets):
        data_dir = os.path.join(model_dir, f"test_data_set_{k}")
        os.makedirs(data_dir, exist_ok=True)
        with torch.no_grad():
            outputs = model(*data.values())
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        for i, (input_name, value) in enumerate(data.items()):
            em.save_tensor(value.numpy(), input_name, os.path.join(data_dir, f"input_{i}.pb"))
        for i, (output_name, value) in enumerate(zip(output_names, outputs)):
            em.save_tensor(value.numpy(), output_name, os.path.join(data_dir, f"output_{i}.pb"))
        outs += [(k, tuple(o.shape), float(o.abs().double().mean())) for o in outputs]
    return onnx_path, outs, write_torch_fp16(model, sets, output_names, model_dir, fp16_ref)


def zoo_stamp(opset, seed, fp16_ref="none"):
    """What an export depends on: the scripts, the options, the torch version and where torch's
    fp16 outputs are computed."""
    h = hashlib.sha256()
    here = os.path.dirname(os.path.abspath(__file__))
    for f in (os.path.abspath(__file__), os.path.abspath(em.__file__), os.path.join(here, "export_transformers.py")):
        with open(f, "rb") as fh:
            h.update(fh.read())
    return f"{h.hexdigest()} opset={opset} seed={seed} torch={torch.__version__} fp16-ref={fp16_device(fp16_ref)}\n"


def export_one(name, out_dir, opset, seed, fp16_ref="none"):
    """Exports one zoo model (and torch's fp16 outputs, --fp16-ref); returns (status, message) with
    status ok/skipped/failed."""
    try:
        if name in DYNAMIC:
            path, set_outs, fp16_note = export_dynamic(name, out_dir, opset, seed, fp16_ref)
            outs = [(f"set {k}: {list(shape)}", mean_abs) for k, shape, mean_abs in set_outs]
        else:
            made = {}

            def factory(gen, make=ZOO[name][0]):  # keeps the model and inputs for the fp16 run
                made["model"], made["inputs"], made["names"] = make(gen)
                return made["model"], made["inputs"], made["names"]

            em.MODELS[name] = factory  # export_models.export looks the factory up by name
            path, outs = em.export(name, out_dir, opset, seed)
            fp16_note = write_torch_fp16(made["model"], [made["inputs"]], made["names"],
                                         os.path.join(out_dir, name), fp16_ref)
    except NotInstalled as e:
        return "skipped", str(e)
    except NotWritten as e:
        return "todo", str(e)
    except Exception as e:  # noqa: BLE001  any export failure is a table row, with its reason
        last = traceback.extract_tb(e.__traceback__)[-1]
        return "failed", f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''} " \
                         f"({os.path.basename(last.filename)}:{last.lineno})"
    desc = ", ".join(f"{shape if isinstance(shape, str) else list(shape)} mean|y|={mean_abs:.4g}"
                     for shape, mean_abs in outs)
    if any(mean_abs < 1e-4 for _, mean_abs in outs):  # model_test's and run_zoo's rule
        return "failed", f"reference output ~0, any engine would pass it: {desc}"
    return "ok", f"{path} opset {opset}, output {desc}; {fp16_note}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="zoo directory")
    parser.add_argument("--models", default="all",
                        help="comma-separated names, 'all', 'static' (the models) or 'dynamic' (their "
                        "dynamic-shape variants, spec 9.3): " + ", ".join(list(ZOO) + list(DYNAMIC)))
    parser.add_argument("--opset", type=int, default=em.DEFAULT_OPSET,
                        help=f"ONNX opset (default {em.DEFAULT_OPSET})")
    parser.add_argument("--seed", type=int, default=0, help="random seed for weights and inputs")
    parser.add_argument("--skip-existing", action="store_true",
                        help="leave a model alone that was exported with the same scripts and options")
    parser.add_argument("--fp16-ref", default="auto", choices=["auto", "cuda", "cpu", "none"],
                        help="where to compute torch's own fp16 outputs (model.half()): auto = CUDA where "
                        "torch has it, else the CPU (default); none = not at all")
    parser.add_argument("--list", action="store_true", help="print the zoo's models and exit")
    args = parser.parse_args(argv)

    if args.list:
        for name, (_, what) in ZOO.items():
            print(f"{name}: {what}")
        for name, dyn in DYNAMIC.items():
            print(f"{name}: dynamic shapes (spec 9.3): {dyn.what}")
        return 0
    if not args.out:
        parser.error("--out DIR is required")
    groups = {"all": list(ZOO) + list(DYNAMIC), "static": list(ZOO), "dynamic": list(DYNAMIC)}
    names = []
    for n in (n.strip() for n in args.models.split(",")):
        names += [m for m in groups.get(n, [n] if n else []) if m not in names]
    unknown = [n for n in names if n not in ZOO and n not in DYNAMIC]
    if unknown:
        parser.error("unknown model(s): " + ", ".join(unknown) + "; known: " + ", ".join(list(ZOO) + list(DYNAMIC)))

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    stamp = zoo_stamp(args.opset, args.seed, args.fp16_ref)
    import export_transformers
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}, transformers "
          f"{export_transformers.version() or 'not installed'}, opset {args.opset}; torch fp16 outputs on "
          f"{fp16_device(args.fp16_ref) or 'none'}", flush=True)
    failed = 0
    for name in names:
        model_dir = os.path.join(args.out, name)
        stamp_file = os.path.join(model_dir, "export.stamp")
        error_file = os.path.join(model_dir, "export.error")
        if args.skip_existing and os.path.exists(stamp_file):
            with open(stamp_file) as f:
                if f.read() == stamp:
                    print(f"{name}: up to date", flush=True)
                    continue
        os.makedirs(model_dir, exist_ok=True)
        for f in (stamp_file, error_file):
            if os.path.exists(f):
                os.remove(f)
        start = time.time()
        status, message = export_one(name, args.out, args.opset, args.seed, args.fp16_ref)
        elapsed = time.time() - start
        if status == "ok":
            with open(stamp_file, "w") as f:
                f.write(stamp)
        else:
            failed += status == "failed"
            shutil.rmtree(os.path.join(model_dir, "torch_fp16"), ignore_errors=True)
            if status == "todo":
                for d in glob.glob(os.path.join(model_dir, "test_data_set_*")):
                    shutil.rmtree(d, ignore_errors=True)
            with open(error_file, "w") as f:
                f.write(f"{status}: {message}\n")
        print(f"{name}: {status}: {message} ({elapsed:.1f}s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
