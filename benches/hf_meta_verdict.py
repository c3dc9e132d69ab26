#!/usr/bin/env python3
"""What a user would run instead of `rtenx check` to learn whether a Hugging Face folder
matches its config.json without loading the weights: build the model of `config.json` on the
meta device (no memory for weights), read every shard's header with `safe_open`, and compare
the keys and shapes as `from_pretrained` does (missing keys initialised at random, unexpected
ones dropped, a shape mismatch raises). Prints the three lists' lengths.

    python benches/hf_meta_verdict.py FOLDER
"""

import json
import sys
from pathlib import Path

import torch
import transformers
from safetensors import safe_open


def main(folder: Path) -> None:
    config = transformers.AutoConfig.from_pretrained(folder)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(config)
    expected = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    index = folder / "model.safetensors.index.json"
    if index.exists():
        files = sorted(set(json.loads(index.read_text())["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    held = {}
    for name in files:
        with safe_open(str(folder / name), framework="pt") as f:
            for key in f.keys():
                held[key] = tuple(f.get_slice(key).get_shape())
    missing = [k for k in expected if k not in held]
    unexpected = [k for k in held if k not in expected]
    mismatched = [k for k in expected if k in held and held[k] != expected[k]]
    print(f"missing {len(missing)}, unexpected {len(unexpected)}, mismatched {len(mismatched)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
