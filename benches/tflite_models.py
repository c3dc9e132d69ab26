"""Writes the TFLite models of BENCHMARKS.md ("Results: TFLite") into a folder:
- chain10k.tflite: 10,000 ADD operators in a chain, each adding a 16-float constant of its own
  (20,001 tensors, 10,001 buffers), built with TensorFlow's schema object API;
- offset4g.tflite: one FULLY_CONNECTED whose 32768 x 32768 float weight (4 GiB) is in the
  offset/size form after the FlatBuffer, as models over 2 GB are; the file is sparse.

    /work/venv-tf/bin/python benches/tflite_models.py target/bench-data/tflite
"""

import os
import sys

import flatbuffers
import numpy as np
from tensorflow.lite.python import schema_py_generated as s


def tensor(name, shape, buffer=0):
    t = s.TensorT()
    t.name = name
    t.shape = np.array(shape, np.int32)
    t.type = s.TensorType.FLOAT32
    t.buffer = buffer
    return t


def buffer(data=None):
    b = s.BufferT()
    if data is not None:
        b.data = np.frombuffer(data, np.uint8)
    return b


def code(builtin):
    c = s.OperatorCodeT()
    c.builtinCode = builtin
    c.deprecatedBuiltinCode = min(builtin, 127)
    c.version = 1
    return c


def op(inputs, outputs):
    o = s.OperatorT()
    o.opcodeIndex = 0
    o.inputs = np.array(inputs, np.int32)
    o.outputs = np.array(outputs, np.int32)
    return o


def finish(m):
    b = flatbuffers.Builder(1 << 20)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def model(codes, tensors, ops, buffers, inputs, outputs):
    m = s.ModelT()
    m.version = 3
    m.operatorCodes = codes
    g = s.SubGraphT()
    g.tensors, g.operators = tensors, ops
    g.inputs, g.outputs = np.array(inputs, np.int32), np.array(outputs, np.int32)
    g.name = "main"
    m.subgraphs = [g]
    m.buffers = buffers
    return m


def chain(n):
    tensors = [tensor("x", [1, 16])]
    buffers = [buffer()]
    ops = []
    rng = np.random.default_rng(0)
    last = 0
    for i in range(n):
        buffers.append(buffer(rng.standard_normal(16).astype(np.float32).tobytes()))
        tensors.append(tensor(f"block{i}/bias", [16], len(buffers) - 1))
        tensors.append(tensor(f"block{i}/add", [1, 16]))
        ops.append(op([last, len(tensors) - 2], [len(tensors) - 1]))
        last = len(tensors) - 1
    return finish(model([code(s.BuiltinOperator.ADD)], tensors, ops, buffers, [0], [last]))


def offset4g(path):
    n = 32768
    tensors = [tensor("x", [1, n]), tensor("w", [n, n], 1), tensor("y", [1, n])]
    w = s.BufferT()
    w.offset, w.size = 1, n * n * 4  # placed below, once the FlatBuffer's size is known
    m = model([code(s.BuiltinOperator.FULLY_CONNECTED)], tensors,
              [op([0, 1, -1], [2])], [buffer(), w], [0], [2])
    first = finish(m)
    w.offset = (len(first) + 64 + 15) // 16 * 16
    data = finish(m)
    assert len(data) < w.offset
    with open(path, "wb") as f:
        f.write(data)
        f.truncate(w.offset + w.size)


def main(out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "chain10k.tflite"), "wb") as f:
        f.write(chain(10_000))
    offset4g(os.path.join(out, "offset4g.tflite"))
    for name in sorted(os.listdir(out)):
        print(name, os.path.getsize(os.path.join(out, name)))


if __name__ == "__main__":
    main(sys.argv[1])
