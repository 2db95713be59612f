"""What a long call of the API does while it runs: a progress line, and Ctrl+C (a notebook's
kernel interrupt: SIGINT) stopping the run at its next chunk, to be returned as ``stopped``
with its epochs kept, as the command line's Ctrl+C does. A second Ctrl+C raises
KeyboardInterrupt at once. Off the main thread (where Python takes no signal handler) Ctrl+C
is left as it is.

The progress is the command line's bar (cli/output.py), drawn on stderr with a carriage return,
which a terminal and Jupyter's output area both redraw in place.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from iris_gui.cli.output import ProgressBar


@contextmanager
def interrupt_stops(stop: threading.Event) -> Iterator[threading.Event]:
    """While inside, the first SIGINT sets ``stop``; the second raises KeyboardInterrupt."""
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def on_interrupt(signum: int, frame: FrameType | None) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    before = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, before)


def progress_bar(total: int, label: str, shown: bool) -> ProgressBar | None:
    """The bar for a run of ``total`` epochs on stderr, or None when not ``shown``."""
    return ProgressBar(total, label, sys.stderr, always=True) if shown else None
