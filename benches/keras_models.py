"""Writes the Keras archive of BENCHMARKS.md ("Results: Keras") into a folder:
- wide10k.keras: `model.save` of a functional model of 10,000 `Dense(4)` layers, 100 chains of
  100 after one input, joined by a `Concatenate` (Keras 3, torch backend; Keras builds and
  loads a functional graph recursively, so one chain of 10,000 exceeds Python's recursion
  limit): a config.json of 10,002 serialized layers, each with its initializers and
  `__keras_tensor__` inbound node, and a model.weights.h5 of 20,000 small datasets.

    /work/venv-keras/bin/python benches/keras_models.py target/bench-data/keras [LAYERS]
"""

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "torch")
import keras  # noqa: E402

out = Path(sys.argv[1])
layers = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
out.mkdir(parents=True, exist_ok=True)
keras.utils.set_random_seed(0)
start = time.perf_counter()
inputs = keras.Input(shape=(4,), name="x")
ends = []
for chain in range(100):
    x = inputs
    for i in range(layers // 100):
        x = keras.layers.Dense(4, name=f"dense_{chain}_{i}")(x)
    ends.append(x)
outputs = keras.layers.Concatenate(name="join")(ends)
model = keras.Model(inputs, outputs, name=f"wide{layers}")
path = out / f"wide{layers // 1000}k.keras"
model.save(path)
print(f"{path}: {path.stat().st_size} bytes in {time.perf_counter() - start:.1f} s")
