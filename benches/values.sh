#!/usr/bin/env bash
# The figures of BENCHMARKS.md, "Issue 41: values": `check --values` on a 4 GiB bf16
# safetensors file and a 4 GiB Q4_K GGUF, warm in the page cache, on one core (taskset) and
# on all, beside numpy over a memory map (benches/values_numpy.py) and llama.cpp's own
# validation pass (ggml_validate, from tests/fixtures/gen/ggml_validate.sh); the machine's
# memory bandwidth (benches/membw.c); and the metadata-only check against a binary from
# before (BEFORE=path/to/rtenx), which must not have slowed down.
#
#   benches/values.sh [DATA_DIR]      (default /tmp/rtenx-values; 8.6 GB of files)
#
# PYTHON (default python3) needs numpy and gguf; VALIDATE (default
# /work/oracles/ggml_validate) is llama.cpp's validation harness.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
DATA=${1:-/tmp/rtenx-values}
PY=${PYTHON:-python3}
VALIDATE=${VALIDATE:-/work/oracles/ggml_validate}
cargo build --release --bin rtenx
R=target/release/rtenx
"$PY" benches/values_files.py "$DATA"
cc -O3 -march=native -pthread benches/membw.c -o "$DATA/membw"
"$DATA/membw" 1
"$DATA/membw" "$(nproc)"
# Drops a file's pages from the page cache (its own only), then reads it with read(): the page
# cache then holds it as a download or a copy leaves it.
warm() {
  "$PY" -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$1"
  cat "$1" > /dev/null
}
BF16="$DATA/big_bf16.safetensors"
Q4K="$DATA/big_q4_k.gguf"
warm "$BF16"
hyperfine --warmup 2 --runs 10 -N \
  "$R check --isolated --values $BF16" \
  "taskset -c 0 $R check --isolated --values $BF16" \
  "$PY benches/values_numpy.py $BF16 --bits"
hyperfine --warmup 1 --runs 3 "$PY benches/values_numpy.py $BF16"
warm "$Q4K"
# -i: the file names an architecture llama.cpp does not know (GG032), an error.
hyperfine --warmup 2 --runs 10 -N -i \
  "$R check --isolated --values $Q4K" \
  "taskset -c 0 $R check --isolated --values $Q4K" \
  "$PY benches/values_numpy.py $Q4K" \
  "$VALIDATE $Q4K"
/usr/bin/time -f "dump --values: %e s, peak RSS %M KB" "$R" dump --values "$BF16" > /dev/null
# Cached by an earlier read through a memory map (pages in small folios): cold once, then warm.
"$PY" -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$BF16"
/usr/bin/time -f "cold, 2 cores: %e s" "$R" check --isolated --values "$BF16"
hyperfine --warmup 1 --runs 10 -N \
  "$R check --isolated --values $BF16" \
  "taskset -c 0 $R check --isolated --values $BF16"
/usr/bin/time -f "peak RSS %M KB" "$R" check --isolated --values "$BF16"
# Metadata only: no tensor byte is read without --values.
if [ -n "${BEFORE:-}" ]; then
  [ -f target/bench-data/big4g.rten ] || benches/run.sh >/dev/null
  hyperfine --warmup 3 -N \
    "$BEFORE check --isolated target/bench-data/big4g.rten" \
    "$R check --isolated target/bench-data/big4g.rten" \
    "$BEFORE check --isolated $BF16" \
    "$R check --isolated $BF16"
fi
