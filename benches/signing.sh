#!/usr/bin/env bash
# Verifying an OpenSSF model signature: `rtenx check --public-key` beside `model_signing verify
# key` (model_signing 1.1.1; name its folder of executables with SIGNING_BIN, default the
# PATH) and `openssl dgst -sha256` of the same bytes. Two models, written once under
# target/bench-data/signing and signed with a fresh P-256 key by `model_signing sign key`:
# one.safetensors alone, 3 GiB (sparse: holes hash as fast as data once cached), and 16
# shards of 256 MiB, hashed side by side. Needs hyperfine, openssl and GNU time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${SIGNING_BIN:+$SIGNING_BIN/}
data=target/bench-data/signing
cargo build --release --bin rtenx
mkdir -p "$data"
# A safetensors file of one u8 tensor of $2 bytes at $1, its data a hole.
sparse() {
  local header="{\"w\":{\"dtype\":\"U8\",\"shape\":[$2],\"data_offsets\":[0,$2]}}"
  while (( ${#header} % 8 )); do header+=" "; done
  python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<Q", int(sys.argv[1])))' "${#header}" > "$1"
  printf '%s' "$header" >> "$1"
  truncate -s "+$2" "$1"
}
if [ ! -e "$data/key.pem" ]; then
  openssl ecparam -name prime256v1 -genkey -noout -out "$data/key.pem"
  openssl ec -in "$data/key.pem" -pubout -out "$data/pub.pem" 2>/dev/null
  mkdir -p "$data/one" "$data/shards"
  sparse "$data/one/one.safetensors" $((3 << 30))
  for i in $(seq -w 1 16); do sparse "$data/shards/model-000$i-of-00016.safetensors" $((256 << 20)); done
  for model in one shards; do
    "${bin}model_signing" sign key --private_key "$data/key.pem" --signature "$data/$model/model.sig" "$data/$model"
  done
fi
cat "$data"/one/one.safetensors "$data"/shards/* > /dev/null
for model in one shards; do
  echo "== $model"
  target/release/rtenx check --public-key "$data/pub.pem" "$data/$model" | tail -1 || true
  "${bin}model_signing" verify key --public_key "$data/pub.pem" --signature "$data/$model/model.sig" "$data/$model"
  /usr/bin/time -f "rtenx: %e s, %M KiB peak RSS" target/release/rtenx check --public-key "$data/pub.pem" "$data/$model" > /dev/null || true
  /usr/bin/time -f "model_signing: %e s, %M KiB peak RSS" "${bin}model_signing" verify key --public_key "$data/pub.pem" --signature "$data/$model/model.sig" "$data/$model" > /dev/null
done
hyperfine --warmup 1 --runs 5 -N -i \
  "target/release/rtenx check --public-key $data/pub.pem $data/one" \
  "${bin}model_signing verify key --public_key $data/pub.pem --signature $data/one/model.sig $data/one" \
  "openssl dgst -sha256 $data/one/one.safetensors"
hyperfine --warmup 1 --runs 5 -N -i \
  "target/release/rtenx check --public-key $data/pub.pem $data/shards" \
  "${bin}model_signing verify key --public_key $data/pub.pem --signature $data/shards/model.sig $data/shards" \
  "openssl dgst -sha256 $(echo $data/shards/*.safetensors)"
