#!/usr/bin/env python3
"""Time two rtenx binaries and the onnx checker command on the same models, interleaved.

    python3 benches/interleaved.py --before OLD/rtenx --after target/release/rtenx \
        [--python PYTHON_WITH_ONNX] MODEL.onnx ...

The shared VM's speed drifts by tens of percent within minutes, so timing one command after
another compares phases of the machine as much as the commands. Here the two binaries run in
turn, round after round (60 rounds), and the onnx checker command
(`import onnx; onnx.checker.check_model(MODEL, full_check=True)`) every sixth round: a drift
hits all three alike. Each figure is a median of wall times as this script measures them,
process start included (about 1 ms more than hyperfine reports). Without --python, the onnx
column is left out.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

ROUNDS = 60
ONNX_EVERY = 6


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the rtenx binary from before")
    parser.add_argument("--after", required=True, help="the rtenx binary from after")
    parser.add_argument("--python", help="a Python with onnx installed, for the checker")
    parser.add_argument("models", nargs="+")
    args = parser.parse_args()
    for model in args.models:
        checker = None
        if args.python:
            code = f"import onnx; onnx.checker.check_model({model!r}, full_check=True)"
            checker = [args.python, "-c", code]
        before, after, onnx = [], [], []
        for _ in range(3):
            timed([args.before, "check", model])
            timed([args.after, "check", model])
        for i in range(ROUNDS):
            before.append(timed([args.before, "check", model]))
            after.append(timed([args.after, "check", model]))
            if checker and i % ONNX_EVERY == 0:
                onnx.append(timed(checker))
        b, a = statistics.median(before) * 1e3, statistics.median(after) * 1e3
        line = f"{model}: before {b:.1f} ms, after {a:.1f} ms"
        if onnx:
            c = statistics.median(onnx) * 1e3
            line += f", onnx checker command {c:.1f} ms: {c / b:.1f}x before, {c / a:.1f}x after"
        print(line, flush=True)


if __name__ == "__main__":
    main()
