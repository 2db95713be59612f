"""A DataLoader iterator's workers under a stop: waiting for a batch in slices, so that a stop
is heard while the workers are still starting or a slow ``__getitem__`` runs, and ending them at
once when it comes.

torch's iterator waits for a batch without end and, at its end, lets each worker finish the
batch in hand before it exits (up to 5 s each, then kills it). Neither suits a stop, which must
answer within the window's grace (workers/runner.py): the wait is cut into slices through the
iterator's own timeout, and a stop kills the workers before torch's shutdown, whose data is no
longer wanted. Both touch the iterator's private fields, checked for, so a torch without them
falls back to its own waits.
"""

from __future__ import annotations

from typing import Any

from iris_gui.engine.train.stopping import StopCheck, StopRequested

# A wait for a batch is cut into slices this long, the stop asked between them.
WAIT_SLICE_SECONDS = 0.05
TIMED_OUT = "DataLoader timed out"  # torch's words when a slice ends without a batch


def slice_waits(iterator: Any, on: bool) -> bool:
    """Make ``iterator`` wait for a batch in slices (``on``) or without end; whether it can.

    Off again at each epoch's end: a persistent iterator's start of the next epoch waits for
    its workers through the same timeout, and a slice ending there would break it."""
    if not hasattr(iterator, "_timeout") or not hasattr(iterator, "_shutdown_workers"):
        return False
    iterator._timeout = WAIT_SLICE_SECONDS if on else 0
    return True


def next_batch(iterator: Any, stopping: StopCheck | None, sliced: bool) -> Any:
    """The iterator's next batch, or None at the epoch's end. A stop asked for before it or
    during its wait ends the workers at once and raises StopRequested."""
    while True:
        if stopping is not None and stopping():
            end_workers(iterator, now=True)
            raise StopRequested
        try:
            return next(iterator, None)
        except RuntimeError as error:
            if not (sliced and str(error).startswith(TIMED_OUT)):
                raise
        # The slice ended with no batch yet: the stop is asked again (a slice outlasts the
        # poller's interval, so it is asked every time).


def end_workers(iterator: Any, now: bool = False) -> None:
    """End ``iterator``'s workers (nothing for a loader without workers). ``now`` kills them
    without letting them finish the batch in hand: after a stop nothing they make is read."""
    shutdown = getattr(iterator, "_shutdown_workers", None)
    if shutdown is None:
        return
    if now:
        if getattr(iterator, "_worker_pids_set", False):
            # torch watches its workers' pids and raises in this process when one dies of a
            # signal: these die of one on purpose.
            from torch.utils.data._utils import signal_handling

            signal_handling._remove_worker_pids(id(iterator))
            iterator._worker_pids_set = False
        for worker in getattr(iterator, "_workers", ()):
            if worker.is_alive():
                worker.terminate()
    shutdown()
