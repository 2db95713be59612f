import math

import pytest
import torch

from iris_gui.engine.records.compare import compare_groups, find_baseline, speedup
from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import ConfigError, RunConfig
from iris_gui.engine.timing.stats import summarize
from iris_gui.engine.train.devices import DeviceUnavailable, discover_devices, resolve_device


def test_cpu_is_always_discovered_first():
    devices = discover_devices()
    assert devices[0].id == "cpu" and devices[0].kind == "cpu" and devices[0].name
    assert resolve_device("CPU").id == "cpu"


def test_absent_device_names_the_available_ones():
    with pytest.raises(DeviceUnavailable) as caught:
        resolve_device("cuda:7")
    assert "cuda:7" in str(caught.value) and "available: cpu" in str(caught.value)
    with pytest.raises(DeviceUnavailable):
        resolve_device("quantum")


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_cuda_devices_carry_name_memory_and_capability():
    cuda = [d for d in discover_devices() if d.kind == "cuda"]
    assert cuda and cuda[0].id == "cuda:0" and cuda[0].total_memory_bytes > 0
    assert resolve_device("cuda").id == "cuda:0"


def test_summary_is_median_and_iqr():
    s = summarize([1.0, 2.0, 3.0, 4.0, 100.0, math.nan])
    assert s.median == 3.0 and s.n == 5 and s.iqr == pytest.approx(2.0)
    assert s.noisy
    assert not summarize([10.0, 10.1, 9.9]).noisy
    assert summarize([]).n == 0 and math.isnan(summarize([]).median)


def _result(device: str, seconds: float, epoch_us: float, epochs: int = 100) -> RunResult:
    return RunResult(config=RunConfig(device=device, epochs=epochs), status=RunStatus.COMPLETED,
                     epochs_completed=epochs,
                     timings=Timings(train_seconds=seconds, epoch_us=epoch_us))


def test_speedup_compares_time_per_epoch_against_the_baseline():
    assert speedup(3.0, 1.0) == 3.0
    assert math.isnan(speedup(math.nan, 1.0)) and math.isnan(speedup(1.0, 0.0))
    # Row "a" has three skewed replicates: its medians (3.0 s, 25 µs) are neither the means
    # (5.0 s, 45 µs) nor an extreme, so only a median gives the numbers below.
    slow = [_result("a", 3.0, 25.0), _result("a", 2.0, 20.0), _result("a", 10.0, 90.0)]
    rows = compare_groups([[_result("cpu", 1.0, 10.0)], slow,
                           [_result("b", 0.25, 2.5, epochs=50)]])
    # speedup: of the steady state (median µs/epoch); total_speedup: of the loop's s/epoch.
    assert [r.speedup for r in rows] == [1.0, pytest.approx(0.4), pytest.approx(4.0)]
    assert [r.total_speedup for r in rows] == [1.0, pytest.approx(1 / 3), pytest.approx(2.0)]
    a = rows[1]
    assert (a.train_seconds.median, a.train_seconds.minimum, a.train_seconds.maximum) == (
        3.0, 2.0, 10.0)
    assert a.epoch_us.median == 25.0 and a.epoch_us.n == 3
    assert a.representative is slow[0]  # the replicate closest to the median loop time
    rows = compare_groups([[_result("cpu", 1.0, 10.0)], [_result("a", 2.0, 20.0)]], baseline=1)
    assert [r.speedup for r in rows] == [2.0, 1.0]
    assert [r.total_speedup for r in rows] == [2.0, 1.0]


def test_baseline_is_chosen_by_number_or_label_prefix():
    labels = ["cpu/every-epoch/forward", "cpu/none/forward", "cuda:0/none/forward"]
    assert find_baseline(labels, None) == 0
    assert find_baseline(labels, "3") == 2
    assert find_baseline(labels, "cpu/none") == 1
    with pytest.raises(ConfigError, match="matches no row"):
        find_baseline(labels, "tpu")
