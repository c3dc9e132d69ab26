"""The rtenx command, a read-only inspector and validator for ML model files.

The wheel carries the compiled `rtenx` binary; this package only finds it, so that
`python -m rtenx` works where the scripts folder is not on PATH.
"""

import os
import sys
import sysconfig


def find_rtenx_bin() -> str:
    """Returns the path of the rtenx binary installed with this package."""
    exe = "rtenx" + (sysconfig.get_config_var("EXE") or "")
    if sys.version_info >= (3, 10):
        user = sysconfig.get_preferred_scheme("user")
    else:
        user = f"{os.name}_user"
    for folder in (sysconfig.get_path("scripts"), sysconfig.get_path("scripts", user)):
        path = os.path.join(folder, exe)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(f"the {exe} binary is not installed beside this package")
