#!/usr/bin/env bash
# `rtenx check --values` of a remote safetensors file, its tensor bytes fetched by range over
# loopback from the server the tests play the Hub with (examples/hub.rs), beside the same
# check of a local copy and beside what a user would run instead: hf_hub_download, then
# numpy.isfinite over every tensor (benches/remote_values.py; name its Python with
# PEER_PYTHON, which needs huggingface_hub, safetensors and numpy). The file, 2 GiB of f32
# normal values with one NaN at the very end, is written once under
# target/bench-data/remote-values. Needs hyperfine and GNU time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python=${PEER_PYTHON:-python3}
data=target/bench-data/remote-values
cargo build --release --bin rtenx --example hub
mkdir -p "$data"
[ -e "$data/values.safetensors" ] || "$python" - "$data/values.safetensors" <<'PY'
import sys
import numpy as np
from safetensors.numpy import save_file
rng = np.random.default_rng(0)
tensors = {f"layers.{i}.weight": rng.standard_normal((8192, 8192), dtype=np.float32) for i in range(8)}
tensors["layers.7.weight"][-1, -1] = np.nan
save_file(tensors, sys.argv[1])
PY
rm -f target/hub-values.endpoint
target/release/examples/hub "$data" > target/hub-values.endpoint & hub=$!
trap 'kill $hub' EXIT
until [ -s target/hub-values.endpoint ]; do sleep 0.2; done
endpoint=$(cat target/hub-values.endpoint)
export HF_ENDPOINT=$endpoint HF_HUB_DISABLE_TELEMETRY=1 HF_HUB_DISABLE_PROGRESS_BARS=1
cache=target/peer-hf-cache-values
url=hf://org/repo/values.safetensors
echo "== the reports"
target/release/rtenx check --values "$url" | tail -3 || true
HF_HUB_CACHE=$cache "$python" benches/remote_values.py org/repo values.safetensors
echo "== peak RSS and what stays on disk"
/usr/bin/time -f "rtenx remote: %e s, %M KiB peak RSS" target/release/rtenx check --values "$url" > /dev/null || true
/usr/bin/time -f "rtenx local: %e s, %M KiB peak RSS" target/release/rtenx check --values "$data/values.safetensors" > /dev/null || true
rm -rf "$cache"
/usr/bin/time -f "peer: %e s, %M KiB peak RSS" env HF_HUB_CACHE=$cache "$python" benches/remote_values.py org/repo values.safetensors
du -sh "$cache"
echo "== wall time"
hyperfine --warmup 1 --runs 5 -N -i \
  "target/release/rtenx check --values $url" \
  "target/release/rtenx check --values $data/values.safetensors" \
  "env HF_HUB_CACHE=$cache-fresh $python benches/remote_values.py org/repo values.safetensors" \
  --prepare "rm -rf $cache-fresh"
