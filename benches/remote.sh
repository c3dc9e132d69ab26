#!/usr/bin/env bash
# rtenx check of remote files, read by byte ranges over loopback from the server the tests play
# the Hub with (examples/hub.rs), beside the tools that read the same metadata remotely:
# huggingface_hub.get_safetensors_metadata (name its Python with PEER_PYTHON; default python3)
# and @huggingface/gguf (installed from npm into target/peer-node on first use). The files are
# sparse checkpoints `hub --synth` writes under target/bench-data/remote: a LlamaForCausalLM of
# 142 GB in 30 shards, and a 40 GB llama GGUF. Needs hyperfine, node and npm.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python=${PEER_PYTHON:-python3}
data=target/bench-data/remote
cargo build --release --bin rtenx --example hub
mkdir -p "$data" target/peer-node
[ -e target/peer-node/node_modules/@huggingface/gguf ] ||
  npm install --prefix target/peer-node --no-audit --no-fund @huggingface/gguf@0.4.6
cp benches/remote_gguf.mjs target/peer-node/
# One server for the whole folder, one with the checkpoint at the repository's root, as
# get_safetensors_metadata looks for it there.
target/release/examples/hub --synth "$data" > target/hub.endpoint & hub=$!
target/release/examples/hub "$data/st140g" > target/hub-st.endpoint & hub_st=$!
trap 'kill $hub $hub_st' EXIT
until [ -s target/hub.endpoint ] && [ -s target/hub-st.endpoint ]; do sleep 0.2; done
endpoint=$(cat target/hub.endpoint)
endpoint_st=$(cat target/hub-st.endpoint)
shards=$(for i in $(seq -w 1 30); do printf 'hf://org/repo/st140g/model-000%s-of-00030.safetensors ' "$i"; done)
gguf_url="$endpoint/org/repo/resolve/main/llama40g.gguf"
export HF_HUB_DISABLE_TELEMETRY=1 HF_HUB_DISABLE_PROGRESS_BARS=1 HF_HUB_CACHE=target/peer-hf-cache
echo "== bytes and requests of one run"
# shellcheck disable=SC2086
HF_ENDPOINT=$endpoint target/release/rtenx check --format json $shards hf://org/repo/llama40g.gguf |
  "$python" -c 'import json,sys; f=[x["remote"] for x in json.load(sys.stdin)["files"]]; print(len(f), "files:", sum(x["size"] for x in f), "bytes,", sum(x["fetched"] for x in f), "fetched, at most", max(x["fetched"] for x in f), "a file, in", sum(x["requests"] for x in f), "requests")'
curl -s "$endpoint/_served" >/dev/null
hyperfine --warmup 2 -N \
  "env HF_ENDPOINT=$endpoint target/release/rtenx check $shards" \
  "env HF_ENDPOINT=$endpoint_st $python benches/remote_safetensors.py org/repo"
hyperfine --warmup 2 -N \
  "env HF_ENDPOINT=$endpoint target/release/rtenx check hf://org/repo/llama40g.gguf" \
  "node target/peer-node/remote_gguf.mjs $gguf_url"
echo "== bytes served over every run, by file"
curl -s "$endpoint/_served"; echo
curl -s "$endpoint_st/_served"; echo
