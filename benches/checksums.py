#!/usr/bin/env python3
"""Time `rtenx check --verify-checksums` against sha1sum and openssl on the same bytes.

    pip install -r tests/fixtures/gen/requirements.txt
    cargo build --release
    python3 benches/checksums.py [--files 2] [--mib 1024]

Writes an ONNX model whose initializers are external, one per data file, each file MIB MiB of
real (random, repeated) bytes with its SHA-1 in the `checksum` key, into a temporary folder.
The files are read once first, so every tool hashes from the page cache: this measures
hashing, not the disk. Prints the best of 3 wall times and the throughput of each tool.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import onnx
from onnx import TensorProto, helper

REPO = Path(__file__).resolve().parents[1]
MIB = 1 << 20


def build(folder: Path, files: int, mib: int) -> Path:
    block = os.urandom(MIB)
    tensors = []
    for i in range(files):
        name = f"w{i}.data"
        sha = hashlib.sha1()
        with open(folder / name, "wb") as f:
            for _ in range(mib):
                f.write(block)
                sha.update(block)
        t = TensorProto(name=f"w{i}", data_type=TensorProto.FLOAT, dims=[mib * MIB // 4])
        t.data_location = TensorProto.EXTERNAL
        for key, value in [("location", name), ("offset", "0"), ("length", str(mib * MIB)),
                           ("checksum", sha.hexdigest())]:
            entry = t.external_data.add()
            entry.key, entry.value = key, value
        tensors.append(t)
    nodes = [helper.make_node("Identity", [f"w{i}"], [f"y{i}"]) for i in range(files)]
    outputs = [helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, None) for i in range(files)]
    graph = helper.make_graph(nodes, "checksums", [], outputs, tensors)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    path = folder / "model.onnx"
    path.write_bytes(model.SerializeToString())
    return path


def best(cmd: list[str], cwd: Path) -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2)
    parser.add_argument("--mib", type=int, default=1024)
    args = parser.parse_args()
    rtenx = REPO / "target" / "release" / "rtenx"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        build(folder, args.files, args.mib)
        data = [f"w{i}.data" for i in range(args.files)]
        for name in data:  # into the page cache
            with open(folder / name, "rb") as f:
                while f.read(64 * MIB):
                    pass
        total = args.files * args.mib * MIB
        rows = [("rtenx check --verify-checksums (all files in parallel)",
                 [str(rtenx), "check", "--verify-checksums", "model.onnx"])]
        if shutil.which("sha1sum"):
            rows.append(("sha1sum (one after another)", ["sha1sum", *data]))
        if shutil.which("openssl"):
            rows.append(("openssl sha1 (one after another)", ["openssl", "sha1", *data]))
        print(f"{args.files} files x {args.mib} MiB, {os.cpu_count()} cores")
        for label, cmd in rows:
            seconds = best(cmd, folder)
            print(f"{label:<58} {seconds:7.2f} s  {total / seconds / 1e9:5.2f} GB/s")


if __name__ == "__main__":
    main()
