"""How the worker process starts: forked from a forkserver that has imported torch and the
trainer (engine/train/preload.py), with this process's environment as it is at each start;
spawned where the app is a frozen bundle or the platform has no forkserver."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys

import pytest

from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.faults import FAULT_ENV
from iris_gui.engine.workers.runner import PRELOAD, ProcessRunner, worker_context

pytestmark = pytest.mark.slow

# Every way into CUDA made to fail before the preload is imported: a process that has touched
# the driver cannot fork a working child.
NO_CUDA_PRELOAD = """
import importlib, sys, threading
import torch

def refused(*args, **kwargs):
    raise AssertionError("the preload touched CUDA")

for name in ("is_available", "device_count", "init", "_lazy_init", "current_device",
             "get_device_name", "get_device_properties", "synchronize"):
    setattr(torch.cuda, name, refused)
if hasattr(torch._C, "_cuda_getDeviceCount"):  # a CUDA build's driver entry
    torch._C._cuda_getDeviceCount = refused
for module in sys.argv[1:]:
    importlib.import_module(module)
print(threading.active_count(), torch.cuda.is_initialized())
"""


def test_the_preload_touches_no_device_and_starts_no_thread() -> None:
    done = subprocess.run([sys.executable, "-c", NO_CUDA_PRELOAD, *PRELOAD],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["1", "False"]


@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(),
                    reason="this platform has no forkserver")
def test_workers_are_forked_from_the_forkserver_where_there_is_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IRIS_GUI_START_METHOD", raising=False)  # make test-spawn's
    assert worker_context().get_start_method() == "forkserver"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert worker_context().get_start_method() == "spawn"


def test_each_worker_takes_the_environment_as_it_is_when_it_starts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The forkserver keeps the environment it started with; a worker forked later must see
    this process's, as a spawned one does (here: a fault set after the server started)."""
    monkeypatch.delenv(FAULT_ENV, raising=False)
    first = ProcessRunner()
    try:
        assert first.run(RunConfig(epochs=20)).status is RunStatus.COMPLETED
    finally:
        first.close()
    monkeypatch.setenv(FAULT_ENV, "raise-at-epoch:5")
    second = ProcessRunner()
    try:
        faulted = second.run(RunConfig(epochs=20))
    finally:
        second.close()
    assert faulted.status is RunStatus.FAILED, faulted.message
    assert f"{FAULT_ENV}=raise-at-epoch:5" in faulted.message
    assert faulted.epochs_completed == 5


LONG_TMPDIR_RUN = """
import sys
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.workers.runner import ProcessRunner

if __name__ == "__main__":
    runner = ProcessRunner()
    try:
        print(runner.run(RunConfig(epochs=20)).status.value, runner._context.get_start_method())
    finally:
        runner.close()
"""


def test_a_tmpdir_too_deep_for_the_forkservers_socket_spawns_the_worker(tmp_path) -> None:
    """A Unix socket's path has at most 108 bytes, and the forkserver's lies under TMPDIR."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    script = tmp_path / "run.py"
    script.write_text(LONG_TMPDIR_RUN)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, check=False, env={**os.environ, "TMPDIR": str(deep)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["completed", "spawn"]
