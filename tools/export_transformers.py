"""The real BERT and GPT-2 architectures of Hugging Face `transformers`, for the zoo (issue 11).

tools/export_zoo.py's `bert_hf` and `gpt2_hf` call these factories; they need `transformers`
(the GPU machine's Python has it, Debian's does not: there the factories raise
TransformersMissing and the zoo lists the two models as skipped). Weights are the library's
random initialisation from the default configs (nothing is downloaded): BERT-base
(BertModel(BertConfig()): 12 layers, d768, 12 heads, vocab 30522) and GPT-2 small
(GPT2LMHeadModel(GPT2Config()): 12 layers, d768, 12 heads, vocab 50257, LM head tied to the
token embedding). Attention is the "eager" implementation (matmul, mask, softmax, matmul: the
graph real exports of these models have), not torch's fused SDPA.

Each factory returns (model, {input name: tensor}, [output names]) as export_models' do; the
model is a small wrapper that takes and returns plain tensors, so that torch.onnx.export
(TorchScript exporter) can trace it:

    bert_hf: input_ids [1, 128] int64, attention_mask [1, 128] int64 (the last 28 tokens padding)
             -> last_hidden_state [1, 128, 768], pooler_output [1, 768]
    gpt2_hf: input_ids [1, 8] int64 (8 new tokens), past_key_values [12, 2, 1, 12, 16, 64]
             (layer, key/value, batch, head, 16 past positions, head dim)
             -> logits [1, 8, 50257], present_key_values [12, 2, 1, 12, 24, 64]

GPT-2's past keys/values enter the model as the library's cache object (DynamicCache, filled
layer by layer with `update`, which every transformers version since 4.36 has) or, for a library
without it, as the legacy tuple of (key, value) pairs; the presents come back the same way.
"""

import torch


class TransformersMissing(ImportError):
    """`transformers` does not import here: the zoo's rows say 'skipped: transformers not installed'."""


def _transformers():
    try:
        import transformers
    except Exception as e:  # noqa: BLE001  ImportError, or a transformers too new/old for this torch
        raise TransformersMissing(f"transformers not installed ({type(e).__name__}: {e})") from None
    return transformers


def version():
    try:
        return _transformers().__version__
    except TransformersMissing:
        return None


def _eager(config_cls, **kwargs):
    """A default config asking for the eager attention (older versions keep the unknown key as a
    plain attribute and are eager anyway)."""
    config = config_cls(**kwargs)
    try:
        config._attn_implementation = "eager"
    except Exception:  # noqa: BLE001  a version where it is read-only: the kwarg set it
        pass
    return config


def attention_implementation(model):
    cfg = getattr(model, "config", None)
    return getattr(cfg, "_attn_implementation", None) or "eager (library default)"


class BertHf(torch.nn.Module):
    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask):
        out = self.bert(input_ids=input_ids, attention_mask=attention_mask, return_dict=True)
        return out.last_hidden_state, out.pooler_output


def bert_hf(gen, seq=128, padded=28):
    t = _transformers()
    config = _eager(t.BertConfig, attn_implementation="eager")
    model = BertHf(t.BertModel(config)).eval()
    ids = torch.randint(0, config.vocab_size, (1, seq), generator=gen, dtype=torch.int64)
    mask = torch.ones(1, seq, dtype=torch.int64)
    mask[0, seq - padded:] = 0  # padding, so the mask matters (as bert_base's)
    return model, {"input_ids": ids, "attention_mask": mask}, ["last_hidden_state", "pooler_output"]


def _to_cache(t, past):
    """past [layers, 2, batch, heads, past_len, head_dim] -> what GPT2LMHeadModel takes."""
    cache_cls = getattr(t, "DynamicCache", None)
    if cache_cls is None:
        return tuple((past[i, 0], past[i, 1]) for i in range(past.shape[0]))
    cache = cache_cls()
    for i in range(past.shape[0]):
        cache.update(past[i, 0], past[i, 1], i)
    return cache


def _from_cache(cache):
    """The model's returned cache -> [layers, 2, batch, heads, total_len, head_dim]."""
    if hasattr(cache, "layers") and cache.layers and hasattr(cache.layers[0], "keys"):
        pairs = [(layer.keys, layer.values) for layer in cache.layers]  # transformers >= 4.54
    elif hasattr(cache, "key_cache"):
        pairs = list(zip(cache.key_cache, cache.value_cache))
    elif hasattr(cache, "to_legacy_cache"):
        pairs = cache.to_legacy_cache()
    else:
        pairs = cache  # the legacy tuple
    return torch.stack([torch.stack([k, v]) for k, v in pairs])


class Gpt2Hf(torch.nn.Module):
    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids, past_key_values):
        out = self.lm(input_ids=input_ids, past_key_values=_to_cache(_transformers(), past_key_values),
                      use_cache=True, return_dict=True)
        return out.logits, _from_cache(out.past_key_values)


def gpt2_hf(gen, seq=8, past=16):
    t = _transformers()
    config = _eager(t.GPT2Config, attn_implementation="eager")
    model = Gpt2Hf(t.GPT2LMHeadModel(config)).eval()
    heads, head_dim = config.n_head, config.n_embd // config.n_head
    ids = torch.randint(0, config.vocab_size, (1, seq), generator=gen, dtype=torch.int64)
    past_kv = torch.randn(config.n_layer, 2, 1, heads, past, head_dim, generator=gen)
    return model, {"input_ids": ids, "past_key_values": past_kv}, ["logits", "present_key_values"]
