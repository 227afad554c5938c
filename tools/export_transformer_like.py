#!/usr/bin/python3
"""Export BERT-like and GPT-2-like models to ONNX, reproducing the transformers library's code paths
(transformers itself is not needed): the attention-mask arithmetic, causal masks, GELU variants,
layernorm, past key/value concatenation. Weights are random (seeded). Small configs are fine for
checking which ops a target lowers; the structure does not depend on the size.

Models (each written as DIR/<name>/model.onnx plus test_data_set_0/{input,output}_K.pb):
  bert_legacy   BertModel before the SDPA rewrite: extended mask (1.0 - mask[:, None, None, :]) *
                finfo.min, added to Q.K^T / sqrt(d); erf GELU; pooler (tanh); token-type and
                position ids from buffers sliced to the sequence length.
  bert_sdpa     BertSdpaSelfAttention (transformers >= 4.41): the 4-d mask of
                _prepare_4d_attention_mask_for_sdpa (expand, invert, masked_fill(bool, finfo.min)),
                and the ONNX exporter's decomposition of scaled_dot_product_attention (scale from
                the query's Shape, sqrt(scale) on both operands).
  gpt2_legacy   GPT2Model with the lower-triangular bool `bias` buffer sliced by
                [key_len - query_len : key_len, :key_len] and torch.where(mask, w, finfo.min),
                Conv1D (addmm), tanh GELU with pow(x, 3), past key/values concatenated (--past),
                position ids from torch.arange(past, past + seq), the padding mask as in bert_legacy,
                tied LM head, present key/values as outputs.
  gpt2_new      The same with the causal mask of _prepare_4d_causal_attention_mask (transformers
                4.3x-4.4x): full(finfo.min), arange comparison mask_cond < (mask_cond + 1).view(-1, 1),
                masked_fill, zeros concatenated for the past, expand, merged with the padding mask
                through masked_fill(bool); causal mask also built with torch.tril(torch.ones(...)).

Usage: tools/export_transformer_like.py --out DIR [--models bert_legacy,gpt2_new,...] [--layers 2]
       [--hidden 256] [--heads 4] [--seq 128] [--batch 1] [--past 4] [--vocab 1000] [--opset 17]
       [--dynamic]   (batch and sequence symbolic, as transformers' own ONNX exports)
BERT-base: --layers 12 --hidden 768 --heads 12 --vocab 30522; GPT-2: --layers 12 --hidden 768
--heads 12 --vocab 50257.
"""

import argparse
import math
import os
import sys

try:
    import numpy as np
    import onnx
    import onnx.numpy_helper
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as e:
    print(f"export_transformer_like.py: {e}; needs python3-torch and python3-onnx", file=sys.stderr)
    sys.exit(77)

MODELS = ["bert_legacy", "bert_sdpa", "gpt2_legacy", "gpt2_new"]


# ----------------------------------------------------------------------------------------------
# BERT


class BertEmbeddings(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.word_embeddings = nn.Embedding(cfg.vocab, cfg.hidden)
        self.position_embeddings = nn.Embedding(cfg.max_pos, cfg.hidden)
        self.token_type_embeddings = nn.Embedding(2, cfg.hidden)
        self.LayerNorm = nn.LayerNorm(cfg.hidden, eps=1e-12)
        self.dropout = nn.Dropout(0.1)
        self.register_buffer("position_ids", torch.arange(cfg.max_pos).expand((1, -1)), persistent=False)
        self.register_buffer("token_type_ids", torch.zeros(self.position_ids.size(), dtype=torch.long),
                             persistent=False)

    def forward(self, input_ids, token_type_ids=None):
        input_shape = input_ids.size()
        seq_length = input_shape[1]
        position_ids = self.position_ids[:, 0:seq_length]
        if token_type_ids is None:
            buffered = self.token_type_ids[:, :seq_length]
            token_type_ids = buffered.expand(input_shape[0], seq_length)
        emb = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        emb = emb + self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(emb))


