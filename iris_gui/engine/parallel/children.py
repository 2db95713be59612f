"""How our child processes start: the window's worker (workers/runner.py) and a data-parallel
run's ranks (launch.py).

``context``: forked from a forkserver that has imported torch and the trainer once, so a child
starts in a fraction of a second instead of the seconds an interpreter takes to import torch;
spawned where there is no forkserver (Windows), on macOS (whose frameworks do not survive a
fork), in a frozen bundle, and under ``IRIS_GUI_START_METHOD=spawn`` (which simulates those
here: batch_settings.py).

``left_out``: a process of ours started from someone else's program (a script or a notebook
using the API) must not run that program again.

A spawned or forkserver child is prepared by importing the parent's main module, by path
or by name, as ``__mp_main__``: a script without ``if __name__ == "__main__":`` would run its
calls again in the child, which multiprocessing then refuses ("An attempt has been made to
start a new process before the current process has finished its bootstrapping phase"). The
child needs nothing from the main module (its target and arguments are the package's and
plain data), so while it starts the main module is left out of what the child prepares.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from iris_gui.engine.spec.batch_settings import forced_start_method

_MISSING = object()


@contextmanager
def left_out() -> Iterator[None]:
    """For the block, ``__main__`` shows multiprocessing neither a path nor a name."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = {name: main.__dict__.get(name, _MISSING) for name in ("__file__", "__spec__")}
    main.__dict__.pop("__file__", None)
    main.__dict__["__spec__"] = None
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is _MISSING:
                main.__dict__.pop(name, None)
            else:
                main.__dict__[name] = value


def context(preload: Sequence[str]) -> Any:
    """The multiprocessing context children start with; a forkserver imports ``preload``
    before it forks the first."""
    if (getattr(sys, "frozen", False) or sys.platform == "darwin"
            or forced_start_method() == "spawn" or "forkserver" not in mp.get_all_start_methods()):
        return mp.get_context("spawn")
    forking = mp.get_context("forkserver")
    forking.set_forkserver_preload(list(preload))
    return forking
