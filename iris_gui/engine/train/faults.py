"""IRIS_GUI_FAULT: a documented testing aid that makes the failure paths reachable from outside.

``raise-at-epoch:N`` raises inside the run when epoch N starts; ``exit-at-epoch:N`` ends the
process running the epochs at epoch N with no goodbye (``os._exit``), as a crash would;
``slow-items:MS`` makes every row the loader data path reads take MS milliseconds more (a
sleep: a slow ``__getitem__``), for epochs far longer than a chunk and a stop inside one;
``garble-chunk-at-epoch:N`` makes a worker process send, in place of its first chunk at or
past epoch N, one no run sends (its epochs past the run's end), as a broken or foreign worker
would: the runner's check refuses it; ``client-silence:S`` makes a host's worker take its
client for gone after S seconds without a word from it, instead of a minute. The fault wraps the step's forward (or the loader's data
set, or the worker's sending of chunks) only when the variable is set, so a normal run pays
nothing.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.spec.errors import ConfigError

FAULT_ENV = "IRIS_GUI_FAULT"
# Distinct from Python's own exit codes, so a test can tell the injected death apart.
FAULT_EXIT_CODE = 86
KINDS = ("raise-at-epoch", "exit-at-epoch", "slow-items", "garble-chunk-at-epoch",
         "client-silence")
# The kinds that strike inside the run's epochs (the others slow its data or garble its words).
IN_EPOCHS = ("raise-at-epoch", "exit-at-epoch")


class InjectedFault(RuntimeError):
    """The failure IRIS_GUI_FAULT asked for; ``epochs_done`` says where it struck, which the
    loop cannot know when the rung trains several epochs per call."""

    epochs_done: int = 0


@dataclass(frozen=True)
class Fault:
    kind: str
    epoch: int  # the epoch it strikes at; for slow-items, the milliseconds an item takes

    def wrap(self, forward: Callable[..., Any]) -> Callable[..., Any]:
        """``forward`` that fails when it is called for epoch ``self.epoch`` (the first call is
        epoch 0: the loop calls forward once per epoch)."""
        calls = 0

        def faulty(*args: Any) -> Any:
            nonlocal calls
            if calls == self.epoch:
                self.trigger()
            calls += 1
            return forward(*args)

        return faulty

    def wrap_run(self, run: Callable[[int, int], None]) -> Callable[[int, int], None]:
        """A rung's ``run(first, count)`` that fails when it reaches epoch ``self.epoch``,
        after training the epochs before it."""
        if self.kind not in IN_EPOCHS:
            return run

        def faulty(first: int, count: int) -> None:
            if first <= self.epoch < first + count:
                if self.epoch > first:
                    run(first, self.epoch - first)
                try:
                    self.trigger()
                except InjectedFault as fault:
                    fault.epochs_done = self.epoch
                    raise
            run(first, count)

        return faulty

    def garbling(self, send: Callable[[Chunk], None], epochs: int) -> Callable[[Chunk], None]:
        """``send`` (a worker's sending of its chunks) that sends the first chunk at or past
        epoch ``self.epoch`` garbled (garble-chunk-at-epoch); ``send`` itself otherwise."""
        if self.kind != "garble-chunk-at-epoch":
            return send
        garbled = False

        def sending(chunk: Chunk) -> None:
            nonlocal garbled
            if not garbled and chunk.epochs_done >= self.epoch:
                garbled = True
                chunk = replace(chunk, epochs_done=epochs + 1)
            send(chunk)

        return sending

    def trigger(self) -> None:
        if self.kind == "exit-at-epoch":
            sys.stderr.write(f"iris-gui: {FAULT_ENV}: exiting at epoch {self.epoch:,}\n")
            os._exit(FAULT_EXIT_CODE)
        raise InjectedFault(f"injected fault at epoch {self.epoch:,} ({FAULT_ENV}={self.text})")

    @property
    def text(self) -> str:
        return f"{self.kind}:{self.epoch}"


class SlowItems:
    """A data set whose every item takes ``seconds`` more (slow-items)."""

    def __init__(self, dataset: Any, seconds: float) -> None:
        self.dataset, self.seconds = dataset, seconds

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, index: int) -> Any:
        time.sleep(self.seconds)
        return self.dataset[index]


def slowed(dataset: Any) -> Any:
    """``dataset``, slowed where IRIS_GUI_FAULT asks for slow-items."""
    fault = fault_from_env()
    if fault is None or fault.kind != "slow-items":
        return dataset
    return SlowItems(dataset, fault.epoch / 1000)


def fault_from_env() -> Fault | None:
    """The fault IRIS_GUI_FAULT asks for, None when unset; ConfigError when malformed."""
    value = os.environ.get(FAULT_ENV, "").strip()
    if not value:
        return None
    kind, _, count = value.partition(":")
    if kind not in KINDS or not count.isdigit():
        raise ConfigError(f"{FAULT_ENV}={value!r} is not allowed; use raise-at-epoch:N, "
                          "exit-at-epoch:N, slow-items:MS, garble-chunk-at-epoch:N or "
                          "client-silence:S with N, MS or S a whole number, or unset it")
    return Fault(kind, int(count))
