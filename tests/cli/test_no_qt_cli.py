"""The commands that need no window work where PySide6 and pyqtgraph are not installed (a GPU
server's system Python): each runs ``python -m iris_gui`` in a subprocess whose Python refuses
every Qt import, as tests/engine/test_no_qt.py does for the engine, and reports any attempt."""

from __future__ import annotations

import csv
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from support.cli import TIMEOUT_S, WORKERS, cli_env, describe, ok_json

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow

QT_PACKAGES = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6", "pytestqt")

# ``python -c WRAPPER args...`` behaves as ``python -m iris_gui args...`` with a finder in front
# of every other that refuses the Qt packages and notes each attempt; the attempts are printed
# last on stderr, so a lazy import that a command swallows is caught too.
WRAPPER = textwrap.dedent(f"""
    import atexit, importlib.abc, runpy, sys

    attempts = []

    class NoQt(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {QT_PACKAGES!r}:
                attempts.append(name)
                raise ImportError(f"{{name}} is blocked in this test")
            return None

    sys.meta_path.insert(0, NoQt())
    atexit.register(lambda: sys.stderr.write(f"\\nqt imports attempted: {{sorted(set(attempts))}}\\n"))
    sys.argv = ["iris-gui", *sys.argv[1:]]
    runpy.run_module("iris_gui", run_name="__main__", alter_sys=True)
""")
NO_QT_LINE = "qt imports attempted: []"


def run_no_qt(args: Sequence[str], data_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WRAPPER, *args], capture_output=True, text=True,
                          check=False, env=cli_env(data_dir), timeout=TIMEOUT_S)


def run_all(jobs: dict[str, tuple[list[str], Path]]) -> dict[str, subprocess.CompletedProcess]:
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        done = dict(zip(jobs, pool.map(lambda job: run_no_qt(*job), jobs.values()), strict=True))
    for proc in done.values():
        assert proc.returncode == 0, describe(proc)
        assert proc.stderr.rstrip().endswith(NO_QT_LINE), describe(proc)
    return done


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess]:
    """Every window-free command once, Qt blocked: first those that need no stored run (one of
    them saves a run), then those that read it."""
    scratch = tmp_path_factory.mktemp("no-qt")
    store, empty = scratch / "store", scratch / "unused"
    done = run_all({
        "devices": (["devices", "--json"], empty),
        "train": (["train", "--json", "--epochs", "200", "--no-save"], empty),
        "train-save": (["train", "--json", "--epochs", "50"], store),
        "compare": (["compare", "--devices", "cpu", "--records", "every-epoch,none",
                     "--epochs", "30", "--json", "--no-save"], empty),
        "explain": (["explain", "--epochs", "20", "--repeat", "1", "--json"], empty),
    })
    run_id = str(ok_json(done["train-save"])["id"])
    done |= run_all({
        "list": (["runs", "list", "--json"], store),
        "show": (["runs", "show", run_id, "--json", "--curve"], store),
        "export": (["runs", "export", "--csv", str(scratch / "runs.csv")], store),
        "plot-csv": (["plot", "--runs", run_id, "--out", str(scratch / "curves.csv")], store),
    })
    done["scratch"] = scratch  # type: ignore[assignment]
    return done


def test_devices_lists_the_cpu(runs):
    devices = ok_json(runs["devices"])["devices"]
    assert any(device["kind"] == "cpu" for device in devices), devices


def test_train_runs_to_completed(runs):
    record = ok_json(runs["train"])
    assert record["status"] == "completed", record["message"]
    assert record["epochs_completed"] == 200
    assert record.get("id") is None  # --no-save


def test_the_saved_run_is_listed_shown_exported_and_plotted(runs):
    saved = ok_json(runs["train-save"])
    assert saved["status"] == "completed" and saved["id"] is not None
    assert [row["id"] for row in ok_json(runs["list"])] == [saved["id"]]
    shown = ok_json(runs["show"])
    assert shown["id"] == saved["id"] and shown["epochs_completed"] == 50
    with open(runs["scratch"] / "runs.csv", newline="", encoding="utf-8-sig") as handle:
        assert [row["id"] for row in csv.DictReader(handle)] == [str(saved["id"])]
    assert (runs["scratch"] / "curves.csv").stat().st_size > 0


def test_compare_and_explain_run(runs):
    rows = ok_json(runs["compare"])
    assert [row["status"] for row in rows] == ["completed", "completed"], rows
    breakdown = ok_json(runs["explain"])
    assert breakdown["config"]["epochs"] == 20


@pytest.mark.parametrize("args, what", [
    ([], "the window"), (["--self-test"], "the self-test"), (["plot", "--runs", "1", "--out",
                                                                "{dir}/x.png"], "drawing PNG"),
])
def test_what_needs_qt_says_so_in_one_line(tmp_path, args, what):
    done = run_no_qt([a.format(dir=tmp_path) for a in args], tmp_path / "data")
    assert done.returncode == 2, describe(done)
    message = done.stderr.strip().splitlines()[0]
    assert message.startswith(f"iris-gui: {what} needs PySide6 and pyqtgraph")
    assert "plot --out FILE.csv" in message and "Traceback" not in done.stderr
    assert not (tmp_path / "x.png").exists()
