#!/usr/bin/env bash
# Reproduces the figures in BENCHMARKS.md: builds release binaries, writes the synthetic
# models (sparse files) under target/bench-data, and measures the CLI with /usr/bin/time -v
# (peak RSS) and hyperfine (wall time; skipped if not installed). Then run
# `cargo bench --bench check` for the in-process comparison with rten's load_mmap.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release --bin rtenx --example synth_rten
data=target/bench-data
mkdir -p "$data"
[ -f "$data/big4g.rten" ] || target/release/examples/synth_rten "$data/big4g.rten" 4000 1073741
[ -f "$data/nodes1m.rten" ] || target/release/examples/synth_rten "$data/nodes1m.rten" 500000 0
[ -f "$data/paddle/big.pdiparams" ] || python3 benches/paddle_params.py "$data/paddle"
ls -ls "$data"

measure() {
  echo "== $*"
  /usr/bin/time -v "$@" 2>&1 >/dev/null | grep -E 'Elapsed|Maximum resident' || true
}
measure target/release/rtenx check "$data/big4g.rten"
measure target/release/rtenx dump --json "$data/big4g.rten"
measure target/release/rtenx check "$data/nodes1m.rten"
measure target/release/rtenx dump --json "$data/nodes1m.rten"
measure target/release/rtenx check "$data/paddle/big.pdiparams"
measure target/release/rtenx check "$data/paddle/big.pdmodel"

if command -v hyperfine >/dev/null; then
  hyperfine --warmup 3 -N \
    "target/release/rtenx check $data/big4g.rten" \
    "target/release/rtenx dump --json $data/big4g.rten"
  hyperfine --warmup 1 --runs 5 \
    "target/release/rtenx check $data/nodes1m.rten" \
    "target/release/rtenx dump --json $data/nodes1m.rten > /dev/null"
  hyperfine --warmup 2 -N \
    "target/release/rtenx check $data/paddle/big.pdiparams" \
    "target/release/rtenx check $data/paddle/big.pdmodel"
fi

# check --hash sha256 on the 4 GiB model (issue 28): one SHA-256 stream, one core.
measure target/release/rtenx check --isolated --hash sha256 --format json "$data/big4g.rten"
if command -v hyperfine >/dev/null; then
  hyperfine --warmup 1 --runs 5 -N \
    "target/release/rtenx check --isolated $data/big4g.rten" \
    "target/release/rtenx check --isolated --hash sha256 --format json $data/big4g.rten"
fi

# Configuration discovery (issue 28): 10,000 files in 1,000 folders, an rtenx.toml in every
# tenth folder; --show-settings looks for settings without checking anything, so the
# difference from --isolated is discovery's cost. Since issue 37 the folders' own settings
# are inside the checked tree and never applied: the run measures finding them (RX021).
tree="$data/config-tree"
if [ ! -d "$tree" ]; then
  for d in $(seq 0 999); do
    mkdir -p "$tree/d$((d / 100))/e$d"
    [ $((d % 10)) -eq 0 ] && printf 'warn = ["RX005"]\n[[overrides]]\npaths = ["*.rten"]\nallow = ["RX014"]\n' > "$tree/d$((d / 100))/e$d/rtenx.toml"
    for f in $(seq 0 9); do cp tests/fixtures/rten/mlp.rten "$tree/d$((d / 100))/e$d/m$f.rten"; done
  done
fi
if command -v hyperfine >/dev/null; then
  hyperfine --warmup 1 --runs 5 -N \
    "target/release/rtenx check --isolated --show-settings $tree" \
    "target/release/rtenx check --show-settings $tree"
fi
