# Sourced by the packaging tests (test-wheel.sh, test-pre-commit.sh): the Python tools they
# need, and one quick build that both share, under target/packaging.
#
# Both build the release profile (maturin for the wheel, `cargo install` for the pre-commit
# hook), so the environment makes that profile as quick to build as the dev profile and gives
# both one target directory: the second build reuses the first one's dependencies. These
# tests check the packaging, not the speed of the binary.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="$repo/target/packaging"
export CARGO_TARGET_DIR="$out/cargo"
export CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_DEBUG=false
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256 CARGO_PROFILE_RELEASE_INCREMENTAL=true
export CARGO_PROFILE_RELEASE_LTO=false

python=${PYTHON:-python3}
command -v "$python" >/dev/null || {
    echo "FAIL: the packaging tests need Python 3 with venv and pip ($python not found)" >&2
    exit 2
}

# maturin builds the wheel; pre-commit runs the hook. Pinned, and installed once per pin.
tools_pins="maturin==1.16.0 pre-commit==4.7.0"
tools="$out/tools"
if [ "$(cat "$tools/pins" 2>/dev/null)" != "$tools_pins" ]; then
    rm -rf "$tools"
    "$python" -m venv "$tools"
    # shellcheck disable=SC2086 # the pins are words
    "$tools/bin/python" -m pip install --quiet --disable-pip-version-check $tools_pins
    echo "$tools_pins" > "$tools/pins"
fi
export PATH="$tools/bin:$PATH"
