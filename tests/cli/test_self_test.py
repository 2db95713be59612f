"""``iris-gui --self-test``: the check a frozen build runs on a machine without a display. It
trains in a worker process of its own, so each case is one whole self-test in a process."""

import importlib.util
import subprocess
import sys

import pytest

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow


@pytest.fixture
def scratch(tmp_path_factory: pytest.TempPathFactory):
    """The self-test's own temporary directory (TMPDIR), apart from its HOME, so that what it
    leaves there can be listed."""
    return tmp_path_factory.mktemp("tmp")


def _self_test(tmp_path, scratch, **extra_env: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TMPDIR": str(scratch),
           "IRIS_GUI_DATA_DIR": str(tmp_path / "user"), **extra_env}
    return subprocess.run([sys.executable, "-m", "iris_gui", "--self-test"], capture_output=True,
                          text=True, timeout=300, env=env, check=False)


def _left_in(scratch) -> list[str]:
    """What the self-test left in its temporary directory: nothing, as it runs on every
    install. torch keeps a cache of its own there (torchinductor_<user>), not the self-test's."""
    return [p.name for p in scratch.iterdir() if p.name.startswith("iris-gui")]


def test_self_test_trains_in_the_worker_exports_a_png_and_leaves_nothing(tmp_path, scratch):
    done = _self_test(tmp_path, scratch)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    if importlib.util.find_spec("numba") is not None:
        assert lines[-1] == "self-test passed: 8 of 8 checks", done.stdout
        assert any(line.startswith("[ok] short native run") for line in lines), done.stdout
    else:
        assert lines[-1] == "self-test passed: 7 of 7 checks (1 skipped)", done.stdout
    assert any("trained in the worker process" in line and line.startswith("[ok]")
               for line in lines)
    assert any("exported as PNG" in line and line.startswith("[ok]") for line in lines)
    assert any(line.startswith("[ok] short manual run") for line in lines), done.stdout
    assert "propagateSizeHints" not in done.stderr
    assert not (tmp_path / "user").exists(), "the self-test must not touch the user's store"
    assert _left_in(scratch) == []


def test_self_test_skips_the_native_engine_where_numba_is_missing(tmp_path, scratch):
    """Outside the bundle a missing numba is a skip with its reason, not a failure."""
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "numba.py").write_text("raise ImportError('No module named numba (hidden)')\n")
    done = _self_test(tmp_path, scratch, PYTHONPATH=str(hide))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "self-test passed: 7 of 7 checks (1 skipped)", done.stdout
    assert any(line.startswith("[skipped] short native run") and "numba is not installed" in line
               for line in lines), done.stdout
    assert any(line.startswith("[ok] short manual run") for line in lines), done.stdout
    assert _left_in(scratch) == []
