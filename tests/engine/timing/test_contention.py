"""The wait for a core, read per chunk: the meter on made-up counts, a system without the
kernel's counts (not measured, never quiet), the sentence, and a run's record and ladder row
carrying the share and the flag."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from iris_gui.engine.records.ladder import ladder_rows
from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.records.standing_words import busy_sentence
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.timing import contention
from iris_gui.engine.timing.contention import BUSY_SHARE, WaitMeter, is_busy, is_measured
from iris_gui.engine.train.trainer import train


class Counts:
    """Cumulative (running, waiting) nanoseconds: each read adds one chunk's worth."""

    def __init__(self, run_ns: int, wait_ns: int) -> None:
        self.step = (run_ns, wait_ns)
        self.now = (0, 0)

    def __call__(self) -> tuple[int, int]:
        self.now = (self.now[0] + self.step[0], self.now[1] + self.step[1])
        return self.now


def test_the_meter_adds_up_the_share_of_waiting_over_its_chunks():
    counts = Counts(run_ns=30_000_000, wait_ns=10_000_000)
    meter = WaitMeter(source=counts)
    meter.mark()
    for _ in range(3):
        meter.close()
    assert meter.share == pytest.approx(0.25)
    counts.step = (30_000_000, 0)  # the other work ended: the share falls as chunks go on
    for _ in range(3):
        meter.close()
    assert meter.share == pytest.approx(30 / (180 + 30))


def test_without_the_kernels_counts_nothing_is_measured_however_the_thread_spent_its_time():
    meter = WaitMeter(source=lambda: None)
    meter.mark()
    time.sleep(0.01)  # blocking, which a CPU-time-against-wall-time guess would call waiting
    total = 0
    while total < 1e6:  # and some CPU work
        total += sum(range(1000))
    meter.close(last=True)
    assert math.isnan(meter.share) and not meter.measurable
    assert not is_measured(meter.share) and not is_busy(meter.share)


def test_with_proc_hidden_the_kernels_counts_are_not_found(monkeypatch, tmp_path):
    monkeypatch.setattr(contention, "_TASKS", str(tmp_path / "no-proc"))
    assert contention.read_schedstat() is None
    assert not WaitMeter().measurable


def test_a_run_on_a_system_without_the_counts_is_neither_quiet_nor_busy(monkeypatch):
    monkeypatch.setattr(contention, "_TASKS", "/nonexistent/proc/self/task")
    result = train(RunConfig(epochs=300))
    t = result.timings
    assert math.isnan(t.cpu_wait_share) and not t.load_measured and not t.cpu_busy
    record = result.to_dict()
    assert record["cpu_busy"] is None and record["timings"]["cpu_wait_share"] is None
    assert record["contention"] == ""  # the busy sentence: nothing to say about a busy CPU
    again = RunResult.from_dict(record)
    assert not again.timings.load_measured


def test_the_threshold_and_the_sentence():
    assert not is_busy(None) and not is_busy(math.nan) and not is_busy(BUSY_SHARE / 2)
    assert is_busy(BUSY_SHARE) and is_busy(0.5)
    assert busy_sentence(0.05) == ""
    assert busy_sentence(0.38) == ("the CPU was busy with other work for 38% of this run: "
                                   "timings are not comparable")
    assert busy_sentence(0.38, threads=4, free=1.5) == (
        "the CPU was busy with other work for 38% of this run (4 threads asked, about 1.5 cores "
        "free at the start): timings are not comparable")
    assert "threads asked" not in busy_sentence(0.38, threads=2, free=3.0)


def test_reading_every_thread_of_this_process_works_here():
    counts = contention.read_schedstat()
    if counts is None:
        pytest.skip("this kernel does not publish /proc/self/task/*/schedstat")
    later = contention.read_schedstat()
    assert later[0] >= counts[0] > 0 and later[1] >= counts[1] >= 0


def test_a_trained_run_carries_its_share_into_its_record(monkeypatch):
    # A machine whose other work holds the core for a third of every chunk.
    monkeypatch.setattr(contention, "read_schedstat", Counts(20_000_000, 10_000_000))
    result = train(RunConfig(epochs=300))
    assert result.timings.cpu_wait_share == pytest.approx(1 / 3)
    assert result.timings.cpu_busy
    record = result.to_dict()
    assert record["timings"]["cpu_wait_share"] == pytest.approx(1 / 3)
    assert record["cpu_busy"] is True
    assert record["contention"].startswith("the CPU was busy with other work for 33% of this run")
    again = RunResult.from_dict(record)
    assert again.timings.cpu_busy and again.contention == result.contention


def test_an_old_record_without_the_share_loads_as_not_measured():
    record = RunResult(RunConfig(epochs=10), RunStatus.COMPLETED).to_dict()
    del record["timings"]["cpu_wait_share"], record["timings"]["cpu_cores_free"]
    del record["cpu_busy"], record["contention"]
    old = RunResult.from_dict(record)
    assert math.isnan(old.timings.cpu_wait_share) and not old.timings.cpu_busy
    assert old.contention == "" and old.to_dict()["timings"]["cpu_wait_share"] is None


def _run(engine: str, share: float) -> RunResult:
    record = "every-epoch" if engine == "eager" else "device"
    return RunResult(RunConfig(epochs=10, engine=engine, record=record), RunStatus.COMPLETED,
                     timings=Timings(epoch_us=50.0, cpu_wait_share=share),
                     losses=np.ones(10, np.float32))


def test_a_ladder_row_carries_the_flag_and_the_sentence_for_its_bar():
    quiet, busy = ladder_rows([_run("eager", 0.01), _run("manual", 0.4)])
    assert (quiet.cpu_busy, quiet.contention, quiet.cpu_wait_share) == (False, "", 0.01)
    assert busy.cpu_busy and busy.cpu_wait_share == 0.4
    assert busy.contention == ("the CPU was busy with other work for 40% of this run: "
                               "timings are not comparable")
    assert busy.to_dict()["cpu_busy"] is True


def test_a_costly_read_is_made_at_every_few_boundaries_and_the_last_without_losing_time():
    counts = Counts(run_ns=30_000_000, wait_ns=10_000_000)
    meter = WaitMeter(source=counts)
    meter.every = 3  # as if a read cost 3x its budget
    meter.mark()
    reads = counts.now
    meter.close()
    meter.close()
    assert counts.now == reads and math.isnan(meter.share)
    meter.close()
    meter.close(last=True)
    assert meter.totals.busy == 2 * 30_000_000 and meter.share == pytest.approx(0.25)


def test_an_interval_in_which_a_thread_ended_is_not_read():
    readings = iter([(0, 0), (0, 0), (100, 50), (400, 100), (150, 20), (450, 120)])
    meter = WaitMeter(source=lambda: next(readings))  # the first: a probe
    meter.mark()
    meter.close()  # 100 ran, 50 waited
    meter.close()  # 300 ran, 50 waited
    meter.close()  # a thread left with its counts: negative, not read
    meter.close()  # 300 ran, 100 waited
    assert (meter.totals.busy, meter.totals.waited) == (700, 200)