def sdpa_decomposed(query, key, value, attn_mask=None, is_causal=False):
    """What torch.onnx (TorchScript, opset 14+) emits for F.scaled_dot_product_attention."""
    q_last = query.size(-1)
    scale = 1.0 / torch.sqrt(torch.tensor(q_last, dtype=torch.float32)).to(query.dtype)
    key_t = key.transpose(-2, -1)
    sq = torch.sqrt(scale)
    w = torch.matmul(query * sq, key_t * sq)
    if is_causal:
        L, S = query.size(-2), key.size(-2)
        causal = torch.ones(L, S, dtype=torch.float32).tril(diagonal=0)
        attn_mask = torch.where(causal == 0, torch.tensor(-float("inf")), torch.tensor(0.0)).to(query.dtype)
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn_mask = torch.where(attn_mask, torch.tensor(0.0), torch.tensor(-float("inf"))).to(query.dtype)
        w = w + attn_mask
    w = torch.softmax(w, dim=-1)
    return torch.matmul(w, value)


class BertSelfAttention(nn.Module):
    def __init__(self, cfg, sdpa):
        super().__init__()
        self.h = cfg.heads
        self.d = cfg.hidden // cfg.heads
        self.query = nn.Linear(cfg.hidden, cfg.hidden)
        self.key = nn.Linear(cfg.hidden, cfg.hidden)
        self.value = nn.Linear(cfg.hidden, cfg.hidden)
        self.dropout = nn.Dropout(0.1)
        self.sdpa = sdpa

    def split(self, x):
        x = x.view(x.size()[:-1] + (self.h, self.d))
        return x.permute(0, 2, 1, 3)

    def forward(self, hidden, attention_mask):
        q, k, v = self.split(self.query(hidden)), self.split(self.key(hidden)), self.split(self.value(hidden))
        if self.sdpa:
            ctx = sdpa_decomposed(q, k, v, attn_mask=attention_mask)
        else:
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d)
            scores = scores + attention_mask
            probs = self.dropout(F.softmax(scores, dim=-1))
            ctx = torch.matmul(probs, v)
        ctx = ctx.permute(0, 2, 1, 3).contiguous()
        return ctx.view(ctx.size()[:-2] + (self.h * self.d,))


class BertLayer(nn.Module):
    def __init__(self, cfg, sdpa):
        super().__init__()
        self.attention = BertSelfAttention(cfg, sdpa)
        self.attn_out = nn.Linear(cfg.hidden, cfg.hidden)
        self.attn_ln = nn.LayerNorm(cfg.hidden, eps=1e-12)
        self.intermediate = nn.Linear(cfg.hidden, 4 * cfg.hidden)
        self.output = nn.Linear(4 * cfg.hidden, cfg.hidden)
        self.out_ln = nn.LayerNorm(cfg.hidden, eps=1e-12)

    def forward(self, x, mask):
        a = self.attn_ln(self.attn_out(self.attention(x, mask)) + x)
        i = F.gelu(self.intermediate(a))  # erf GELU, as BERT's "gelu"
        return self.out_ln(self.output(i) + a)


class Bert(nn.Module):
    def __init__(self, cfg, sdpa):
        super().__init__()
        self.embeddings = BertEmbeddings(cfg)
        self.layers = nn.ModuleList([BertLayer(cfg, sdpa) for _ in range(cfg.layers)])
        self.pooler = nn.Linear(cfg.hidden, cfg.hidden)
        self.sdpa = sdpa

    def forward(self, input_ids, attention_mask):
        dtype = torch.float32
        if self.sdpa:
            # AttentionMaskConverter._expand_mask
            bsz, src_len = attention_mask.size()
            tgt_len = input_ids.size(1)
            expanded = attention_mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
            inverted = 1.0 - expanded
            ext = inverted.masked_fill(inverted.to(torch.bool), torch.finfo(dtype).min)
        else:
            # BertModel.get_extended_attention_mask
            ext = attention_mask[:, None, None, :].to(dtype=dtype)
            ext = (1.0 - ext) * torch.finfo(dtype).min
        x = self.embeddings(input_ids)
        for layer in self.layers:
            x = layer(x, ext)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        return x, pooled


# ----------------------------------------------------------------------------------------------
# GPT-2


