#!/usr/bin/env python3
"""Time onnx's own checker and `rtenx check` side by side on ONNX models.

    pip install -r tests/fixtures/gen/requirements.txt
    cargo build --release                      # without the binary, rtenx is skipped
    python3 benches/onnx_checker.py            # the synthetic 20,000-node chain
    python3 benches/onnx_checker.py --model a.onnx --model b/model.onnx   # your models

Real exported models of ~20,000 nodes: tests/fixtures/gen/make_torch_onnx.py --bench OUT.

Without --model, builds a chain of N nodes (default 20,000) with onnx.helper: X[1,64] through
a repeating MatMul / Add / Relu / Mul pattern that reads 4 weight matrices, 4 biases and one
scale (fixed seed), saved with external data (weights.data) into a temporary folder. It is the
hardest case for rtenx: tiny operators with no attributes, so per-node bookkeeping is all the
work there is, and onnx's checker has no weights to parse.

Each model is timed three ways:
1. onnx.checker.check_model(path, full_check=True) in this process, after `import onnx`:
   best of 3. The most favourable measure for onnx.
2. The same check as a command (`python3 -c "import onnx; ...check_model(...)"`), which is
   what a CI step that uses onnx pays: best of 3.
3. `target/release/rtenx check PATH` as a command (process start included): best of 10.
Prints a table and both ratios (in-process checker / rtenx, command / command).
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


def count_nodes(graph) -> int:
    """Nodes of `graph` and of every subgraph in its attributes."""
    total, stack = 0, [graph]
    while stack:
        g = stack.pop()
        total += len(g.node)
        for node in g.node:
            for attr in node.attribute:
                stack.extend([attr.g] if attr.HasField("g") else [])
                stack.extend(attr.graphs)
    return total


def describe(path: Path) -> str:
    model = onnx.load(str(path), load_external_data=False)
    locations = {e.value for t in model.graph.initializer for e in t.external_data if e.key == "location"}
    data = sum((path.parent / loc).stat().st_size for loc in locations if (path.parent / loc).is_file())
    return (f"{path.name}: {count_nodes(model.graph):,} nodes, {len(model.graph.initializer):,} "
            f"initializers, {path.stat().st_size:,} B" + (f" + {data:,} B of external data" if data else ""))


def run(cmd: list[str]) -> None:
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def measure(path: Path, rtenx: Path) -> None:
    print(describe(path))
    rows = []
    checker = best_of(3, lambda: onnx.checker.check_model(str(path), full_check=True))
    rows.append(("onnx.checker.check_model(path, full_check=True)", 3, checker, "pass"))
    script = f"import onnx; onnx.checker.check_model({str(path)!r}, full_check=True)"
    command = best_of(3, lambda: run([sys.executable, "-c", script]))
    rows.append(("python3 -c 'import onnx; ...check_model(...)'", 3, command, "pass"))
    ours = None
    if not rtenx.is_file():
        print(f"rtenx: {rtenx} not found, skipped (cargo build --release)")
    else:
        cmd = [str(rtenx), "check", "--color", "never", str(path)]
        first = subprocess.run(cmd, capture_output=True, text=True, check=False)
        ours = best_of(10, lambda: run(cmd))
        status = {0: "no errors", 1: "errors found"}.get(first.returncode, f"exit {first.returncode}")
        rows.append((f"rtenx check {path.name}", 10, ours, status))
        if first.returncode != 0:
            print("rtenx output (first lines; the timing is only meaningful for a clean run):")
            for line in (first.stdout + first.stderr).strip().splitlines()[:6]:
                print(f"  {line}")
    print(f"| {'what':<50} | runs | {'best':>12} | result")
    print(f"|{'-' * 52}|------|{'-' * 14}|-------")
    for what, runs, s, status in rows:
        print(f"| {what:<50} | {runs:>4} | {fmt(s):>12} | {status}")
    if ours:
        print(f"ratio, in-process checker / rtenx command: {checker / ours:.1f}x")
        print(f"ratio, checker command / rtenx command:    {command / ours:.1f}x")
    print()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=20_000, help="nodes of the synthetic chain")
    ap.add_argument("--model", type=Path, action="append", default=[],
                    help="time this model instead of the chain (repeatable)")
    ap.add_argument("--rtenx", type=Path, default=Path(os.environ.get("RTENX", REPO / "target/release/rtenx")))
    args = ap.parse_args()

    print(f"python {platform.python_version()}, onnx {onnx.__version__}, numpy {np.__version__}\n")
    for path in args.model:
        measure(path.resolve(), args.rtenx)
    if args.model:
        return 0
    with tempfile.TemporaryDirectory(prefix="rtenx-onnx-bench-") as tmp:
        path = Path(tmp) / "model.onnx"
        onnx.save_model(build_model(args.nodes), str(path), save_as_external_data=True,
                        all_tensors_to_one_file=True, location="weights.data", size_threshold=1024)
        measure(path, args.rtenx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
