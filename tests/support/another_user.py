"""Running a command as a user who cannot write where the test says, for the trials of
unwritable data directories."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

SKIP_REASON = ("needs POSIX permissions and, as root, setpriv and a checkout that the user "
               "nobody can read (a clone in a private folder, such as mktemp -d's, is not)")


@functools.cache
def as_another_user() -> list[str] | None:
    """The command prefix that runs a process as a user who cannot write the test's folders:
    none for a non-root user; ``setpriv`` to nobody for root (who writes anywhere), once
    nobody is seen to import iris_gui from this checkout; None where neither works."""
    if not hasattr(os, "geteuid"):
        return None
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    probe = subprocess.run([*prefix, sys.executable, "-c", "import iris_gui"], cwd="/",
                           capture_output=True, timeout=60, check=False)
    return prefix if probe.returncode == 0 else None
