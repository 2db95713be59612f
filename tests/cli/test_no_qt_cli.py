"""The engine, the store and the commands that need no window work where PySide6 and pyqtgraph
are not installed (a GPU server's system Python; ARCHITECTURE.md: the engine never imports
Qt): one ``python`` process whose every Qt import is refused imports the package as
``python -m iris_gui`` does, then every module of the engine and the store, then runs each
command in turn through ``iris_gui.cli.main``, and notes every attempt, command by command.
One process is enough: an attempt made while any command runs (or while a module imports) is
caught, whichever makes it first, and torch loads once instead of once per check."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import textwrap

import pytest
from support.cli import TIMEOUT_S, cli_env, describe, ok_json

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow

QT_PACKAGES = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6", "pytestqt")

# What a module of the engine may need that a GPU server's Python may lack and that is not
# Qt: Triton, which only the persistent kernel's modules import.
OPTIONAL = ("triton",)
# ``python -c RUNNER JOBS RESULTS``: with a finder in front of every other that refuses the Qt
# packages and notes each attempt, imports the package as ``python -m iris_gui`` does, then
# every module of the engine and the store (those needing an OPTIONAL package that is missing
# are listed as skipped), then runs each job of the JSON list JOBS ([name, args, data
# directory]) through ``main`` with its output captured, as the command line would show it;
# "{id}" in a job's args is the id of the run the latest job printed as JSON. Writes, to
# RESULTS, each job's exit status, stdout, stderr and the Qt imports it attempted, and the
# attempts of the package's own import and of the modules'.
RUNNER = textwrap.dedent(f"""
    import contextlib, importlib, importlib.abc, io, json, logging, os, pkgutil, sys

    attempts = []

    class NoQt(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {QT_PACKAGES!r}:
                attempts.append(name)
                raise ImportError(f"{{name}} is blocked in this test")
            return None

    sys.meta_path.insert(0, NoQt())
    jobs, results_path = json.loads(sys.argv[1]), sys.argv[2]
    import iris_gui.__main__
    from iris_gui.cli import main

    done = {{"import": sorted(set(attempts)), "jobs": {{}}, "modules": [], "skipped": []}}
    import iris_gui.engine, iris_gui.store
    before = len(attempts)
    for package in (iris_gui.engine, iris_gui.store):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            try:
                importlib.import_module(module.name)
            except ModuleNotFoundError as missing:
                if (missing.name or "").split(".")[0] not in {OPTIONAL!r}:
                    raise
                done["skipped"].append(module.name)
                continue
            done["modules"].append(module.name)
    done["modules-qt"] = sorted(set(attempts[before:]))
    logger, run_id = logging.getLogger("iris_gui"), None
    for name, args, data in jobs:
        args = [arg.replace("{{id}}", str(run_id)) for arg in args]
        os.environ["IRIS_GUI_DATA_DIR"] = data
        out, err = io.StringIO(), io.StringIO()
        handlers, before = list(logger.handlers), len(attempts)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(args)
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
        for handler in [h for h in logger.handlers if h not in handlers]:  # its cli.log
            logger.removeHandler(handler)
            handler.close()
        try:
            printed = json.loads(out.getvalue())
        except ValueError:
            printed = None
        if isinstance(printed, dict) and printed.get("id") is not None:
            run_id = printed["id"]
        done["jobs"][name] = {{"args": args, "code": int(code or 0), "stdout": out.getvalue(),
                              "stderr": err.getvalue(), "qt": sorted(set(attempts[before:]))}}
    with open(results_path, "w", encoding="utf-8") as results:
        json.dump(done, results)
""")
NEEDS_QT = [([], "the window"), (["--self-test"], "the self-test"),
            (["plot", "--runs", "1", "--out", "{dir}/x.png"], "drawing PNG")]


def as_completed(job: dict) -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess(job["args"], job["code"], job["stdout"], job["stderr"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Every window-free command once, Qt blocked: first those that need no stored run (one of
    them saves a run), then those that read it; last, those that need Qt, each on a store of
    its own."""
    scratch = tmp_path_factory.mktemp("no-qt")
    store, empty = str(scratch / "store"), str(scratch / "unused")
    jobs = [
        ["devices", ["devices", "--json"], empty],
        ["train", ["train", "--json", "--epochs", "200", "--no-save"], empty],
        ["compare", ["compare", "--devices", "cpu", "--records", "every-epoch,none",
                     "--epochs", "30", "--json", "--no-save"], empty],
        ["explain", ["explain", "--epochs", "20", "--repeat", "1", "--json"], empty],
        ["train-save", ["train", "--json", "--epochs", "50"], store],
        ["show", ["runs", "show", "{id}", "--json", "--curve"], store],
        ["plot-csv", ["plot", "--runs", "{id}", "--out", str(scratch / "curves.csv")], store],
        ["list", ["runs", "list", "--json"], store],
        ["export", ["runs", "export", "--csv", str(scratch / "runs.csv")], store],
    ]
    for index, (args, what) in enumerate(NEEDS_QT):
        folder = scratch / f"needs-qt-{index}"
        folder.mkdir()
        jobs.append([what, [a.format(dir=folder) for a in args], str(folder / "data")])
    results = scratch / "results.json"
    proc = subprocess.run([sys.executable, "-c", RUNNER, json.dumps(jobs), str(results)],
                          capture_output=True, text=True, check=False,
                          env=cli_env(scratch / "unset"), timeout=TIMEOUT_S)
    assert proc.returncode == 0 and results.exists(), describe(proc)
    done = json.loads(results.read_text())
    assert done["import"] == [], f"importing the command line tried Qt: {done['import']}"
    needs_qt = {what for _, what in NEEDS_QT}
    for name, job in done["jobs"].items():
        if name in needs_qt:
            continue
        assert job["qt"] == [], f"{name} tried to import Qt: {job['qt']}\n{job['stderr']}"
        assert job["code"] == 0, describe(as_completed(job))
    jobs_done = done["jobs"].items()
    return {"scratch": scratch, "attempted": {name: job["qt"] for name, job in jobs_done},
            "modules": done["modules"], "skipped": done["skipped"],
            "modules-qt": done["modules-qt"],
            **{name: as_completed(job) for name, job in jobs_done}}


def test_every_engine_and_store_module_imports_without_qt(runs):
    assert runs["modules-qt"] == [], f"the engine or the store tried Qt: {runs['modules-qt']}"
    imported = set(runs["modules"])
    # Every room of the engine, its deepest modules included, and the store.
    for name in ("iris_gui.engine.train.trainer", "iris_gui.engine.rungs.compiled_step",
                 "iris_gui.engine.remote.stdio_worker", "iris_gui.store.damage"):
        assert name in imported, sorted(imported)
    assert all(name.startswith("iris_gui.engine.kernels.") for name in runs["skipped"]), \
        runs["skipped"]


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
    assert runs["plot-csv"].returncode == 0, describe(runs["plot-csv"])
    assert (runs["scratch"] / "curves.csv").stat().st_size > 0


def test_compare_and_explain_run(runs):
    rows = ok_json(runs["compare"])
    assert [row["status"] for row in rows] == ["completed", "completed"], rows
    breakdown = ok_json(runs["explain"])
    assert breakdown["config"]["epochs"] == 20


@pytest.mark.parametrize("index, what", list(enumerate(what for _, what in NEEDS_QT)))
def test_what_needs_qt_says_so_in_one_line(runs, index, what):
    done = runs[what]
    assert done.returncode == 2, describe(done)
    message = done.stderr.strip().splitlines()[0]
    assert message.startswith(f"iris-gui: {what} needs PySide6 and pyqtgraph")
    assert "plot --out FILE.csv" in message and "Traceback" not in done.stderr
    assert runs["attempted"][what], "the blocker noted no Qt import: it would catch none"
    assert not (runs["scratch"] / f"needs-qt-{index}" / "x.png").exists()
