"""explain(): the profiled breakdown, its sync counts (read from profiler events), the paired
costs, and the reduction of accelerator events (checked here with events shaped as torch's
profiler emits them, since this machine may have no accelerator)."""

import json
import math
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest
import torch
from support.accounting import assert_accounted
from torch.autograd import DeviceType

from iris_gui.engine.explain.explain import explain
from iris_gui.engine.explain.profile_reduce import reduce_window
from iris_gui.engine.records.breakdown import NO_ACCELERATOR, PHASED_CATEGORIES, Breakdown
from iris_gui.engine.spec.config import ConfigError, RunConfig

WINDOW = 100
# Small, so the file stays quick on two slow cores; the figures asserted do not depend on it.
SIZES = {"epochs": WINDOW, "warmup": 20, "replicates": 3}
MEASURED = ("forward", "loss", "backward", "optimizer", "recording")


@pytest.fixture(scope="module")
def cpu_breakdowns() -> dict[str, Breakdown]:
    return {record: explain(RunConfig(record=record), **SIZES)
            for record in ("every-epoch", "every:10", "none", "device")}


def test_categories_add_up_to_the_profiled_epoch(cpu_breakdowns):
    for record, b in cpu_breakdowns.items():
        assert tuple(b.categories) == PHASED_CATEGORIES
        # ``python`` is measured (gaps between phases on the profiler's timeline), not the
        # remainder, so this compares the reduction with a clock it never read.
        assert_accounted(b.categories, b.epoch_us_profiled, b.accounted_pct, b.notes)
        for name in MEASURED:
            assert b.categories[name] > 0, (record, name)
        # How big a share the host's gaps take is the machine's load, not a rule: a part of
        # the measured whole, no more.
        total = sum(b.categories.values())
        assert 0 < b.categories["python"] < total and math.isfinite(total), (record, b.categories)


@pytest.mark.parametrize("record, syncs", [("every-epoch", 1.0), ("every:10", 0.1),
                                           ("none", 0.0), ("device", 0.0)])
def test_syncs_per_epoch_follow_the_recording_choice(cpu_breakdowns, record, syncs):
    assert cpu_breakdowns[record].syncs_per_epoch == pytest.approx(syncs)


def test_optimizer_step_counters_are_not_syncs():
    # Adam reads its host-side step counters with .item(); they wait for no device.
    b = explain(RunConfig(record="none", optimizer="adam"), epochs=20, warmup=5, replicates=1)
    assert b.syncs_per_epoch == 0


def test_paired_costs_and_unprofiled_time_are_measured(cpu_breakdowns):
    for record, b in cpu_breakdowns.items():
        assert b.epoch_us_unprofiled > 0 and b.epoch_us_profiled > 0
        # The overhead compares the two epochs the breakdown reports, and its note says so.
        assert b.profiler_overhead_pct == pytest.approx(
            (b.epoch_us_profiled - b.epoch_us_unprofiled) / b.epoch_us_unprofiled * 100)
        assert (f"({b.epoch_us_profiled:,.0f} µs profiled, {b.epoch_us_unprofiled:,.0f} µs "
                "unprofiled)") in b.notes[0], (record, b.notes)
        for us, pct in ((b.sync_cost_us, b.sync_cost_pct), (b.call_cost_us, b.call_cost_pct)):
            assert math.isfinite(us) and math.isfinite(pct) and (us > 0) == (pct > 0), record
    # With record every-epoch the run itself is the variant that pays for the sync, so the
    # sync's share is of the reported unprofiled epoch.
    b = cpu_breakdowns["every-epoch"]
    assert b.sync_cost_pct == pytest.approx(b.sync_cost_us / b.epoch_us_unprofiled * 100)


