#!/usr/bin/env python3
"""Compare onnx's own checker with `rtenx check` on a 20,000-node ONNX model.

    pip install -r tests/fixtures/gen/requirements.txt
    cargo build --release            # optional: without the binary, rtenx is skipped
    python3 benches/onnx_checker.py  # [--nodes N] [--rtenx PATH]

1. Builds a chain of N nodes (default 20,000) with onnx.helper: X[1,64] through a repeating
   MatMul / Add / Relu / Mul pattern that reads 4 weight matrices, 4 biases and one scale
   (a few initializers, fixed seed), and saves it with external data (weights.data, one
   file) into a temporary folder.
2. Times onnx.checker.check_model(path, full_check=True): best of 3.
3. Times `target/release/rtenx check <path>` as a subprocess (process start included):
   best of 5; skipped with a message if the binary is missing.
Prints a small table and the ratio. The model is deterministic (same bytes on every run);
the times are of course not.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO = Path(__file__).resolve().parents[1]
DIM = 64
N_WEIGHTS = 4


def build_model(n_nodes: int) -> onnx.ModelProto:
    rng = np.random.default_rng(20000)
    inits = []
    for k in range(N_WEIGHTS):
        w = (rng.standard_normal((DIM, DIM)) / np.sqrt(DIM)).astype(np.float32)  # 16 KiB
        b = rng.standard_normal(DIM).astype(np.float32)  # 256 B: stays inline
        inits += [numpy_helper.from_array(w, f"w{k}"), numpy_helper.from_array(b, f"b{k}")]
    inits.append(numpy_helper.from_array(np.array([0.5], np.float32), "scale"))

    nodes = []
    prev = "X"
    for i in range(n_nodes):
        k = (i // 4) % N_WEIGHTS
        out = f"t{i}" if i + 1 < n_nodes else "Y"
        step = i % 4
        if step == 0:
            node = helper.make_node("MatMul", [prev, f"w{k}"], [out], name=f"n{i}")
        elif step == 1:
            node = helper.make_node("Add", [prev, f"b{k}"], [out], name=f"n{i}")
        elif step == 2:
            node = helper.make_node("Relu", [prev], [out], name=f"n{i}")
        else:
            node = helper.make_node("Mul", [prev, "scale"], [out], name=f"n{i}")
        nodes.append(node)
        prev = out

    graph = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, DIM])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, DIM])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    model.producer_name = "rtenx-bench"
    return model


def best_of(runs: int, fn) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def fmt(seconds: float) -> str:
    return f"{seconds * 1000:9.1f} ms" if seconds < 10 else f"{seconds:9.2f} s "


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=20_000)
    ap.add_argument("--rtenx", type=Path, default=Path(os.environ.get("RTENX", REPO / "target/release/rtenx")))
    args = ap.parse_args()

    print(f"python {platform.python_version()}, onnx {onnx.__version__}, numpy {np.__version__}")
    with tempfile.TemporaryDirectory(prefix="rtenx-onnx-bench-") as tmp:
        path = Path(tmp) / "model.onnx"
        t0 = time.perf_counter()
        model = build_model(args.nodes)
        onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                        location="weights.data", size_threshold=1024)
        build_s = time.perf_counter() - t0
        data = Path(tmp) / "weights.data"
        print(f"model: {args.nodes} nodes, {len(model.graph.initializer)} initializers; "
              f"model.onnx {path.stat().st_size:,} B, weights.data {data.stat().st_size:,} B "
              f"(built and saved in {build_s:.2f} s)")

        rows = []
        onnx_s = best_of(3, lambda: onnx.checker.check_model(str(path), full_check=True))
        rows.append(("onnx.checker.check_model(path, full_check=True)", 3, onnx_s, "pass"))

        rtenx_s = None
        if not args.rtenx.is_file():
            print(f"rtenx: {args.rtenx} not found, skipped (cargo build --release)")
        else:
            cmd = [str(args.rtenx), "check", "--color", "never", str(path)]
            first = subprocess.run(cmd, capture_output=True, text=True)
            rtenx_s = best_of(5, lambda: subprocess.run(cmd, stdout=subprocess.DEVNULL,
                                                        stderr=subprocess.DEVNULL))
            status = {0: "no errors", 1: "errors found"}.get(first.returncode, f"exit {first.returncode}")
            rows.append((f"rtenx check {path.name} (subprocess)", 5, rtenx_s, status))
            if first.returncode != 0:
                out = (first.stdout + first.stderr).strip().splitlines()
                print("rtenx output (first lines; the timing is only meaningful for a clean run):")
                for line in out[:6]:
                    print(f"  {line.replace(tmp, '<tmp>')}")

    print()
    print(f"| {'what':<50} | runs | {'best':>12} | result")
    print(f"|{'-' * 52}|------|{'-' * 14}|-------")
    for what, runs, s, status in rows:
        print(f"| {what:<50} | {runs:>4} | {fmt(s):>12} | {status}")
    if rtenx_s:
        note = "" if rows[-1][3] == "no errors" else "  (not meaningful: rtenx did not pass the model)"
        print(f"\nratio onnx checker / rtenx: {onnx_s / rtenx_s:.1f}x{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
