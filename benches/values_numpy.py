#!/usr/bin/env python3
"""numpy's answer to `check --values`, over a memory map, as a user would write it: whether
every value is finite (a bf16 safetensors file: each chunk widened to float32, then
`np.isfinite(...).all()`; `--bits`: the exponent tested on the raw uint16, no conversion), or
for a Q4_K GGUF whether every block's d and dmin are (as llama.cpp's validation checks). In
chunks of 64 MiB, as a 4 GiB temporary would not fit; numpy runs these on one core.

    python3 benches/values_numpy.py FILE.safetensors [--bits]
    python3 benches/values_numpy.py FILE.gguf
"""

import json
import struct
import sys

import numpy as np

CHUNK = 64 << 20
path = sys.argv[1]
ok = True
if path.endswith(".safetensors"):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    m = np.memmap(path, np.uint16, "r", offset=8 + n)
    for name, t in header.items():
        if name == "__metadata__":
            continue
        a = m[t["data_offsets"][0] // 2 : t["data_offsets"][1] // 2]
        for i in range(0, a.size, CHUNK // 2):
            c = a[i : i + CHUNK // 2]
            if "--bits" in sys.argv:
                ok &= bool(((c & 0x7F80) != 0x7F80).all())
            else:
                ok &= bool(np.isfinite((c.astype(np.uint32) << 16).view(np.float32)).all())
else:
    import gguf

    for t in gguf.GGUFReader(path).tensors:
        blocks = t.data.reshape(-1, 144)
        for i in range(0, blocks.shape[0], CHUNK // 144):
            scales = np.ascontiguousarray(blocks[i : i + CHUNK // 144, :4]).view(np.float16)
            ok &= bool(np.isfinite(scales).all())
print("all finite" if ok else "not all finite")
