"""A device's ceilings, measured here with short replicates: their shapes and invariants
(every figure a median of its replicates with a spread, in SI units; the thread count put back;
the record's round trip), never what the figures are. CUDA's host copies and syncs are skipped
without a GPU."""

from __future__ import annotations

import json
import math

import pytest
import torch

from iris_gui.engine.ceilings.measure import measure_ceilings
from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.spec.errors import RecordError
from iris_gui.engine.train.devices import DeviceUnavailable

QUICK = {"replicates": 3, "target_seconds": 0.004, "copy_bytes": 2**20}


@pytest.fixture(scope="module")
def cpu() -> Ceilings:
    told: list[str] = []
    found = measure_ceilings("cpu", threads=2, tell=told.append, **QUICK)
    found.methods["told"] = ", ".join(told)
    return found


def test_each_cpu_figure_is_a_median_of_its_replicates(cpu):
    names = [name for name, *_ in cpu.measured()]
    assert names == ["flops", "flops_one_thread", "bandwidth", "bandwidth_one_thread", "op_floor"]
    for _name, _what, _unit, figure in cpu.measured():
        assert figure.n == 3 and figure.iqr >= 0
        assert 0 < figure.minimum <= figure.median <= figure.maximum < math.inf
    assert cpu.methods["told"] == ("arithmetic, arithmetic, one thread, memory, memory, one "
                                   "thread, per-op floor")
    assert cpu.methods["flops"].startswith("torch.mm of two ")
    assert cpu.balance == pytest.approx(cpu.flops.median / cpu.bandwidth.median)
    assert (cpu.device, cpu.threads, cpu.precision) == ("cpu", 2, "float32")
    assert cpu.key == (cpu.device_name, str(torch.__version__), 2, "float32")
    # A CPU has no host copies or syncs to measure.
    assert cpu.to_device.n == cpu.copy_latency.n == cpu.sync_latency.n == 0


def test_the_thread_count_is_put_back_and_the_wait_for_a_core_is_read(cpu):
    before = torch.get_num_threads()
    measure_ceilings("cpu", threads=1, **QUICK)
    assert torch.get_num_threads() == before
    assert math.isnan(cpu.cpu_wait_share) or 0 <= cpu.cpu_wait_share <= 1


def test_the_record_round_trips_and_a_bad_one_is_named(cpu):
    record = json.loads(json.dumps(cpu.to_dict(), allow_nan=False))
    assert record["to_device"]["median"] is None  # not measured
    assert Ceilings.from_dict(record).to_dict() == cpu.to_dict()
    record["bandwidth"] = "fast"
    with pytest.raises(RecordError, match="the ceiling bandwidth is 'fast'"):
        Ceilings.from_dict(record)
    with pytest.raises(RecordError, match="device_name"):
        Ceilings.from_dict({"device": "cpu"})


def test_a_device_that_is_not_here_is_one_line():
    with pytest.raises(DeviceUnavailable, match="device 'cuda:7' is not available here"):
        measure_ceilings("cuda:7", **QUICK)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_an_accelerator_also_measures_its_host_copies_and_syncs():
    found = measure_ceilings("cuda:0", **QUICK)
    names = {name for name, *_ in found.measured()}
    assert {"to_device", "to_host", "copy_latency", "sync_latency"} <= names
    assert found.flops_one_thread.n == 0
