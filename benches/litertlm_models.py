"""Writes the LiteRT-LM bundle of BENCHMARKS.md ("Results: LiteRT-LM") with Google's writer,
litert-lm-builder 0.18.1: `chain10k.litertlm` holds `chain10k.tflite` (benches/tflite_models.py,
10,000 operators) as its prefill/decode model and 1 GiB of TFLite weights (zeros) after it.

    PYTHONPATH=DIR-WITH-litert_lm_builder /work/venv-tf/bin/python benches/litertlm_models.py \
        target/bench-data/tflite
"""

import sys
from pathlib import Path

from litert_lm_builder import litertlm_builder as lm


def main(folder):
    folder = Path(folder)
    weights = folder / "weights1g.bin"
    with open(weights, "wb") as f:
        f.truncate(1 << 30)
    builder = lm.LitertLmFileBuilder()
    builder.add_tflite_model(str(folder / "chain10k.tflite"), lm.TfLiteModelType.PREFILL_DECODE)
    builder.add_tflite_weights(str(weights), lm.TfLiteModelType.PREFILL_DECODE)
    with open(folder / "chain10k.litertlm", "wb") as f:
        builder.build(f)
    weights.unlink()
    print("wrote", folder / "chain10k.litertlm")


if __name__ == "__main__":
    main(sys.argv[1])
