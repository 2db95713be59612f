"""A process of ours started from someone else's program (a script or a notebook using the
API): the window's worker (workers/runner.py) or a data-parallel run's ranks (launch.py) must
not run that program again.

A spawned or forkserver child is prepared by importing the parent's main module, by path
or by name, as ``__mp_main__``: a script without ``if __name__ == "__main__":`` would run its
calls again in the child, which multiprocessing then refuses ("An attempt has been made to
start a new process before the current process has finished its bootstrapping phase"). The
child needs nothing from the main module (its target and arguments are the package's and
plain data), so while it starts the main module is left out of what the child prepares.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

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
