"""The estimate for a GPU that a CPU-only explain makes: its counts from a real CPU profile of
the note's run (their invariants, never a timing), the walk's rules on event trees shaped as
the profiler's, the record's round trip, and an older record without one."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import pytest
from torch.autograd import DeviceType

from iris_gui.engine.explain.explain import explain
from iris_gui.engine.explain.launch_estimate import count_launches, gpu_estimate
from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.gpu_estimate import (
    ESTIMATE_MARK,
    LAUNCH,
    LAUNCH_WDDM,
    NEXT_STEP,
    SYNC,
    SYNC_WDDM,
    WDDM_NOTE,
    GpuEstimate,
)
from iris_gui.engine.spec.config import RunConfig
from iris_gui.ui.panels.samples.breakdowns import cpu_breakdown, gpu_breakdown

SIZES = {"epochs": 20, "warmup": 5, "replicates": 1}


@pytest.fixture(scope="module")
def note_runs() -> dict[str, Breakdown]:
    """The note's run explained on this CPU, recording every epoch and never, and in batches."""
    return {"every-epoch": explain(RunConfig(), **SIZES),
            "none": explain(RunConfig(record="none"), **SIZES),
            "batch": explain(RunConfig(batch=32), **SIZES)}


def test_the_notes_run_would_launch_kernels_and_sync_once_an_epoch(note_runs) -> None:
    for record, syncs in (("every-epoch", 1.0), ("none", 0.0)):
        b = note_runs[record]
        e = b.gpu_estimate
        assert e is not None and e.estimated, record
        assert e.kernels_per_epoch > 0 and e.kernels_per_epoch == int(e.kernels_per_epoch)
        assert e.syncs_per_epoch == syncs == b.syncs_per_epoch, record
        assert e.launch == LAUNCH and e.sync == SYNC
        assert 0 < e.launch.low_us < e.launch.high_us and 0 < e.sync.low_us < e.sync.high_us
        assert e.overhead_low_us == pytest.approx(e.kernels_per_epoch * e.launch.low_us
                                                  + syncs * e.sync.low_us)
        assert 0 < e.overhead_low_us < e.overhead_high_us
        assert e.cpu_epoch_us == b.epoch_us_unprofiled  # set against the measured epoch
        sentence = b.estimate_sentences()[1]
        assert sentence.endswith(f"— an {ESTIMATE_MARK}.") and "measured for the whole" in sentence
    # The loss read is no launch: both recordings launch the same kernels.
    assert (note_runs["every-epoch"].gpu_estimate.kernels_per_epoch
            == note_runs["none"].gpu_estimate.kernels_per_epoch)


def test_a_run_of_batches_launches_a_whole_number_per_step_times_its_steps(note_runs) -> None:
    b = note_runs["batch"]
    e = b.gpu_estimate
    assert b.steps_per_epoch == e.steps_per_epoch == 4
    per_step = e.kernels_per_epoch / e.steps_per_epoch
    assert per_step > 0 and per_step == int(per_step)
    assert e.syncs_per_epoch == 4  # every step's loss.item()
    assert f"({per_step:.0f} per step × 4 steps)" in e.sentence()


def test_the_estimate_and_a_busy_stand_in_round_trip_through_json(note_runs) -> None:
    b = note_runs["every-epoch"]
    b.cpu_wait_share = 0.38  # a stand-in: the share as a busy machine's meter would give it
    data = json.loads(json.dumps(b.to_dict(), allow_nan=False))
    assert data["gpu_estimate"]["launch"]["source"] == LAUNCH.source
    again = Breakdown.from_dict(data)
    assert again == b and again.cpu_busy
    assert again.estimate_sentences() == b.estimate_sentences()


def test_an_older_record_without_an_estimate_or_a_wait_share_still_loads() -> None:
    data = json.loads(json.dumps(cpu_breakdown().to_dict()))
    for key in ("gpu_estimate", "cpu_wait_share"):
        data.pop(key)
    old = Breakdown.from_dict(data)
    assert old.gpu_estimate is None and math.isnan(old.cpu_wait_share) and not old.cpu_busy
    # No estimate to give, but what is missing here and how to measure it.
    assert old.estimate_sentences() == [
        "Kernel launches and how idle the device is cannot be measured here: no accelerator.",
        NEXT_STEP[0].upper() + NEXT_STEP[1:] + "."]
    for junk in ("estimate", 3, {"kernels_per_epoch": "many", "launch": {"low_us": "x"}}):
        loaded = Breakdown.from_dict({**data, "gpu_estimate": junk})
        assert loaded.gpu_estimate is None or loaded.gpu_estimate.launch == LAUNCH


def test_an_accelerators_breakdown_measures_instead_of_estimating() -> None:
    b = gpu_breakdown()
    assert b.gpu_estimate is None and b.estimate_sentences() == []
    assert not any(ESTIMATE_MARK in s for s in b.sentences())


@pytest.mark.parametrize("engine", ["compiled", "native", "persistent"])
def test_a_rung_whose_gpu_form_is_another_program_is_not_estimated(engine) -> None:
    e = gpu_estimate([], 10, RunConfig(engine=engine, record="device", optimizer="sgd"), 0.0,
                     1, 100.0)
    assert e.kernels_per_epoch is None and not e.estimated and e.unavailable
    assert math.isnan(e.overhead_low_us)
    assert e.sentence() == f"No GPU estimate: {e.unavailable}."
    assert GpuEstimate.from_dict(json.loads(json.dumps(e.to_dict()))) == e


