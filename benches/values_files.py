#!/usr/bin/env python3
"""The files of the `check --values` benchmark (BENCHMARKS.md, "Issue 41: values"), written
whole (no sparse holes, so that every page is real data in the page cache):

  big_bf16.safetensors  4 GiB: 16 bf16 tensors of [16384, 8192], random normal values
                        (safetensors' layout, written by hand in 256 MiB pieces: the
                        library's save_file would hold the whole 4 GiB in memory)
  big_q4_k.gguf         4 GiB: 16 Q4_K tensors of [58254, 8192] (32 blocks a row), random
                        blocks with finite d and dmin (GGUFWriter, raw blocks; 9 GiB of memory
                        while it writes, as GGUFWriter keeps every tensor until the end)

    python3 benches/values_files.py DIR        (numpy, gguf; writes what is missing)
"""

import json
import struct
import sys
from pathlib import Path

import numpy as np

out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/rtenx-values")
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(41)
N, ROWS, COLS = 16, 16384, 8192

st = out / "big_bf16.safetensors"
if not st.exists():
    size = ROWS * COLS * 2
    header = {f"layer.{i}.weight": {"dtype": "BF16", "shape": [ROWS, COLS], "data_offsets": [i * size, (i + 1) * size]} for i in range(N)}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(st, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for i in range(N):
            x = rng.standard_normal(ROWS * COLS, dtype=np.float32)
            f.write((x.view(np.uint32) >> 16).astype(np.uint16).tobytes())

gg = out / "big_q4_k.gguf"
if not gg.exists():
    import gguf

    blocks_per_row = 32  # rows of 8192 elements, about 256 MiB a tensor
    rows = (256 << 20) // (blocks_per_row * 144)
    w = gguf.GGUFWriter(str(gg), "values")
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)
    tensors = []
    for i in range(N):
        b = rng.integers(0, 256, (rows * blocks_per_row, 144), dtype=np.uint8)
        b[:, 0:2] = np.frombuffer(np.float16(0.01).tobytes(), np.uint8)
        b[:, 2:4] = np.frombuffer(np.float16(0.002).tobytes(), np.uint8)
        w.add_tensor(f"blk.{i}.ffn.weight", b.reshape(rows, blocks_per_row * 144), raw_dtype=gguf.GGMLQuantizationType.Q4_K)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
for p in (st, gg):
    print(p, p.stat().st_size)
