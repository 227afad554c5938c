"""Times PyTorch's attention backends on one attention shape (what a fused attention kernel of
migx can be held against): q, k, v [batch, heads, seq, dim] half, as views of [batch, seq, heads,
dim] tensors (the layout BERT's QKV gemm leaves), with and without an additive padding mask
[batch, 1, 1, seq]. CUDA events around a CUDA graph of 20 calls, median of --runs after warm-up.
  python3 sdpa_peers.py [--shape 64,12,128,64] [--runs 200]"""
import argparse
import statistics
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
import torch.nn.functional as F


def timed(fn, runs, per=20):
    """Median us of one call: fn captured in a CUDA graph `per` times over and replayed between
    two events (Python's dispatch, ~20 us a call, would otherwise be timed with small kernels)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(per):
            fn()
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000.0 / per)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="64,12,128,64")
    ap.add_argument("--runs", type=int, default=200)
    a = ap.parse_args()
    b, h, s, d = (int(x) for x in a.shape.split(","))
    qkv = torch.randn(b, s, 3, h, d, device="cuda", dtype=torch.half)
    q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))
    mask = torch.zeros(b, 1, 1, s, device="cuda", dtype=torch.half)
    mask[:, :, :, s - s // 5:] = -10000.0
    ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), attn_mask=mask.float())
    nbytes = 4 * b * s * h * d * 2
    print(f"shape b{b} h{h} s{s} d{d}; q/k/v/o {nbytes / 1e6:.1f} MB in all; torch {torch.__version__}, "
          f"cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name()}")
    import warnings
    warnings.filterwarnings("ignore")
    for name, be in [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION),
                     ("efficient", SDPBackend.EFFICIENT_ATTENTION), ("math", SDPBackend.MATH)]:
        for masked in (False, True):
            m = mask.expand(b, h, s, s) if masked else None
            try:
                with sdpa_kernel([be]):
                    out = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
                    us = timed(lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=m), a.runs)
                err = ""
                if masked:
                    err = f", max abs err vs fp32 {float((out.float() - ref).abs().max()):.2e}"
                print(f"{name:10s} mask={masked!s:5s} {us:8.1f} us  {nbytes / us / 1e6:.2f} TB/s{err}")
            except Exception as e:  # a backend that refuses the shape or the mask
                print(f"{name:10s} mask={masked!s:5s} not available: {str(e).splitlines()[0][:150]}")


if __name__ == "__main__":
    main()
