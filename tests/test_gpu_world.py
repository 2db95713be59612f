"""The GPU server's world, cheaply, on every run of the suite: its system Python has pytest but
no pytest-qt (perhaps no pytest-timeout), no Qt and no platformdirs. Here those are hidden from
a child process (tests/support/without), whose pytest loads no plugin it is not told to, or
refused in this process (platformdirs). The
whole replica, the server's own Python, torch and Triton, is `make test-gpu-image`
(scripts/gpu_image.sh): minutes and a few GB, so not part of `make test`."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from support import plugin_options
from support.cli import run_cli

ROOT = Path(__file__).resolve().parents[1]


def _plan():
    """scripts/gpu_check/plan.py, standard library only, read from its file."""
    spec = importlib.util.spec_from_file_location("gpu_check_plan",
                                                  ROOT / "scripts" / "gpu_check" / "plan.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses looks its module up
    spec.loader.exec_module(module)
    return module


plan = _plan()

ABSENT = "PySide6,shiboken6,pyqtgraph,pytestqt,platformdirs,pytest_timeout"


def gpu_world(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", IRIS_GUI_TEST_WITHOUT=ABSENT,
               IRIS_GUI_DATA_DIR=str(tmp_path / "data"),
               PYTHONPATH=os.pathsep.join([str(ROOT / "tests" / "support" / "without"),
                                           str(ROOT)]))
    env.pop("QT_QPA_PLATFORM", None)
    return env


@pytest.mark.slow
def test_the_checks_cuda_test_files_collect_in_its_order_with_the_projects_configuration(
        tmp_path):
    # pyproject.toml names pytest-qt's and pytest-timeout's options; under its warnings-are-errors
    # an unknown option stopped pytest before its first test.
    files = [f for step in plan.STEPS for f in step.command if f.startswith("tests/")]
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                           "-p", "no:cacheprovider", "-m", "cuda and not kernels", *files],
                          cwd=ROOT, env=gpu_world(tmp_path), capture_output=True, text=True,
                          timeout=180, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    collected = re.search(r"(\d+)/(\d+) tests collected", done.stdout)
    assert collected and int(collected.group(1)) >= len(files), done.stdout[-2000:]
    assert "INTERNALERROR" not in done.stdout + done.stderr
    # In one process the files run in the order the check names them, cheapest first.
    ran = [line.split("::")[0] for line in done.stdout.splitlines() if "::" in line]
    assert list(dict.fromkeys(ran)) == [f for f in dict.fromkeys(files) if f in ran], ran


def test_a_run_is_stored_where_platformdirs_is_not_installed(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "platformdirs", None)  # its import raises ImportError
    train = run_cli(["train", "--epochs", "20", "--json"], tmp_path / "data")
    assert train.returncode == 0, train.stderr
    record = json.loads(train.stdout)
    assert record["status"] == "completed" and record["id"] >= 1
    listed = run_cli(["runs", "list", "--json"], tmp_path / "data")
    assert [run["id"] for run in json.loads(listed.stdout)] == [record["id"]], listed.stderr


def test_an_absent_plugins_options_are_declared_inert_and_a_present_ones_left_alone():
    declared: list[str] = []
    parser = SimpleNamespace(addini=lambda name, *args, **kwargs: declared.append(name))
    qt_only = SimpleNamespace(get_plugins=lambda: [SimpleNamespace(__name__="pytestqt.plugin")])
    assert plugin_options.declare_missing(parser, qt_only) == ["timeout"] == declared
    nothing = SimpleNamespace(get_plugins=list)
    assert plugin_options.declare_missing(parser, nothing) == [
        "qt_log_level_fail", "qt_log_ignore", "timeout"]


def _item(path: str, slow: bool) -> SimpleNamespace:
    return SimpleNamespace(nodeid=f"{path}::t", path=path, name="t", originalname="t",
                           get_closest_marker=lambda name: name == "slow" and slow or None)


def test_files_are_reordered_longest_first_only_when_xdist_hands_them_out():
    given = [_item("tests/engine/train/test_trainer.py", False),
             _item("tests/engine/rungs/test_compiled.py", True),
             _item("tests/remote/test_ssh.py", False)]
    items = list(given)
    plugin_options.longest_first(items, False, ("remote",))
    assert items == given  # the GPU check's files, cheapest first, in the order it names them
    plugin_options.longest_first(items, True, ("remote",))
    assert [i.path for i in items] == ["tests/remote/test_ssh.py",
                                       "tests/engine/rungs/test_compiled.py",
                                       "tests/engine/train/test_trainer.py"]
