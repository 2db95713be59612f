"""The far end's stop for one job, and what SIGTERM does to it (stdio_worker.JobStop)."""

from __future__ import annotations

import threading

from iris_gui.engine.remote.stdio_worker import JobStop


def test_a_stop_names_its_job_and_a_later_job_is_not_stopped() -> None:
    stop = JobStop()
    stop.request(2)  # a stop may arrive before its job
    stop.current = 1
    assert not stop.is_set()
    stop.finish(1)
    stop.current = 2
    assert stop.is_set()
    stop.finish(2)
    stop.current = 3
    assert not stop.is_set()


def test_terminate_stops_the_running_job_and_keeps_the_process_until_it_has_answered() -> None:
    stop = JobStop()
    stop.current, stop.busy = 5, True
    assert stop.terminate() is False  # its answer is still to be sent
    assert stop.is_set() and stop.terminated
    assert stop.terminate() is False  # Slurm's second SIGTERM changes nothing
    stop.finish(5)
    assert stop.terminate() is False  # finished, but the answer is not out yet
    stop.busy = False
    assert stop.terminate() is True  # idle: the process may end at once


def test_terminate_takes_no_lock_so_a_signal_inside_is_set_cannot_deadlock() -> None:
    """A signal handler runs in the main thread between bytecodes, perhaps while that thread
    holds the lock that ``is_set`` takes: ``terminate`` must not wait for it."""
    stop = JobStop()
    stop.current, stop.busy = 1, True
    done = threading.Event()
    with stop._lock:  # the main thread inside is_set when the signal lands
        worker = threading.Thread(target=lambda: (stop.terminate(), done.set()))
        worker.start()
        assert done.wait(5), "terminate waited for the lock is_set holds"
    worker.join()
    assert stop.is_set()
