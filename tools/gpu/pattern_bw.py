"""How fast this GPU moves BERT-base attention's bytes in the patterns the fused attention kernel
reads and writes them (issue 7): q, k, v as [batch, heads, seq, dim] views of the QKV product's
[batch, seq, 3, heads, dim] rows (128-byte pieces 4608 bytes apart) and the output written back
heads-in-place. Each line: a PyTorch copy in a CUDA graph, median of --runs replays (CUDA events),
and the bytes it moves a second. The fused kernel's floor on this machine is its bytes (q, k, v
read, the output written: ~50 MB at b64) over the strided lines' rate.
  /opt/torch/.venv/bin/python3 tools/gpu/pattern_bw.py [--shape 64,12,128,64] [--runs 200]"""
import argparse
import torch


def timed(fn, runs):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    for _ in range(10):
        g.replay()
    times = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000.0)
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="64,12,128,64")
    ap.add_argument("--runs", type=int, default=200)
    a = ap.parse_args()
    b, h, s, d = (int(x) for x in a.shape.split(","))
    qkv = torch.randn(b, s, 3, h, d, device="cuda", dtype=torch.half)
    q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))
    part = b * h * s * d * 2
    packed = [torch.empty(b, h, s, d, device="cuda", dtype=torch.half) for _ in range(3)]
    flat = torch.empty_like(qkv)
    out = torch.empty(b, s, h, d, device="cuda", dtype=torch.half)
    lines = [
        ("qkv copied whole (contiguous read + write)", lambda: flat.copy_(qkv), 2 * 3 * part),
        ("q, k, v views to packed (strided read, contiguous write)",
         lambda: [p.copy_(x) for p, x in zip(packed, (q, k, v))], 2 * 3 * part),
        ("q, k, v views summed (strided read only)", lambda: [x.sum() for x in (q, k, v)], 3 * part),
        ("qkv summed (contiguous read only)", lambda: qkv.sum(), 3 * part),
        ("packed to heads-in-place output (contiguous read, strided write)",
         lambda: out.transpose(1, 2).copy_(packed[0]), 2 * part),
    ]
    print(f"{torch.cuda.get_device_name()}, shape b h s d = {b} {h} {s} {d}, median of {a.runs} graph replays")
    for name, fn, nbytes in lines:
        us = timed(fn, a.runs)
        print(f"  {name}: {us:.2f} us, {nbytes / us / 1e6:.2f} TB/s")


if __name__ == "__main__":
    main()
