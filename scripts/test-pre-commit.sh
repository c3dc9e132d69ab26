#!/usr/bin/env bash
# Tries the rtenx-check pre-commit hook of this repository for real: in a temporary git
# repository holding a good and a bad RTen model, `pre-commit try-repo` must pass on the good
# one and fail, naming the rule, on the bad one, on a bad GGUF model and on an unsafe pickle,
# and pass the bad one under a folder whose override in the repository's rtenx.toml allows its
# rules. pre-commit builds the hook with pip (maturin, see pyproject.toml). It tries the
# committed state of this repository plus any changes in the work tree (try-repo makes a
# shadow commit of them). Needs Python 3 (venv, pip) and cargo; tests/packaging.rs runs it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/packaging-env.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$repo/tests/fixtures/rten/mlp.rten" "$tmp/good.rten"
cp "$repo/tests/fixtures/rten/bad/RT006-tensor-data-inside-model.rten" "$tmp/bad.rten"
cp "$repo/tests/fixtures/gguf/bad/GG019-offset-past-end.gguf" "$tmp/bad.gguf"
cp "$repo/tests/fixtures/pickle/bad/PK001-global-os-system.pkl" "$tmp/bad.pkl"
cd "$tmp"
git init -q
git add good.rten bad.rten bad.gguf bad.pkl

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
# The hook takes every format, not only the first ones (issue 39): a bad GGUF model and an
# unsafe pickle fail it too, rather than being skipped by its `files` pattern.
for file in bad.gguf:GG019 bad.pkl:PK001; do
    name=${file%%:*}
    code=${file##*:}
    if pre-commit try-repo "$repo" rtenx-check --files "$name" > "$name.log" 2>&1; then
        cat "$name.log"
        echo "FAIL: the hook passed $name" >&2
        exit 1
    fi
    if ! grep -q "error\[$code\]" "$name.log"; then
        cat "$name.log"
        echo "FAIL: the hook failed on $name, but not for $code" >&2
        exit 1
    fi
done
# The repository's rtenx.toml applies: an override allows RT006 and RX002 under legacy/.
mkdir legacy
cp bad.rten legacy/old.rten
printf '[[overrides]]\npaths = ["legacy/**"]\nallow = ["RT006", "RX002"]\n' > rtenx.toml
git add legacy/old.rten rtenx.toml
if ! pre-commit try-repo "$repo" rtenx-check --files legacy/old.rten > legacy.log 2>&1; then
    cat legacy.log
    echo "FAIL: the hook did not apply rtenx.toml's override to legacy/old.rten" >&2
    exit 1
fi
echo "ok: rtenx-check passes good.rten, fails bad.rten with RT006, bad.gguf with GG019 and bad.pkl with PK001, and follows rtenx.toml"
