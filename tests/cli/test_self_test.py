"""``iris-gui --self-test``: the check a frozen build runs on a machine without a display."""

import subprocess
import sys


def test_self_test_trains_in_the_worker_and_exports_a_png(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "IRIS_GUI_DATA_DIR": str(tmp_path / "user")}
    done = subprocess.run([sys.executable, "-m", "iris_gui", "--self-test"], capture_output=True,
                          text=True, timeout=300, env=env, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1].startswith("self-test passed: 6 of 6")
    assert any("trained in the worker process" in line and line.startswith("[ok]") for line in lines)
    assert any("exported as PNG" in line and line.startswith("[ok]") for line in lines)
    assert "propagateSizeHints" not in done.stderr
    assert not (tmp_path / "user").exists(), "the self-test must not touch the user's store"
