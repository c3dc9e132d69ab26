"""`python -m rtenx ARGS...` runs the rtenx binary with ARGS and exits with its code."""

import os
import subprocess
import sys

from rtenx import find_rtenx_bin


def main() -> None:
    binary = find_rtenx_bin()
    if sys.platform == "win32":
        # Windows has no exec: run it as a child and pass its exit code on.
        sys.exit(subprocess.run([binary, *sys.argv[1:]]).returncode)
    os.execv(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    main()
