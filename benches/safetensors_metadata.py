#!/usr/bin/env python3
"""What a user would run instead of `rtenx check` on a safetensors checkpoint: open every file
with `safetensors.safe_open` and read its keys, metadata and each tensor's dtype and shape,
without reading tensor data. Takes a `.safetensors` file or a sharded checkpoint's
`*.safetensors.index.json`.

    python benches/safetensors_metadata.py PATH
"""

import json
import sys
from pathlib import Path

from safetensors import safe_open


def main(path: Path) -> None:
    if path.name.endswith(".index.json"):
        index = json.loads(path.read_text())
        shards = sorted(set(index["weight_map"].values()))
        files = [path.parent / shard for shard in shards]
    else:
        files = [path]
    tensors = 0
    for file in files:
        with safe_open(str(file), framework="np") as f:
            f.metadata()
            for key in f.keys():
                f.get_slice(key).get_shape()
                tensors += 1
    print(f"{len(files)} files, {tensors} tensors")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
