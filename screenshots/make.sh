#!/usr/bin/env bash
# Regenerates screenshots/*.svg from the real `rtenx inspect` running in tmux on shipped
# fixtures: one image per view. Needs tmux and python3.
#   screenshots/make.sh                      (builds the release binary)
#   RTENX_BIN=target/debug/rtenx screenshots/make.sh   (shoots with a binary already built)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${RTENX_BIN:-target/release/rtenx}
[ -n "${RTENX_BIN:-}" ] || cargo build --release --bin rtenx
session=rtenx-shots
shoot() { # NAME FIXTURE KEYS...
  local name=$1 fixture=$2; shift 2
  tmux kill-session -t "$session" 2>/dev/null || true
  tmux new-session -d -s "$session" -x 110 -y 32 "TERM=xterm-256color $bin inspect $fixture; sleep 30"
  sleep 0.8
  for keys in "$@"; do tmux send-keys -t "$session" "$keys"; sleep 0.3; done
  tmux capture-pane -e -p -t "$session" > "screenshots/$name.ans"
  python3 screenshots/ansi2svg.py "screenshots/$name.ans" "screenshots/$name.svg" "rtenx inspect $fixture"
  rm "screenshots/$name.ans"
  tmux kill-session -t "$session"
}
rten=tests/fixtures/rten/subgraphs.rten
shoot overview "$rten"
shoot layout tests/fixtures/onnx/external_one_file/model.onnx 2 j j j
shoot graph tests/fixtures/rten/convnet.rten 3 j
shoot scopes tests/fixtures/onnx/torch_gpt2/model.onnx 3 j Right j j j Right j
shoot scopes-encoder tests/fixtures/onnx/torch_encoder/model.onnx 3 j Right
shoot neighbourhood tests/fixtures/onnx/torch_gpt2/model.onnx 3 / "op:Add h.0/Add" Enter v
shoot neighbourhood-subgraphs "$rten" 3 / op:If Enter v l
shoot neighbourhood-scope tests/fixtures/onnx/torch_encoder/model.onnx 3 j v
shoot operators tests/fixtures/rten/convnet.rten 4
shoot tensors tests/fixtures/rten/convnet.rten 5 s
shoot tensors-histogram tests/fixtures/rten/convnet.rten 5 s Enter
shoot findings tests/fixtures/rten/bad/RT006-tensor-data-inside-model.rten 6
shoot help "$rten" 3 '?'
et=tests/fixtures/executorch/xnnpack_external/model.pte
shoot executorch-overview "$et"
shoot executorch-sizes "$et" 7
shoot executorch-graph tests/fixtures/executorch/xnnpack.pte 3 j j j
shoot executorch-scopes tests/fixtures/executorch/stacktrace/encoder.pte 3 j Right
shoot paddle-scopes tests/fixtures/paddle/scopes_static/model.pdmodel 3 j Right
shoot paddle tests/fixtures/paddle/dtypes_pir/model.json 5 s
shoot sizes tests/fixtures/onnx/torch_gpt2/model.onnx 7
shoot gguf-sizes tests/fixtures/gguf/llama.gguf 7
shoot gguf-metadata tests/fixtures/gguf/llama.gguf 8 / tokens Enter Enter
shoot safetensors-sharded tests/fixtures/safetensors/hf_repo/model.safetensors.index.json 7
shoot gguf-will-it-load tests/fixtures/gguf/arch/bad/missing-ffn-down.gguf
shoot hf-unexpected tests/fixtures/hf/bad/HF004-unexpected-extra/model.safetensors 5
shoot hf-folder tests/fixtures/safetensors/hf_repo
shoot signature "tests/fixtures/signing/cases/cert-good/model --certificate-chain tests/fixtures/signing/material/cert-good-root.pem"
shoot folder-chooser tests/fixtures/hf j j
shoot safetensors-scopes tests/fixtures/safetensors/hf_repo 3 Right j Right j Right
shoot gguf-chat-template tests/fixtures/gguf/tiny.gguf 8 / chat_template Enter Enter
shoot findings-why tests/fixtures/pickle/bad/PK001-global-os-system.pkl 6 J J
shoot diff-graph "tests/fixtures/diff/mlp_a.onnx --diff tests/fixtures/diff/mlp_b.onnx" 3 j j Right
shoot diff-overview "tests/fixtures/diff/mlp_a.onnx --diff tests/fixtures/diff/mlp_b.onnx"
shoot tflite-graph tests/fixtures/tflite/int8.tflite 3 t j j
shoot keras-scopes tests/fixtures/keras/plain.keras 3 Right j Right
echo "wrote screenshots/*.svg"
