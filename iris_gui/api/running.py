"""What a long call of the API does while it runs: a progress line, and Ctrl+C (a notebook's
kernel interrupt: SIGINT) stopping the run at its next chunk, to be returned as ``stopped``
with its epochs kept, as the command line's Ctrl+C does. A second Ctrl+C raises
KeyboardInterrupt at once. SIGTERM (a scheduler, ``kill``) keeps the run as stopped too, then
ends the process. Off the main thread (where Python takes no signal handler) Ctrl+C
is left as it is.

The progress is the command line's (cli/progress.py): on stderr with a carriage return in a
terminal, and in a notebook one output line updated in place through IPython's display (a
saved notebook then keeps the last state, not every redraw).
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TextIO

from iris_gui.cli.progress import ProgressBar

# The signals that end a process by default and that a run in progress outlives, saved.
ENDING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGBREAK")
               if hasattr(signal, name))


@contextmanager
def interrupt_stops(stop: threading.Event) -> Iterator[threading.Event]:
    """While inside, the first SIGINT sets ``stop``; the second raises KeyboardInterrupt.

    SIGTERM and SIGHUP, where the program has left them to Python's default (which ends the
    process at once, the run in progress lost), stop the run the same way; once it is saved,
    and the block left, the signal is raised again with its default action, so the process
    ends as it was asked to. A second one ends it at once."""
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    ending: list[int] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if stop.is_set():
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)
        stop.set()
        if signum != signal.SIGINT:
            ending.append(signum)

    before = {signal.SIGINT: signal.signal(signal.SIGINT, on_signal)}
    for signum in ENDING:
        if signal.getsignal(signum) == signal.SIG_DFL:
            before[signum] = signal.signal(signum, on_signal)
    try:
        yield stop
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
        if ending:
            signal.raise_signal(ending[0])


def progress_bar(total: int, label: str, shown: bool) -> ProgressBar | None:
    """The bar for a run of ``total`` epochs (in the notebook's output, else on stderr when it
    is a terminal), or None when not ``shown``."""
    if not shown:
        return None
    return ProgressBar(total, label, notebook_line())


def notebook_line() -> TextIO | None:
    """In a notebook, a stream whose lines are one output updated in place (what a sweep's
    progress writes to); None elsewhere, where stderr serves."""
    return _DisplayLine.in_notebook()  # type: ignore[return-value]  # a stream in all it uses


class _DisplayLine:
    """A stream for the bar that is one notebook output, updated in place (at most every
    ``EVERY`` seconds, and the last state always): the bar's carriage returns are redraws."""

    EVERY = 0.2

    def __init__(self, display: object) -> None:
        self._handle = display({"text/plain": ""}, raw=True, display_id=True)  # type: ignore[operator]
        self._shown = 0.0
        self._last = ""

    @classmethod
    def in_notebook(cls) -> _DisplayLine | None:
        shell = sys.modules.get("IPython")
        kernel = getattr(shell, "get_ipython", lambda: None)() if shell else None
        if kernel is None or type(kernel).__name__ != "ZMQInteractiveShell":
            return None  # a terminal's IPython draws the stderr bar like any terminal
        from IPython.display import display

        return cls(display)

    def write(self, text: str) -> None:
        line = text.strip("\r").rstrip()
        if not line:  # the bar's close blanks its line: the notebook keeps the last state
            self._update(self._last, force=True)
            return
        self._last = line
        self._update(line)

    def _update(self, line: str, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._shown >= self.EVERY:
            self._handle.update({"text/plain": line}, raw=True)
            self._shown = now

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True
