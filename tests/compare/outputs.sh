#!/usr/bin/env bash
# Before/after comparison of a refactoring that must not change behaviour: runs two rtenx
# binaries over every fixture under tests/fixtures (and any further models named) and diffs
# what they print.
#
#   tests/compare/outputs.sh BEFORE AFTER [PATH...]
#
# For every file under tests/fixtures and every extra PATH (a file, or a folder whose files
# are all taken), each binary runs `check --isolated --format json FILE` and
# `dump --json FILE`; for every folder under tests/fixtures, `check --isolated --format json
# FOLDER` (which pairs data files, split parts and shards as a folder scan does). Standard
# output, standard error and the exit status of each run are kept under
# ${COMPARE_OUT:-target/compare}/{before,after}, and the two trees are diffed. Prints the
# number of files and runs compared; exits 1 on any difference.
#
# Typical use: `cargo build --release && cp target/release/rtenx /tmp/rtenx-before` on the
# base commit, then the same on the change, and `tests/compare/outputs.sh /tmp/rtenx-before
# target/release/rtenx target/bench-data/onnx20k ...`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
[ $# -ge 2 ] || { sed -n '2,19p' "$0"; exit 2; }
before=$(realpath "$1") after=$(realpath "$2")
shift 2
out=${COMPARE_OUT:-target/compare}
rm -rf "$out"
mkdir -p "$out"

list=$out/files.txt
{
  find tests/fixtures -type f
  for extra in "$@"; do find "$extra" -type f; done
} | LC_ALL=C sort -u > "$list"
find tests/fixtures -type d | LC_ALL=C sort > "$out/folders.txt"

# run BINARY SIDE KIND PATH ARGS...: one run, its outputs kept under SIDE/KIND/PATH.
run() {
  local bin=$1 side=$2 kind=$3 path=$4
  shift 4
  local dest=$out/$side/$kind/$path
  mkdir -p "$dest"
  # No configuration file from the working directory, no colour, no terminal.
  NO_COLOR=1 timeout 300 "$bin" "$@" "$path" > "$dest/stdout" 2> "$dest/stderr" < /dev/null \
    && echo 0 > "$dest/status" || echo $? > "$dest/status"
}
export -f run
export out

for side in before after; do
  bin=$before
  [ "$side" = after ] && bin=$after
  tr '\n' '\0' < "$list" | xargs -0 -P 2 -I{} bash -c \
    'run "$0" "$1" check "$2" check --isolated --format json && run "$0" "$1" dump "$2" dump --json' \
    "$bin" "$side" {}
  tr '\n' '\0' < "$out/folders.txt" | xargs -0 -P 2 -I{} bash -c \
    'run "$0" "$1" check-folder "$2" check --isolated --format json' "$bin" "$side" {}
done

files=$(wc -l < "$list")
folders=$(wc -l < "$out/folders.txt")
echo "compared $files files (check and dump) and $folders folders (check): $((2 * files + folders)) runs per binary"
if diff -r "$out/before" "$out/after" > "$out/diff.txt"; then
  echo "identical"
else
  echo "DIFFERENT: $(grep -c '^diff ' "$out/diff.txt" || true) outputs differ; see $out/diff.txt"
  exit 1
fi
