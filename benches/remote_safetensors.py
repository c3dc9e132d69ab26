"""The peer of `rtenx check` on a remote sharded safetensors checkpoint: huggingface_hub's
get_safetensors_metadata, which reads the index and each shard's header by byte ranges.
Usage: HF_ENDPOINT=... python benches/remote_safetensors.py ORG/REPO"""
import sys

from huggingface_hub import get_safetensors_metadata

meta = get_safetensors_metadata(sys.argv[1])
tensors = sum(len(f.tensors) for f in meta.files_metadata.values())
print(f"{len(meta.files_metadata)} files, {tensors} tensors")
