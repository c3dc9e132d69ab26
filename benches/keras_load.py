"""Keras' own load of a `.keras` archive, as a user would load it:
`keras.saving.load_model(path, safe_mode=True)` (Keras 3, torch backend). Prints the load time
measured in the process (the import of keras excluded) on stderr.

    /work/venv-keras/bin/python benches/keras_load.py MODEL
"""

import os
import sys
import time

os.environ.setdefault("KERAS_BACKEND", "torch")
import keras  # noqa: E402

start = time.perf_counter()
keras.saving.load_model(sys.argv[1], safe_mode=True)
print(f"load {1000 * (time.perf_counter() - start):.1f} ms", file=sys.stderr)
