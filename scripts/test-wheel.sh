#!/usr/bin/env bash
# Builds the Python wheel (pyproject.toml, maturin with `bindings = "bin"`), installs it in a
# fresh virtual environment and runs the `rtenx` command it gives: `rtenx check` must pass a
# good model and fail, naming the rule, on a bad one; `python -m rtenx` must run it too.
# Needs Python 3 (venv, pip) and cargo; tests/packaging.rs runs it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/packaging-env.sh"
good="$repo/tests/fixtures/rten/mlp.rten"
bad="$repo/tests/fixtures/rten/bad/RT006-tensor-data-inside-model.rten"

rm -rf "$out/wheels"
(cd "$repo" && maturin build --release --quiet --out "$out/wheels")
wheels=("$out"/wheels/rtenx-*.whl)
[ "${#wheels[@]}" = 1 ] || { echo "FAIL: expected one wheel, got ${wheels[*]}" >&2; exit 1; }

venv="$out/wheel-venv"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "${wheels[0]}"
export PATH="$venv/bin:$PATH"
[ "$(command -v rtenx)" = "$venv/bin/rtenx" ] || { echo "FAIL: rtenx is not the wheel's" >&2; exit 1; }

rtenx check "$good" > "$out/good.log" || { cat "$out/good.log"; echo "FAIL: rejected a good model" >&2; exit 1; }
if rtenx check "$bad" > "$out/bad.log"; then
    cat "$out/bad.log"; echo "FAIL: passed a bad model" >&2; exit 1
fi
grep -q 'error\[RT006\]' "$out/bad.log" || { cat "$out/bad.log"; echo "FAIL: no RT006" >&2; exit 1; }
python -m rtenx check "$good" > /dev/null || { echo "FAIL: python -m rtenx failed" >&2; exit 1; }
[ "$(python -m rtenx --version)" = "$(rtenx --version)" ] || { echo "FAIL: python -m rtenx is another rtenx" >&2; exit 1; }
echo "ok: the wheel's rtenx passes mlp.rten and fails RT006-tensor-data-inside-model.rten with RT006"
