#!/usr/bin/env bash
# rtenx check of remote files and repositories, read by byte ranges over loopback from the
# server the tests play the Hub with (examples/hub.rs), beside the tools that read the same
# metadata remotely: huggingface_hub.get_safetensors_metadata (name its Python with
# PEER_PYTHON; default python3) and @huggingface/gguf (installed from npm into
# target/peer-node on first use). The files are sparse checkpoints `hub --synth` writes under
# target/bench-data/remote: a LlamaForCausalLM of 142 GB in 30 shards (st140g/), a 40 GB llama
# GGUF (llama40g.gguf), and the same llama split into 4 parts (gguf40g/). Each repository is
# served by a server of its own, as `org/repo`. Needs hyperfine, node, npm and curl.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python=${PEER_PYTHON:-python3}
data=target/bench-data/remote
cargo build --release --bin rtenx --example hub
mkdir -p "$data" target/peer-node
[ -e target/peer-node/node_modules/@huggingface/gguf ] ||
  npm install --prefix target/peer-node --no-audit --no-fund @huggingface/gguf@0.4.6
cp benches/remote_gguf.mjs target/peer-node/
# One server for the whole folder; one for each repository, the checkpoint at its root, as
# get_safetensors_metadata looks for it there.
rm -f target/hub*.endpoint
target/release/examples/hub --synth "$data" > target/hub.endpoint & hub=$!
until [ -s target/hub.endpoint ]; do sleep 0.2; done
target/release/examples/hub "$data/st140g" > target/hub-st.endpoint & hub_st=$!
target/release/examples/hub "$data/gguf40g" > target/hub-gg.endpoint & hub_gg=$!
trap 'kill $hub $hub_st $hub_gg' EXIT
until [ -s target/hub-st.endpoint ] && [ -s target/hub-gg.endpoint ]; do sleep 0.2; done
endpoint=$(cat target/hub.endpoint)
endpoint_st=$(cat target/hub-st.endpoint)
endpoint_gg=$(cat target/hub-gg.endpoint)
shards=$(for i in $(seq -w 1 30); do printf 'hf://org/repo/st140g/model-000%s-of-00030.safetensors ' "$i"; done)
gguf_url="$endpoint/org/repo/resolve/main/llama40g.gguf"
parts_url="$endpoint_gg/org/repo/resolve/main/llama40g-00001-of-00004.gguf"
export HF_HUB_DISABLE_TELEMETRY=1 HF_HUB_DISABLE_PROGRESS_BARS=1 HF_HUB_CACHE=target/peer-hf-cache
# The bytes served since the last call, by file: how many files, the total, the most a file.
served() {
  curl -s "$1/_served?reset" | "$python" -c 'import json,sys; s=json.load(sys.stdin); print(" ", len(s), "files:", sum(s.values()), "bytes served, at most", max(s.values(), default=0), "a file"); [print("   ", k, v) for k, v in sorted(s.items())]'
}
echo "== bytes of one run"
# shellcheck disable=SC2086
HF_ENDPOINT=$endpoint target/release/rtenx check --format json $shards hf://org/repo/llama40g.gguf |
  "$python" -c 'import json,sys; f=[x["remote"] for x in json.load(sys.stdin)["files"]]; print(len(f), "files:", sum(x["size"] for x in f), "bytes,", sum(x["fetched"] for x in f), "fetched, at most", max(x["fetched"] for x in f), "a file, in", sum(x["requests"] for x in f), "requests")'
for peer in "$endpoint_st" "$endpoint_gg"; do served "$peer" > /dev/null; done
echo "rtenx check hf://org/repo, the 30 shards:"
HF_ENDPOINT=$endpoint_st target/release/rtenx check hf://org/repo | tail -2
served "$endpoint_st"
echo "get_safetensors_metadata, the 30 shards:"
HF_ENDPOINT=$endpoint_st "$python" benches/remote_safetensors.py org/repo
served "$endpoint_st"
echo "rtenx check hf://org/repo, the 4 parts:"
HF_ENDPOINT=$endpoint_gg target/release/rtenx check hf://org/repo | tail -2
served "$endpoint_gg"
echo "ggufAllShards, the 4 parts:"
node target/peer-node/remote_gguf.mjs --all "$parts_url"
served "$endpoint_gg"
echo "== wall time"
hyperfine --warmup 2 -N \
  "env HF_ENDPOINT=$endpoint_st target/release/rtenx check hf://org/repo" \
  "env HF_ENDPOINT=$endpoint target/release/rtenx check $shards" \
  "env HF_ENDPOINT=$endpoint_st $python benches/remote_safetensors.py org/repo"
hyperfine --warmup 2 -N \
  "env HF_ENDPOINT=$endpoint_gg target/release/rtenx check hf://org/repo" \
  "node target/peer-node/remote_gguf.mjs --all $parts_url"
hyperfine --warmup 2 -N \
  "env HF_ENDPOINT=$endpoint target/release/rtenx check hf://org/repo/llama40g.gguf" \
  "node target/peer-node/remote_gguf.mjs $gguf_url"
