"""``lab.train(world=2)`` from a user's own script: a script with no ``if __name__ ==
"__main__":`` guard trains on two processes without its ranks running it again, and the run
reads its world through (``run.parallel``)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

SCRIPT = """\
import iris_gui as lab
print("script ran")
run = lab.train(world=2, epochs=100, progress=False)
print(run.result.status.value, run.parallel.world, [r.rows for r in run.parallel.ranks])
"""


def test_a_script_without_a_main_guard_trains_on_two_processes(tmp_path):
    script = tmp_path / "mine.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "IRIS_GUI_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, str(script)], check=False, capture_output=True,
                          text=True,
                          env=env, cwd=tmp_path, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["script ran", "completed 2 [60, 60]"]