# Unprofiled µs per epoch of each paired variant, block by block, for record every-epoch with
# call forward. The per-block differences' medians (sync 10, call 16) differ from the
# differences of the medians (1 and 26) and from the mean differences, so only the pairing
# gives them; each share is of the paying variant's median epoch (104 for the sync, 130 for
# the call).
PAIRED_TIMES = {
    ("every-epoch", "forward"): [100.0, 104.0, 300.0],
    ("none", "forward"): [90.0, 103.0, 110.0],
    ("every-epoch", "call"): [130.0, 120.0, 140.0],
}


def test_paired_costs_are_medians_of_paired_blocks(monkeypatch):
    from iris_gui.engine.explain import explain as explain_module

    monkeypatch.setattr(explain_module, "_paired", lambda *args, **kwargs: PAIRED_TIMES)
    b = explain(RunConfig(record="every-epoch", call="forward"), epochs=10, warmup=0,
                replicates=1)
    assert b.epoch_us_unprofiled == 104.0
    assert b.sync_cost_us == 10.0 and b.sync_cost_pct == pytest.approx(10 / 104 * 100)
    assert b.call_cost_us == 16.0 and b.call_cost_pct == pytest.approx(16 / 130 * 100)
    sync, call = b.sentences()
    assert "costs 10 µs per epoch (9.6% of the epoch)" in sync
    assert "costs 16 µs per epoch (12% of the epoch)" in call


def test_cpu_says_what_it_cannot_measure(cpu_breakdowns):
    b = cpu_breakdowns["every-epoch"]
    for name in ("kernels_per_epoch", "launch_us_per_epoch", "device_busy_us_per_epoch",
                 "device_busy_pct", "sync_wait_us_per_epoch", "copies_per_epoch",
                 "copy_bytes_per_epoch"):
        assert getattr(b, name) is None, name
    sync, call = b.sentences()
    assert sync.startswith("Syncing the loss every epoch") and "µs per epoch" in sync
    assert "1 sync per epoch" in sync
    assert "nn.Module.__call__" in call and "µs per epoch" in call
    # The launch and idleness claims stand with the estimate that answers them instead.
    missing, estimate, step = b.estimate_sentences()
    assert missing == f"Kernel launches and how idle the device is {NO_ACCELERATOR}."
    assert estimate.startswith("On a GPU this epoch would launch about ")
    assert estimate.endswith("— an estimate, not a measurement.")
    assert step == ("Measure it: add a GPU host (Hosts…) or run scripts/gpu_check.sh on a GPU "
                    "server.")


def test_breakdown_round_trips_through_json(cpu_breakdowns):
    b = cpu_breakdowns["every:10"]
    data = json.loads(json.dumps(b.to_dict(), allow_nan=False))
    again = Breakdown.from_dict({**data, "unknown_future_key": 1})
    assert again == b and list(again.categories) == list(PHASED_CATEGORIES)
    assert again.sentences() == b.sentences()


def test_breakdown_reads_without_torch(cpu_breakdowns):
    script = textwrap.dedent("""
        import importlib.abc, json, sys
        class NoTorch(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "torch":
                    raise ImportError("torch is blocked in this test")
        sys.meta_path.insert(0, NoTorch())
        from iris_gui.engine.records.breakdown import Breakdown
        print(len(Breakdown.from_dict(json.loads(sys.stdin.read())).sentences()))
    """)
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(
        cpu_breakdowns["none"].to_dict()), capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2"  # on the CPU: the sync and the call


@pytest.mark.parametrize("sizes", [{"epochs": 9}, {"epochs": 100_001}, {"warmup": -1},
                                   {"replicates": 0}, {"epochs": 50.0}])
def test_bad_window_is_refused(sizes):
    with pytest.raises(ConfigError, match="is not allowed"):
        explain(RunConfig(), **sizes)


def _event(name, start, end, device=DeviceType.CPU, kind="cpu_op", parent=None, size=None):
    return SimpleNamespace(
        name=name, time_range=SimpleNamespace(start=start, end=end), device_type=device,
        activity_type=kind, is_async=False, cpu_parent=parent,
        event_metadata=None if size is None else SimpleNamespace(bytes=size))


