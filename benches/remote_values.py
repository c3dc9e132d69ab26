"""What a user would run instead of `rtenx check --values hf://...`: download the file with
huggingface_hub, then load every tensor with safetensors' numpy loader and count the NaN and
infinities with numpy.isfinite. Usage: remote_values.py REPO FILE (HF_ENDPOINT set)."""
import sys

import numpy as np
from huggingface_hub import hf_hub_download
from safetensors import safe_open

path = hf_hub_download(sys.argv[1], sys.argv[2])
bad = 0
with safe_open(path, "np") as f:
    for name in f.keys():
        t = f.get_tensor(name)
        if t.dtype.kind == "f":
            bad += int(t.size - np.count_nonzero(np.isfinite(t)))
print(bad, "NaN or infinite")
