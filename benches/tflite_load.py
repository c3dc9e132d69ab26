"""The LiteRT interpreter's load of a .tflite model, as a user would load it:
`Interpreter(model_path).allocate_tensors()` (ai-edge-litert). Prints the load time measured
in the process (the import of ai_edge_litert excluded) on stderr.

    /work/venv-tf/bin/python benches/tflite_load.py MODEL
"""

import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
from ai_edge_litert.interpreter import Interpreter

start = time.perf_counter()
interpreter = Interpreter(model_path=sys.argv[1])
interpreter.allocate_tensors()
print(f"load {1000 * (time.perf_counter() - start):.1f} ms", file=sys.stderr)
