#!/usr/bin/env bash
# Tries the rtenx-check pre-commit hook of this repository for real: in a temporary git
# repository holding a good and a bad RTen model, `pre-commit try-repo` must pass on the good
# one and fail, naming the rule, on the bad one. Needs pre-commit (`pip install pre-commit`)
# and cargo, which pre-commit uses to build the hook (a release build, the first time).
# It tries the committed state of this repository (try-repo uses a shadow commit when the
# work tree has changes). CI does not run it, so that CI needs no Python.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
command -v pre-commit >/dev/null || { echo "needs pre-commit: pip install pre-commit" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$repo/tests/fixtures/rten/mlp.rten" "$tmp/good.rten"
cp "$repo/tests/fixtures/rten/bad/RT006-tensor-data-inside-model.rten" "$tmp/bad.rten"
cd "$tmp"
git init -q
git add good.rten bad.rten

if ! pre-commit try-repo "$repo" rtenx-check --files good.rten > good.log 2>&1; then
    cat good.log
    echo "FAIL: the hook rejected a good model" >&2
    exit 1
fi
if pre-commit try-repo "$repo" rtenx-check --files bad.rten > bad.log 2>&1; then
    cat bad.log
    echo "FAIL: the hook passed a bad model" >&2
    exit 1
fi
if ! grep -q 'error\[RT006\]' bad.log; then
    cat bad.log
    echo "FAIL: the hook failed on the bad model, but not for RT006" >&2
    exit 1
fi
echo "ok: rtenx-check passes good.rten and fails bad.rten with RT006"