class Conv1D(nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


def new_gelu(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Attention(nn.Module):
    def __init__(self, cfg, legacy):
        super().__init__()
        n = cfg.max_pos
        self.register_buffer("bias", torch.tril(torch.ones((n, n), dtype=torch.bool)).view(1, 1, n, n),
                             persistent=False)
        self.h = cfg.heads
        self.d = cfg.hidden // cfg.heads
        self.split_size = cfg.hidden
        self.c_attn = Conv1D(3 * cfg.hidden, cfg.hidden)
        self.c_proj = Conv1D(cfg.hidden, cfg.hidden)
        self.legacy = legacy

    def _attn(self, query, key, value, attention_mask):
        w = torch.matmul(query, key.transpose(-1, -2))
        w = w / torch.full([], value.size(-1) ** 0.5, dtype=w.dtype)
        if self.legacy:
            query_length, key_length = query.size(-2), key.size(-2)
            causal_mask = self.bias[:, :, key_length - query_length:key_length, :key_length]
            mask_value = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype)
            w = torch.where(causal_mask, w.to(w.dtype), mask_value)
        w = w + attention_mask
        w = F.softmax(w, dim=-1)
        return torch.matmul(w, value)

    def split_heads(self, x):
        x = x.view(x.size()[:-1] + (self.h, self.d))
        return x.permute(0, 2, 1, 3)

    def forward(self, x, layer_past, attention_mask):
        query, key, value = self.c_attn(x).split(self.split_size, dim=2)
        query, key, value = self.split_heads(query), self.split_heads(key), self.split_heads(value)
        if layer_past is not None:
            past_key, past_value = layer_past
            key = torch.cat((past_key, key), dim=-2)
            value = torch.cat((past_value, value), dim=-2)
        present = (key, value)
        a = self._attn(query, key, value, attention_mask)
        a = a.permute(0, 2, 1, 3).contiguous()
        a = a.view(a.size()[:-2] + (self.h * self.d,))
        return self.c_proj(a), present


class GPT2Block(nn.Module):
    def __init__(self, cfg, legacy):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.hidden, eps=1e-5)
        self.attn = GPT2Attention(cfg, legacy)
        self.ln_2 = nn.LayerNorm(cfg.hidden, eps=1e-5)
        self.c_fc = Conv1D(4 * cfg.hidden, cfg.hidden)
        self.c_proj = Conv1D(cfg.hidden, 4 * cfg.hidden)

    def forward(self, x, layer_past, mask):
        a, present = self.attn(self.ln_1(x), layer_past, mask)
        x = x + a
        x = x + self.c_proj(new_gelu(self.c_fc(self.ln_2(x))))
        return x, present