def test_accelerator_events_reduce_to_kernels_launches_busy_time_and_copies():
    """Two CUDA epochs as torch.profiler reports them: phase ranges on the host, runtime calls,
    kernels and a device-to-host copy on the device, and the window clock's synchronize
    outside the phases (not a sync of the loop)."""
    cuda, events = DeviceType.CUDA, [_event("cudaDeviceSynchronize", 0, 5, kind="cuda_runtime")]
    for epoch in range(2):
        t = 10 + 100 * epoch
        events += [
            _event("iris::forward", t, t + 20, kind="user_annotation"),
            _event("iris::forward", t, t + 20, device=cuda, kind="gpu_user_annotation"),
            _event("cudaLaunchKernel", t + 2, t + 8, kind="cuda_runtime"),
            _event("cuLaunchKernel", t + 3, t + 7, kind="cuda_driver"),  # inside the runtime call
            _event("cudaLaunchKernelExC_v11060", t + 10, t + 16, kind="cuda_runtime"),
            _event("gemm_kernel", t + 9, t + 14, device=cuda, kind="kernel"),
            _event("relu_kernel", t + 17, t + 19, device=cuda, kind="kernel"),
            _event("iris::loss", t + 25, t + 30, kind="user_annotation"),
            _event("iris::backward", t + 32, t + 50, kind="user_annotation"),
            _event("iris::optimizer", t + 52, t + 60, kind="user_annotation"),
            _event("iris::recording", t + 62, t + 90, kind="user_annotation"),
            read := _event("aten::_local_scalar_dense", t + 63, t + 89),
            _event("cudaMemcpyAsync", t + 64, t + 66, kind="cuda_runtime", parent=read),
            _event("cudaStreamSynchronize", t + 66, t + 88, kind="cuda_runtime", parent=read),
            _event("Memcpy DtoH (Device -> Pageable)", t + 70, t + 71, device=cuda,
                   kind="gpu_memcpy", size=4),
            _event("Memcpy DtoD (Device -> Device)", t + 80, t + 81, device=cuda, kind="gpu_memcpy"),
        ]
    events.append(_event("cudaDeviceSynchronize", 200, 205, kind="cuda_runtime"))
    f = reduce_window(events, 2, "cuda", loss_bytes=4)
    assert f.categories == {"forward": 20, "loss": 5, "backward": 18, "optimizer": 8,
                            "recording": 28, "python": (11 * 2 + 10) / 2}
    assert f.syncs_per_epoch == 1 and f.sync_wait_us_per_epoch == 2 + 22
    assert f.kernels_per_epoch == 2 and f.launch_us_per_epoch == 12
    assert f.device_busy_us_per_epoch == 5 + 2 + 1 + 1
    assert f.copies_per_epoch == 1 and f.copy_bytes_per_epoch == 4
    assert f.notes == []


def test_accelerator_without_device_events_says_so():
    events = [_event("iris::forward", 0, 10, kind="user_annotation")]
    f = reduce_window(events, 1, "cuda", loss_bytes=4)
    assert f.kernels_per_epoch is None and f.device_busy_us_per_epoch is None
    assert "saw no work" in f.notes[0]


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
@pytest.mark.parametrize("record, syncs", [("every-epoch", 1.0), ("device", 0.0)])
def test_cuda_breakdown_counts_kernels_idleness_and_syncs(record, syncs):
    b = explain(RunConfig(device="cuda", record=record), **SIZES)
    assert b.kernels_per_epoch > 0 and b.launch_us_per_epoch > 0
    assert b.device_busy_us_per_epoch > 0
    assert b.device_busy_pct == pytest.approx(
        min(100.0, b.device_busy_us_per_epoch / b.epoch_us_unprofiled * 100))
    assert b.syncs_per_epoch == pytest.approx(syncs)
    if record == "every-epoch":
        assert b.copies_per_epoch >= 1 and b.sync_wait_us_per_epoch > 0
    assert NO_ACCELERATOR not in " ".join(b.sentences())
