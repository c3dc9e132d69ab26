#!/usr/bin/env bash
# rtenx check beside the tools a user would run instead, on the synthetic 40 GB GGUF (one file
# and 20 parts), the 150,000-token vocabulary and the 40 GB sharded safetensors checkpoint
# that `cargo bench --bench check -- gguf safetensors` writes under target/bench-data (sparse).
# The peers come from a Python environment with tests/fixtures/gen/requirements-sg.txt
# installed; name its python with PEER_PYTHON (default: python3). Needs hyperfine and GNU time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python=${PEER_PYTHON:-python3}
gguf_dump=$(dirname "$(command -v "$python")")/gguf-dump
data=target/bench-data
cargo build --release --bin rtenx
for f in llama40g.gguf llama40g-split/model-00001-of-00020.gguf vocab150k.gguf st40g/model.safetensors.index.json; do
  [ -e "$data/$f" ] || { echo "missing $data/$f: run cargo bench --bench check -- gguf safetensors first" >&2; exit 1; }
done
rss() { /usr/bin/time -f '%M KiB peak RSS' "$@" >/dev/null; }
for f in llama40g.gguf llama40g-split/model-00001-of-00020.gguf vocab150k.gguf st40g/model.safetensors.index.json; do
  echo "== $f"; rss target/release/rtenx check "$data/$f"
done
echo "== gguf-dump --no-tensors vocab150k.gguf"; rss "$gguf_dump" --no-tensors "$data/vocab150k.gguf"
echo "== safe_open st40g"; rss "$python" benches/safetensors_metadata.py "$data/st40g/model.safetensors.index.json"
hyperfine --warmup 3 -N \
  "target/release/rtenx check $data/llama40g.gguf" \
  "$gguf_dump $data/llama40g.gguf"
hyperfine --warmup 3 -N \
  "target/release/rtenx check $data/vocab150k.gguf" \
  "$gguf_dump --no-tensors $data/vocab150k.gguf"
hyperfine --warmup 3 -N \
  "target/release/rtenx check $data/llama40g-split/model-00001-of-00020.gguf"
hyperfine --warmup 3 -N \
  "target/release/rtenx check $data/st40g/model.safetensors.index.json" \
  "$python benches/safetensors_metadata.py $data/st40g/model.safetensors.index.json"
