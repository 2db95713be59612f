"""A failed sweep point on an accelerator: the device is probed, a device that no longer answers
(a sticky CUDA error poisons every later call in the process) has its later points skipped
saying so, the other devices go on, and the worker process is replaced afterwards. A CPU cannot
raise a sticky CUDA error, so the device and the worker's messages are stood in for here; the
probe itself runs for real on a device this machine does not have."""

from __future__ import annotations

import pytest
import torch

from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.engine.sweep import sweep
from iris_gui.engine.sweep.sweep import device_fault, run_sweep
from iris_gui.engine.workers.runner import ProcessRunner

STICKY = "AcceleratorError: CUDA error: an illegal memory access was encountered"


def _fake_point(spec, device, engine, threads, rows, hidden, stop=None) -> SweepPoint:
    if device == "cuda:0" and rows == 1000:
        return SweepPoint(device, engine, threads, rows, hidden, "failed", message=STICKY)
    return SweepPoint(device, engine, threads, rows, hidden, "completed", epoch_us=50.0,
                      epochs=100)


def test_a_device_that_stops_answering_has_its_later_points_skipped(monkeypatch):
    probed = []

    def fault(device_id):
        probed.append(device_id)
        return STICKY if device_id == "cuda:0" else None

    monkeypatch.setattr(sweep, "series_of",
                        lambda spec: [("cpu", "eager", 1), ("cuda:0", "eager", None)])
    monkeypatch.setattr(sweep, "measure_point", _fake_point)
    monkeypatch.setattr(sweep, "device_fault", fault)
    result = run_sweep(SweepSpec(rows=(120, 1000, 2000, 4000), devices=("cpu",),
                                 engines=("eager",), threads=("1",), min_seconds=0.02))
    by_series = {}
    for point in result.points:
        by_series.setdefault(point.device, []).append(point)
    assert [p.status for p in by_series["cpu"]] == ["completed"] * 4
    assert [p.status for p in by_series["cuda:0"]] == ["completed", "failed", "skipped",
                                                       "skipped"]
    assert probed == ["cuda:0"]  # once, after the failure; not before every later point
    skipped = by_series["cuda:0"][2]
    assert skipped.message.startswith("not measured: cuda:0 stopped answering after an "
                                      "earlier point failed")
    assert STICKY in skipped.message and "\n" not in skipped.message
    assert skipped.flops_per_epoch > 0


def test_a_failed_point_on_a_device_that_still_answers_does_not_skip_the_rest(monkeypatch):
    monkeypatch.setattr(sweep, "series_of", lambda spec: [("cuda:0", "eager", None)])
    monkeypatch.setattr(sweep, "measure_point", _fake_point)
    monkeypatch.setattr(sweep, "device_fault", lambda device_id: None)
    result = run_sweep(SweepSpec(rows=(1000, 2000), devices=("cpu",), engines=("eager",),
                                 threads=("1",), min_seconds=0.02))
    assert [p.status for p in result.points] == ["failed", "completed"]


def test_the_probe_answers_for_the_cpu_and_names_what_is_wrong_with_a_device():
    assert device_fault("cpu") is None
    if torch.cuda.is_available():
        assert device_fault("cuda:0") is None
    else:  # a device this machine lacks fails the probe, in one line
        reason = device_fault("cuda:0")
        assert reason and "\n" not in reason


class _Connection:
    def __init__(self, messages):
        self.messages = list(messages)
        self.sent = []

    def send(self, message):
        self.sent.append(message)


@pytest.mark.parametrize("devices, point_device, replaced", [
    (("cpu", "cuda:0"), "cuda:0", True),  # a failed accelerator point: a fresh worker next
    (("cpu",), "cpu", False),  # a failed CPU point poisons nothing
])
def test_the_worker_is_replaced_after_a_failed_accelerator_point(monkeypatch, devices,
                                                                 point_device, replaced):
    spec = SweepSpec(rows=(120,), devices=devices, engines=("eager",), threads=("1",))
    failed = SweepPoint(point_device, "eager", None, 120, 10, "failed", message=STICKY)
    answer = SweepResult(spec, points=[failed]).to_dict()
    runner = ProcessRunner()
    connection = _Connection([("sweep-result", answer)])
    closed = []
    monkeypatch.setattr(runner, "start", lambda: None)
    monkeypatch.setattr(runner, "_receive", lambda: connection.messages.pop(0))
    monkeypatch.setattr(runner, "close", lambda: closed.append(True))
    runner._conn = connection
    result = runner.sweep(spec)
    assert connection.sent[0][0] == "sweep"
    assert [p.status for p in result.points] == ["failed"]
    assert closed == ([True] if replaced else [])
