"""A model file is Python the user wrote: what it does in its import or its forward ends its
run, never the command or the notebook that asked for it. The command line and the API train
a model file in a worker process of its own (engine/workers/apart.py), so ``os._exit`` is a
failed run, stored, and a file stuck in a forward is ended after the stop's grace and kept as
stopped; the built-in models still train in the caller's process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support.cli import IRIS, TIMEOUT_S, cli_env, describe, ok_json, run_cli
from support.model_sources import counting_model
from support.signalled import running

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.workers.apart import ApartRunner
from iris_gui.engine.workers.runner import STOP_GRACE_SECONDS

# The three that start a Python of their own for the command (seconds of imports each) run
# with make test-reliability; the rest, in this process or through one worker, with make test.
long_only = pytest.mark.skipif(os.environ.get("IRIS_GUI_LONG_TRIALS") != "1",
                               reason="long trials: set IRIS_GUI_LONG_TRIALS=1 "
                                      "(make test-reliability)")



def _model(tmp_path: Path, at_import: str = "", in_forward: str = "pass",
           when: str = "False") -> str:
    path = tmp_path / "own_net.py"
    path.write_text(counting_model(at_import, when, in_forward))
    return f"{path}:Net"


def test_os_exit_while_imported_is_a_failed_run_stored_with_its_exit_code(tmp_path):
    data = tmp_path / "data"
    done = run_cli(["train", "--model", _model(tmp_path, at_import="os._exit(3)"),
                    "--epochs", "200", "--json"], data)
    assert done.returncode == 1 and "Traceback" not in done.stderr, describe(done)
    record = json.loads(done.stdout)
    assert record["status"] == "failed" and record["epochs_completed"] == 0
    assert record["message"] == "the worker process exited unexpectedly (exit code 3)"
    [line] = done.stderr.splitlines()
    assert "failed: the worker process exited unexpectedly (exit code 3)" in line
    [stored] = ok_json(run_cli(["runs", "list", "--json"], data))
    assert (stored["id"], stored["status"]) == (record["id"], "failed")


def test_os_exit_in_forward_fails_the_api_run_and_returns_it_with_its_epochs(tmp_path,
                                                                             monkeypatch):
    import iris_gui as lab

    monkeypatch.setenv("IRIS_GUI_DATA_DIR", str(tmp_path / "data"))
    # Past its first chunks (a chunk is sent every ~30 ms), well before its last epoch.
    run = lab.train(model=_model(tmp_path, in_forward="os._exit(7)", when="self.calls > 4000"),
                    epochs=100_000, progress=False)
    assert run.status == "failed" and "exit code 7" in run.message, run.message
    assert 0 < run.result.epochs_completed < 100_000 and run.id is not None
    assert run.result.env.execution == "process"
    assert [r.id for r in lab.runs()] == [run.id]


def test_os_exit_in_forward_while_explained_ends_the_explain_in_one_line(tmp_path):
    model = _model(tmp_path, in_forward="os._exit(5)", when="self.calls > 30")
    done = run_cli(["explain", "--model", model, "--epochs", "20"], tmp_path / "data")
    assert done.returncode != 0 and "Traceback" not in done.stderr, describe(done)
    [line] = done.stderr.splitlines()  # the command lived to say it
    assert line.startswith("iris-gui explain: ") and "exited during the explain (exit code 5)" \
        in line, line


def test_a_forward_that_never_returns_is_ended_after_the_grace_and_kept_as_stopped(tmp_path):
    # The first chunk heard asks the stop and, through a marker file, sends the next forward
    # to sleep for an hour: the stop is never answered.
    marker = tmp_path / "hang"
    heard = threading.Event()

    def observer(chunk: object) -> None:
        marker.touch()
        heard.set()

    config = RunConfig(model=_model(tmp_path, in_forward="time.sleep(3600)",
                                    when=f"Path({str(marker)!r}).exists()"), epochs=100_000)
    runner = ApartRunner()
    stopper = threading.Thread(target=lambda: heard.wait(60) and runner.request_stop(),
                               daemon=True)
    stopper.start()
    result = runner.run(config, observer)
    assert result.status.value == "stopped", result.message
    assert f"did not answer within {STOP_GRACE_SECONDS:g} s and was ended" in result.message
    assert 0 < result.epochs_completed < 100_000


@long_only
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_while_the_file_hangs_in_its_forward_keeps_the_run_as_stopped(tmp_path):
    data, marker = tmp_path / "data", tmp_path / "hanging"
    # Its 41st forward says so with a marker file, then sleeps for an hour.
    hang = f"Path({str(marker)!r}).touch(); time.sleep(3600)"
    proc = subprocess.Popen(
        [*IRIS, "train", "--model", _model(tmp_path, in_forward=hang, when="self.calls > 40"),
         "--epochs", "400"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=cli_env(data))
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)  # a poll for readiness: the file is in its forward, hanging
        assert marker.exists(), "the model file never reached its hanging forward"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    assert done.returncode == 143 and "Traceback" not in done.stderr, describe(done)
    assert done.stdout.startswith("run 1: stopped - stopped after "), describe(done)
    assert "was ended" in done.stdout.splitlines()[0]
    [stored] = ok_json(run_cli(["runs", "list", "--json"], data))
    assert stored["status"] == "stopped"


@long_only
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_worker_whose_command_was_killed_ends_even_while_its_file_hangs(tmp_path):
    """SIGKILL (or a second signal's immediate exit) gives the command no chance to end its
    worker: the worker watches its parent and ends with it, never left running a hung file."""
    data, marker = tmp_path / "data", tmp_path / "worker.pid"
    hang = f"Path({str(marker)!r}).write_text(str(os.getpid())); time.sleep(3600)"
    proc = subprocess.Popen(
        [*IRIS, "train", "--model", _model(tmp_path, in_forward=hang, when="self.calls > 40"),
         "--epochs", "400"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=cli_env(data))
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)  # a poll for readiness: the worker is in the hanging forward
        worker = int(marker.read_text())
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 30
    while running(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(worker), f"worker {worker} still runs after its command was killed"



@long_only
def test_a_script_without_a_main_guard_trains_its_model_file_once(tmp_path):
    """The worker is not prepared from the caller's script: a script that calls the API at its
    top level (no ``if __name__ == "__main__":``) is not run again in the worker."""
    script = tmp_path / "script.py"
    script.write_text("import iris_gui as lab\n"
                      f"run = lab.train(model={_model(tmp_path)!r}, epochs=50, progress=False)\n"
                      "print('trained', run.status.value, run.result.env.execution)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=cli_env(tmp_path / "data"), timeout=TIMEOUT_S, check=False)
    assert done.returncode == 0 and done.stdout == "trained completed process\n", describe(done)
