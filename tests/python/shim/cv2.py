"""The little of OpenCV the spec's Python programs use (imread, resize, IMREAD_COLOR), for
machines without python3-opencv. run_spec_program.py puts this folder on sys.path only when
`import cv2` fails. imread reads binary PPM (P6) files, which the test writes; like OpenCV it
returns HxWx3 uint8 in BGR order. resize is bilinear with half-pixel centres (cv2.INTER_LINEAR)."""

import numpy as np

IMREAD_COLOR = 1


def _tokens(data, count, pos):
    out = []
    while len(out) < count:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            while data[pos:pos + 1] not in (b"\n", b""):
                pos += 1
            continue
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        out.append(data[start:pos])
    return out, pos + 1  # one whitespace byte ends the header


def imread(path, flags=IMREAD_COLOR):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None  # as OpenCV
    if not data.startswith(b"P6"):
        raise ValueError("cv2 shim: only binary PPM (P6) images are supported: " + str(path))
    (w, h, maxval), pos = _tokens(data, 3, 2)
    w, h = int(w), int(h)
    if int(maxval) != 255:
        raise ValueError("cv2 shim: only 8-bit PPM images are supported")
    rgb = np.frombuffer(data, dtype=np.uint8, count=w * h * 3, offset=pos).reshape(h, w, 3)
    return rgb[:, :, ::-1].copy()  # BGR


def resize(src, dsize):
    w, h = dsize
    sh, sw = src.shape[:2]

    def axis(n_out, n_in):
        x = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
        x = np.clip(x, 0, n_in - 1)
        i0 = np.floor(x).astype(np.int64)
        i1 = np.minimum(i0 + 1, n_in - 1)
        return i0, i1, (x - i0).astype(np.float32)

    y0, y1, fy = axis(h, sh)
    x0, x1, fx = axis(w, sw)
    s = src.astype(np.float32)
    top = s[y0][:, x0] * (1 - fx)[None, :, None] + s[y0][:, x1] * fx[None, :, None]
    bottom = s[y1][:, x0] * (1 - fx)[None, :, None] + s[y1][:, x1] * fx[None, :, None]
    out = top * (1 - fy)[:, None, None] + bottom * fy[:, None, None]
    return np.clip(np.rint(out), 0, 255).astype(src.dtype)