class GPT2(nn.Module):
    def __init__(self, cfg, legacy):
        super().__init__()
        self.wte = nn.Embedding(cfg.vocab, cfg.hidden)
        self.wpe = nn.Embedding(cfg.max_pos, cfg.hidden)
        self.h = nn.ModuleList([GPT2Block(cfg, legacy) for _ in range(cfg.layers)])
        self.ln_f = nn.LayerNorm(cfg.hidden, eps=1e-5)
        self.legacy = legacy

    def causal_mask(self, bsz, tgt_len, past, dtype):
        # _make_causal_mask (transformers 4.3x), plus torch.tril(torch.ones(...)) as other models do.
        mask = torch.full((tgt_len, tgt_len), torch.finfo(dtype).min)
        mask_cond = torch.arange(mask.size(-1))
        mask = mask.masked_fill(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), 0)
        keep = torch.tril(torch.ones(tgt_len, tgt_len, dtype=torch.long)) > 0
        mask = torch.where(keep, mask, torch.full([], torch.finfo(dtype).min))
        mask = mask.to(dtype)
        if past > 0:
            mask = torch.cat([torch.zeros(tgt_len, past, dtype=dtype), mask], dim=-1)
        return mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len + past)

    def forward(self, input_ids, attention_mask, *past):
        dtype = torch.float32
        bsz, seq = input_ids.size()
        past_kv = [(past[2 * i], past[2 * i + 1]) for i in range(len(past) // 2)] if past else [None] * len(self.h)
        past_length = past[0].size(-2) if past else 0
        position_ids = torch.arange(past_length, seq + past_length, dtype=torch.long).unsqueeze(0)
        if self.legacy:
            m = attention_mask.view(bsz, -1)[:, None, None, :].to(dtype)
            m = (1.0 - m) * torch.finfo(dtype).min
        else:
            # _prepare_4d_causal_attention_mask: causal mask merged with the expanded padding mask.
            causal = self.causal_mask(bsz, seq, past_length if past else 0, dtype)
            src_len = attention_mask.size(-1)
            expanded = attention_mask[:, None, None, :].expand(bsz, 1, seq, src_len).to(dtype)
            inverted = 1.0 - expanded
            pad = inverted.masked_fill(inverted.to(torch.bool), torch.finfo(dtype).min)
            m = causal.masked_fill(pad.bool(), torch.finfo(dtype).min)
        x = self.wte(input_ids) + self.wpe(position_ids)
        presents = []
        for block, lp in zip(self.h, past_kv):
            x, present = block(x, lp, m)
            presents.extend(present)
        x = self.ln_f(x)
        logits = torch.matmul(x, self.wte.weight.t())
        return (logits, *presents)


# ----------------------------------------------------------------------------------------------


class Config:
    def __init__(self, a):
        self.layers, self.hidden, self.heads, self.vocab = a.layers, a.hidden, a.heads, a.vocab
        self.max_pos = max(512, a.seq + a.past)


def write_pb(path, name, array):
    t = onnx.numpy_helper.from_array(np.ascontiguousarray(array), name)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())


def export(name, a, out_dir):
    torch.manual_seed(0)
    cfg = Config(a)
    b, s = a.batch, a.seq
    gen = torch.Generator().manual_seed(1)
    input_ids = torch.randint(0, cfg.vocab, (b, s), generator=gen)
    mask = torch.ones(b, s, dtype=torch.long)
    if b > 1 or s > 4:
        mask[-1, s - s // 4:] = 0  # padding at the end of the last sequence
    dyn = {}
    if name.startswith("bert"):
        model = Bert(cfg, sdpa=name == "bert_sdpa").eval()
        inputs = (input_ids, mask)
        in_names = ["input_ids", "attention_mask"]
        out_names = ["last_hidden_state", "pooler_output"]
        if a.dynamic:
            dyn = {n: {0: "batch", 1: "sequence"} for n in in_names + ["last_hidden_state"]}
            dyn["pooler_output"] = {0: "batch"}
    else:
        model = GPT2(cfg, legacy=name == "gpt2_legacy").eval()
        d = cfg.hidden // cfg.heads
        past = []
        in_names = ["input_ids", "attention_mask"]
        out_names = ["logits"]
        for i in range(cfg.layers):
            if a.past > 0:
                past += [torch.randn(b, cfg.heads, a.past, d, generator=gen) for _ in range(2)]
                in_names += [f"past_key_values.{i}.key", f"past_key_values.{i}.value"]
            out_names += [f"present.{i}.key", f"present.{i}.value"]
        mask = torch.ones(b, s + a.past, dtype=torch.long)
        if b > 1:
            mask[-1, : (s + a.past) // 4] = 0  # left padding of the last sequence
        inputs = (input_ids, mask, *past)
        if a.dynamic:
            dyn = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "total"},
                   "logits": {0: "batch", 1: "sequence"}}
            for n in in_names[2:]:
                dyn[n] = {0: "batch", 2: "past"}
            for n in out_names[1:]:
                dyn[n] = {0: "batch", 2: "total"}
    with torch.no_grad():
        outs = model(*inputs)
    d = os.path.join(out_dir, name + ("_dyn" if a.dynamic else ""))
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    path = os.path.join(d, "model.onnx")
    kw = dict(input_names=in_names, output_names=out_names, opset_version=a.opset, do_constant_folding=True)
    if dyn:
        kw["dynamic_axes"] = dyn
    import inspect
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kw["dynamo"] = False
    with torch.no_grad():
        torch.onnx.export(model, inputs, path, **kw)
    for k, (n, x) in enumerate(zip(in_names, inputs)):
        write_pb(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), n, x.numpy())
    for k, (n, x) in enumerate(zip(out_names, outs)):
        write_pb(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), n, x.numpy())
    ops = {}
    for node in onnx.load(path).graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    print(f"{name}: {path}  ops: " + ", ".join(f"{k} {v}" for k, v in sorted(ops.items())))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--vocab", type=int, default=1000)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--past", type=int, default=4, help="past key/value length for gpt2 (0: no past inputs)")
    p.add_argument("--opset", type=int, default=17)
    p.add_argument("--dynamic", action="store_true")
    a = p.parse_args()
    for name in a.models.split(","):
        if name not in MODELS:
            p.error(f"unknown model {name}; known: {', '.join(MODELS)}")
        export(name, a, a.out)


if __name__ == "__main__":
    main()
