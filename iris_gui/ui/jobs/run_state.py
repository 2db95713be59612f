"""The run-state machine that decides what the window enables."""

from __future__ import annotations

from enum import Enum


class RunState(str, Enum):
    LOADING = "loading"  # the worker process is starting (torch importing); Train waits for it
    IDLE = "idle"  # ready; nothing running
    STARTING = "starting"  # a run was requested; no chunk yet
    RUNNING = "running"
    STOPPING = "stopping"  # Stop pressed; waiting for the worker to hand back the run

    @property
    def can_train(self) -> bool:
        return self is RunState.IDLE

    @property
    def can_stop(self) -> bool:
        return self in (RunState.STARTING, RunState.RUNNING)
