#!/usr/bin/env python3
"""A 10 GB PaddlePaddle parameter file of 100,000 records, and a program that names them.

    python3 benches/paddle_params.py OUTDIR [RECORDS] [ELEMENTS]

Writes OUTDIR/big.pdiparams: RECORDS (100,000) FP32 records of ELEMENTS (25,600) elements each,
102,426 bytes a record, 10.24 GB in all. Only the 26-byte record headers are written; the data
between them is a hole, so the file costs a few hundred KB of disk. Also writes OUTDIR/big.pdmodel,
a ProgramDesc whose block 0 declares the RECORDS persistable FP32 variables p000000.. (sorted as
the records are) and one concat op that reads them all, so that `rtenx check big.pdmodel` pairs the two. Python's
standard library only: the protobuf is encoded by hand, following schema/framework.proto.
"""
import os
import struct
import sys


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, payload):
    """A length-delimited field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def number(n, v):
    return varint(n << 3) + varint(v)


def tensor_desc(elements):
    return number(1, 5) + number(2, elements)  # FP32, dims [elements]


def var(name, elements, persistable):
    dense = field(1, tensor_desc(elements))
    var_type = number(1, 7) + field(3, dense)  # DENSE_TENSOR
    return field(1, name.encode()) + field(2, var_type) + number(3, int(persistable))


def op(op_type, inputs, outputs):
    slot = lambda param, args: field(1, param.encode()) + b"".join(field(2, a.encode()) for a in args)
    return field(1, slot("X", inputs)) + field(2, slot("Out", outputs)) + field(3, op_type.encode())


def main():
    out = sys.argv[1]
    records = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    elements = int(sys.argv[3]) if len(sys.argv) > 3 else 25_600
    os.makedirs(out, exist_ok=True)
    desc = tensor_desc(elements)
    header = struct.pack("<IQIi", 0, 0, 0, len(desc)) + desc
    size = len(header) + 4 * elements
    with open(os.path.join(out, "big.pdiparams"), "wb") as f:
        for i in range(records):
            f.seek(i * size)
            f.write(header)
        f.truncate(records * size)
    names = [f"p{i:06d}" for i in range(records)]
    block = number(1, 0) + number(2, -1)
    block += b"".join(field(3, var(n, elements, True)) for n in names)
    block += field(3, var("y", elements, False))
    block += field(4, op("concat", names, ["y"]))
    with open(os.path.join(out, "big.pdmodel"), "wb") as f:
        f.write(field(1, block))
    print(f"{out}/big.pdiparams: {records} records, {records * size} bytes; {out}/big.pdmodel")


if __name__ == "__main__":
    main()
