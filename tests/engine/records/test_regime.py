"""The regime rule and the bytes rule (records/regime.py) on made-up steps and ceilings with
fixed figures: the note's run far below both roofs, steps the memory roof or the arithmetic
roof explains, and what cannot be placed. No test here measures anything."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.regime import (
    COMPUTE,
    MEMORY,
    OVERHEAD,
    UNPLACED,
    StepWork,
    place,
    step_bytes,
)
from iris_gui.engine.timing.stats import summarize


def ceilings(flops=90e9, one_thread=90e9, bandwidth=27e9, floor=2.8e-6, threads=1) -> Ceilings:
    """A CPU's ceilings as this project's machine measured them (rounded), fixed."""
    return Ceilings("cpu", "Test CPU", threads=threads, flops=summarize([flops]),
                    flops_one_thread=summarize([one_thread]), bandwidth=summarize([bandwidth]),
                    op_floor=summarize([floor]))


def test_the_bytes_rule_counts_each_use_once():
    # The note's 4-10-3 MLP: 83 parameters, plain SGD (no state), 120 rows of 4 features,
    # 23 activations a row (10 + 10 after ReLU + 3), float32.
    assert step_bytes(83, 0, 120 * 4, 120 * 23, 4) == 4 * (6 * 83 + 480 + 2 * 2760)
    assert step_bytes(83, 83, 0, 0, 4) - step_bytes(83, 0, 0, 0, 4) == 4 * 2 * 83  # momentum


def test_the_notes_run_is_overhead_bound_and_says_how_little_of_the_cpu_it_uses():
    # 40,800 FLOPs and 25,992 bytes a step; 38 ops at 2.8 µs = 106 µs of a 120 µs step.
    work = StepWork(flops=40_800, bytes=25_992, ops=38)
    placed = place(120e-6, work, ceilings(), threads=1)
    assert placed.regime == OVERHEAD
    assert placed.achieved_flops == pytest.approx(340e6)
    assert placed.flops_share == pytest.approx(340e6 / 90e9)
    assert placed.floor_share == pytest.approx(38 * 2.8e-6 / 120e-6)
    assert placed.intensity == pytest.approx(40_800 / 25_992)
    assert placed.sentence("this CPU") == ("overhead-bound: 0.38% of this CPU's measured 90 "
                                           "GFLOP/s; 38 ops a step at 2.8 µs each are 89% of "
                                           "the step")


def test_a_step_the_roofs_explain_is_memory_or_compute_bound_by_the_balance():
    roof = ceilings()  # balance 90e9 / 27e9 = 3.33 FLOPs per byte
    memory = place(1e-3, StepWork(flops=20e6, bytes=20e6, ops=40), roof)  # 741 µs of bytes
    compute = place(1e-3, StepWork(flops=80e6, bytes=2e6, ops=40), roof)  # 889 µs of FLOPs
    assert memory.regime == MEMORY and compute.regime == COMPUTE
    assert compute.flops_share == pytest.approx(80e9 / 90e9)
    assert memory.bandwidth_share == pytest.approx(20e9 / 27e9)
    assert memory.balance == pytest.approx(90e9 / 27e9)
    # The roofs explaining exactly half the step: no longer overhead-bound.
    half = place(2 * 20e6 / 27e9, StepWork(flops=1e6, bytes=20e6, ops=40), roof)
    assert half.regime == MEMORY
    # Far below both roofs, its ops at the floor a tenth of the step or more: overhead-bound.
    far = place(1e-3, StepWork(flops=2e6, bytes=2e6, ops=36), roof)
    assert far.regime == OVERHEAD and far.floor_share == pytest.approx(36 * 2.8e-6 / 1e-3)


def test_far_below_the_roofs_with_ops_that_explain_none_of_it_is_placed_by_intensity():
    # A CNN's step like one this project's benchmark measured: 20.8 GFLOPs and 269 MB in
    # 500 ms with 48 ops, at 43% of the arithmetic roof. Its ops at the floor are 0.02% of
    # the step: kernels below the roof, not overhead.
    roof = ceilings(flops=97e9, one_thread=97e9, bandwidth=23e9, floor=2.4e-6)
    cnn = place(0.5, StepWork(flops=20.8e9, bytes=269e6, ops=48), roof, threads=1)
    assert cnn.regime == COMPUTE and cnn.floor_share < 0.001
    # The same step with its ops not counted: the roofs alone decide.
    assert place(0.5, StepWork(20.8e9, 269e6, math.nan), roof, threads=1).regime == OVERHEAD
    # And below its balance, memory-bound.
    thin = place(0.1, StepWork(flops=20e6, bytes=200e6, ops=48), roof)
    assert thin.regime == MEMORY


def test_uncounted_ops_still_place_the_run_and_the_sentence_leaves_them_out():
    placed = place(120e-6, StepWork(flops=40_800, bytes=25_992, ops=math.nan), ceilings())
    assert placed.regime == OVERHEAD
    assert placed.sentence("this CPU") == "overhead-bound: 0.38% of this CPU's measured 90 GFLOP/s"


def test_one_thread_is_held_against_the_one_thread_roof_and_other_counts_are_refused():
    roof = ceilings(flops=180e9, one_thread=90e9, threads=2)
    work = StepWork(flops=80e6, bytes=2e6, ops=40)
    assert place(1e-3, work, roof, threads=1).peak_flops == 90e9
    assert place(1e-3, work, roof, threads=2).peak_flops == 180e9
    other = place(1e-3, work, roof, threads=4)
    assert other.regime == UNPLACED and "measured at 2 threads" in other.reason
    # And against one core's memory bandwidth where that was measured (16 of 27 GB/s).
    one_core = replace(roof, bandwidth_one_thread=summarize([16e9]))
    assert place(1e-3, work, one_core, threads=1).bandwidth_share == pytest.approx(2e9 / 16e9)
    assert place(1e-3, work, one_core, threads=2).bandwidth_share == pytest.approx(2e9 / 27e9)
    assert place(1e-3, work, roof, threads=1).bandwidth_share == pytest.approx(2e9 / 27e9)


def test_what_is_not_known_is_named_and_nothing_is_placed():
    work = StepWork(flops=math.nan, bytes=2e6, ops=math.nan)
    placed = place(1e-3, work, ceilings(bandwidth=math.nan))
    assert placed.regime == UNPLACED
    assert placed.reason == "its FLOPs, the memory roof not known"
    assert placed.sentence() == "not placed: its FLOPs, the memory roof not known"


def test_an_explained_step_is_placed_by_its_unprofiled_epoch_over_its_steps():
    from iris_gui.engine.records.breakdown import Breakdown
    from iris_gui.engine.records.regime import place_breakdown

    made = Breakdown.from_dict({
        "config": {"threads": 1, "precision": "float32"}, "device": "cpu",
        "device_name": "Test CPU", "epoch_us_unprofiled": 480.0, "steps_per_epoch": 4,
        "flops_per_step": 40_800, "bytes_per_step": 25_992, "ops_per_step": 38})
    placed = place_breakdown(made, [ceilings()])
    assert placed.regime == OVERHEAD and placed.achieved_flops == pytest.approx(340e6)
    assert placed.floor_share == pytest.approx(38 * 2.8e-6 / 120e-6)
    assert place_breakdown(made, []).reason == ("no ceilings of Test CPU at float32 are kept "
                                                "(iris-gui ceilings measures them)")
    older = Breakdown.from_dict({**made.to_dict(), "flops_per_step": None})
    assert place_breakdown(older, [ceilings()]).reason == "its FLOPs not known"


def test_a_noisy_or_busy_steps_placement_is_no_finding_and_one_not_placed_says_only_that():
    from support.made_ceilings import note_run, roofs

    from iris_gui.engine.records.breakdown import Breakdown
    from iris_gui.engine.records.regime import place_breakdown, place_run
    from iris_gui.engine.words.regime_words import explained_regime, regime_text

    noisy = note_run(iqr=30.0)
    assert regime_text(noisy, place_run(noisy, roofs())).startswith(
        "not a finding (noisy): overhead-bound: ")
    assert regime_text(noisy, place_run(noisy, None)).startswith("not placed: no ceilings of ")
    busy = Breakdown.from_dict({"config": {"threads": 1}, "device": "cpu",
                                "device_name": "Test CPU", "epoch_us_unprofiled": 120.0,
                                "cpu_wait_share": 0.5, "flops_per_step": 40_800,
                                "bytes_per_step": 25_992, "ops_per_step": 37})
    assert explained_regime(busy, place_breakdown(busy, [roofs()])).startswith(
        "not a finding (busy): overhead-bound: ")
    assert explained_regime(busy, place_breakdown(busy, [])).startswith("not placed: ")