def test_on_windows_the_estimate_is_priced_for_wddm_and_says_so() -> None:
    """A GPU on a Windows machine runs under WDDM (a GeForce laptop's cannot switch to TCC):
    the high ends double, the record keeps the ranges and their sources, the words say why."""
    events = tree([("iris::forward", ["aten::addmm", "aten::relu"])])
    config = RunConfig(record="device")
    linux = gpu_estimate(events, 1, config, 0.0, 1, 100.0, system="Linux")
    windows = gpu_estimate(events, 1, config, 0.0, 1, 100.0, system="Windows")
    assert (linux.launch, linux.sync) == (LAUNCH, SYNC) and WDDM_NOTE not in linux.notes
    assert (windows.launch.low_us, windows.launch.high_us) == (LAUNCH.low_us, 2 * LAUNCH.high_us)
    assert (windows.sync.low_us, windows.sync.high_us) == (SYNC.low_us, 2 * SYNC.high_us)
    assert (windows.launch, windows.sync) == (LAUNCH_WDDM, SYNC_WDDM)
    assert "pytorch/pytorch#110334" in windows.launch.source and WDDM_NOTE in windows.notes
    assert windows.kernels_per_epoch == linux.kernels_per_epoch
    assert windows.overhead_high_us > linux.overhead_high_us
    assert windows.overhead_low_us == linux.overhead_low_us
    assert GpuEstimate.from_dict(json.loads(json.dumps(windows.to_dict()))) == windows


# -- the walk's rules, on op trees shaped as the profiler reports them ----------------------

def tree(spec: list) -> list:
    """Events from nested (name, [children]) pairs; each a FunctionEvent look-alike."""
    events: list = []
    clock = [0]

    def make(item, parent) -> None:
        name, children = item if isinstance(item, tuple) else (item, [])
        event = SimpleNamespace(name=name, device_type=DeviceType.CPU, is_async=False,
                                cpu_parent=parent, time_range=SimpleNamespace(start=clock[0]))
        clock[0] += 1
        events.append(event)
        for child in children:
            make(child, event)
        event.time_range.end = clock[0]

    for item in spec:
        make(item, None)
    return events


LINEAR = ("aten::linear", [("aten::t", [("aten::transpose", ["aten::as_strided"])]),
                           ("aten::addmm", [("aten::expand", ["aten::as_strided"]),
                                            "aten::copy_", "aten::resolve_conj"])])


def test_an_op_is_one_launch_its_cpu_helpers_none_and_views_nothing() -> None:
    forward = ("iris::forward", [LINEAR, ("aten::relu", ["aten::clamp_min"]), LINEAR])
    assert count_launches(tree([forward])) == 3  # addmm, clamp_min, addmm
    loss = ("iris::loss", [("aten::cross_entropy_loss", [
        ("aten::log_softmax", ["aten::to", "aten::_log_softmax"]),
        ("aten::nll_loss_nd", [("aten::nll_loss", ["aten::nll_loss_forward"])])])])
    assert count_launches(tree([loss])) == 2  # "to" with nothing below casts nothing
    # Outside the loop's ranges nothing counts (the clock's syncs around the window).
    assert count_launches(tree(["aten::mm", ("ProfilerStep#1", ["aten::mm"])])) == 0


def test_a_per_parameter_optimizer_loop_counts_as_cudas_foreach_launches() -> None:
    def step(ops: list[str]) -> list:
        return tree([("iris::optimizer", [("Optimizer.step#SGD.step", ops)])])

    assert count_launches(step(["aten::add_"] * 4)) == 1
    assert count_launches(step(["aten::mul_", "aten::add_", "aten::add_"] * 4)) == 3
    assert count_launches(step(["aten::_fused_sgd_"])) == 1
    assert count_launches(step(["aten::add_", "aten::mul_", "aten::sqrt"])) == 3


def test_host_work_launches_nothing_on_any_device() -> None:
    resident = ("iris::data", [("aten::randperm", ["aten::empty"]), "aten::to",
                               ("aten::slice", ["aten::as_strided"]), "aten::index_select",
                               "aten::index_select"])
    assert count_launches(tree([resident])) == 2  # the order is drawn on the CPU
    loader = ("iris::data", ["aten::empty", "aten::random_", ("aten::item", [
        "aten::_local_scalar_dense"]), ("enumerate(DataLoader)#_SingleProcessDataLoaderIter",
                                        ["aten::stack", "aten::cat"]), "aten::to"])
    assert count_launches(tree([loader]), loader=True) == 0


def test_the_walk_counts_from_a_cuda_loops_host_ops_the_kernels_its_device_ran() -> None:
    # The CUDA event list the reduction is tested on (written after a CUDA profile of the
    # note's loop): its host ops, walked as a CPU profile's are, give the kernels its device
    # side holds (14 an epoch; its memset, zero_ inside nll_loss_backward, is no kernel), its
    # backward ops on autograd's own thread included.
    doc = json.loads((Path(__file__).parent / "data" / "cuda_loop_torch2.13.0.json").read_text())
    by_id = {raw["id"]: SimpleNamespace(
        name=raw["name"], device_type=DeviceType.__members__[raw["device"]],
        is_async=raw.get("is_async", False), cpu_parent=None,
        time_range=SimpleNamespace(start=raw["start"], end=raw["end"])) for raw in doc["events"]}
    for raw in doc["events"]:
        if "parent" in raw:
            by_id[raw["id"]].cpu_parent = by_id[raw["parent"]]
    kernels = sum(raw.get("activity_type") == "kernel" for raw in doc["events"])
    assert count_launches(list(by_id.values())) == kernels == 14 * doc["epochs"]
