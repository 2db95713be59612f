"""How processes start on each platform: the window's worker and a run's ranks from a warm
forkserver on Linux, spawned on a Mac (mocked: forking a process that loaded torch's
Objective-C and Metal runtimes is unsafe), on Windows (no forkserver) and wherever
``IRIS_GUI_START_METHOD=spawn`` simulates them (``make test-spawn`` runs the engine, CLI, API and real-worker tests so); the
loader's workers as the platform's default, or as simulated."""

from __future__ import annotations

import multiprocessing as mp

from iris_gui.engine.parallel import children, launch
from iris_gui.engine.spec import batch_settings
from iris_gui.engine.workers import runner


def test_linux_forks_from_the_forkserver_and_a_mac_spawns(monkeypatch):
    monkeypatch.delenv(batch_settings.START_METHOD_ENV, raising=False)
    assert runner.worker_context().get_start_method() == "forkserver"
    assert launch.rank_context().get_start_method() == "forkserver"  # a run's ranks alike
    assert batch_settings.loader_start_method() == mp.get_all_start_methods()[0]
    monkeypatch.setattr(children.sys, "platform", "darwin")
    assert runner.worker_context().get_start_method() == "spawn"
    assert launch.rank_context().get_start_method() == "spawn"


def test_the_simulation_spawns_both_and_ignores_what_the_platform_lacks(monkeypatch):
    monkeypatch.setenv(batch_settings.START_METHOD_ENV, "spawn")
    assert runner.worker_context().get_start_method() == "spawn"
    assert launch.rank_context().get_start_method() == "spawn"
    assert batch_settings.loader_start_method() == "spawn"
    monkeypatch.setenv(batch_settings.START_METHOD_ENV, "teleport")
    assert batch_settings.forced_start_method() == ""
    assert runner.worker_context().get_start_method() == "forkserver"
