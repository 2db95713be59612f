"""``scripts/loaded.py`` (``make test-loaded``): the command runs beside busy processes, its
exit status is the script's, and no spinner outlives it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "loaded.py"
# Run as the command: prints the pids of its siblings (the spinners), then exits with 3.
PROBE = """
import os, sys
from pathlib import Path
def parent(pid):
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
mine = parent(os.getpid())
siblings = []
for task in Path("/proc").glob("[0-9]*"):
    try:
        if parent(task.name) == mine and int(task.name) != os.getpid():
            siblings.append(task.name)
    except (OSError, ValueError):
        pass
print(" ".join(siblings))
sys.exit(3)
"""


def test_the_command_runs_loaded_and_no_spinner_outlives_it() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--spinners", "2", "--", sys.executable,
                           "-c", PROBE], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 3, done.stderr  # the command's own status
    spinners = done.stdout.split()
    assert len(spinners) == 2 and "2 spinners" in done.stderr
    assert not [pid for pid in spinners if Path(f"/proc/{pid}").exists()]


def test_no_command_is_one_line() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2 and "give the command to run after --" in done.stderr
