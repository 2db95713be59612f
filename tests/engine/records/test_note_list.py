"""The note's list answered from sweeps: made-up points with known crossings, never timings."""

from __future__ import annotations

import math

import pytest

from iris_gui.engine.records import note_list
from iris_gui.engine.records.note_list import ITEMS, answer, answers, item, pick_sweep
from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec


def _point(device: str, rows: int, us: float, hidden: int = 10, batch: int = 0,
           busy: float = 0.0) -> SweepPoint:
    threads = 2 if device == "cpu" else None
    return SweepPoint(device, "eager", threads, rows, hidden, "completed", epoch_us=us,
                      epochs=20, flops_per_epoch=float(rows * hidden * 100),
                      cpu_wait_share=busy, batch=batch)


def _rows_sweep(cpu: list[float], gpu: list[float] | None, busy: float = 0.0) -> SweepResult:
    rows = (150, 1_500, 15_000, 150_000)
    points = [_point("cpu", r, us, busy=busy) for r, us in zip(rows, cpu, strict=True)]
    if gpu is not None:
        points += [_point("cuda:0", r, us) for r, us in zip(rows, gpu, strict=True)]
    return SweepResult(SweepSpec(rows=rows, hidden=(10,)), points=points).analyse()


def test_every_item_is_a_sweep_along_its_axis_and_answered_by_its_own_spec() -> None:
    assert [i.key for i in ITEMS] == ["data", "mlp", "cnn", "transformer", "batch", "world"]
    for each in ITEMS:
        assert each.answered_by(each.spec), each.key
        assert each.spec.engines == ("eager",)
        # The GPU's items on every device; the processes' on the CPU, where worlds apply.
        assert each.spec.devices == (("cpu",) if each.across_worlds else ("all",))
    assert "parallel maths" in note_list.PARALLEL_MATHS


def test_a_crossing_where_the_gpu_overtakes_the_cpu_is_the_answer_with_its_place() -> None:
    # The CPU is faster at 150 and 1,500 rows, the GPU from 15,000: it crosses in between.
    result = _rows_sweep(cpu=[40, 90, 900, 9_000], gpu=[120, 130, 200, 600])
    found = answer("data", result, sweep_id=7)
    assert found.state == "crossing"
    assert found.at is not None and 1_500 < found.at < 15_000
    assert found.text.startswith("sweep 7: cuda:0/eager overtakes cpu/eager/2 threads from ~")
    assert "rows (hidden 10)" in found.text


def test_a_gpu_slower_throughout_says_so_over_the_measured_range() -> None:
    found = answer("data", _rows_sweep(cpu=[10, 20, 30, 40], gpu=[100, 100, 100, 100]))
    assert found.state == "throughout" and found.at is None
    assert found.text == ("cpu/eager/2 threads was faster than cuda:0/eager throughout "
                          "150 rows to 150,000 rows (hidden 10)")


def test_a_cpu_only_sweep_says_only_the_cpu_was_measured_and_what_a_gpu_would_add() -> None:
    found = answer("data", _rows_sweep(cpu=[10, 20, 30, 40], gpu=None), sweep_id=3)
    assert found.state == "cpu only"
    assert found.text == "sweep 3: " + note_list.CPU_ONLY.format(
        " (cpu/eager/2 threads: 10 µs per epoch at 150 rows, 40 µs at 150,000 rows)")
    assert answer("mlp", None).state == "unmeasured"


def test_a_busy_cpu_figure_in_an_answer_is_marked_as_everywhere() -> None:
    """The GPU wins? tab and ``wins`` print the CPU's range: a figure measured on a busy CPU
    carries the mark every table gives it."""
    found = answer("data", _rows_sweep(cpu=[10, 20, 30, 40], gpu=None, busy=0.5), sweep_id=3)
    assert found.text == "sweep 3: " + note_list.CPU_ONLY.format(
        " (cpu/eager/2 threads: 10 µs per epoch ⚠ CPU busy at 150 rows, 40 µs ⚠ CPU busy at "
        "150,000 rows)")


def test_a_crossing_drawn_from_busy_points_is_not_a_finding() -> None:
    result = _rows_sweep(cpu=[40, 90, 900, 9_000], gpu=[120, 130, 200, 600], busy=0.9)
    found = answer("data", result)
    assert found.state == "not a finding" and found.at is None
    assert found.text.startswith("not a finding: measured while the CPU was busy: ")


def test_the_newest_sweep_with_an_accelerator_answers_before_a_newer_cpu_only_one() -> None:
    on_gpu = _rows_sweep(cpu=[40, 90, 900, 9_000], gpu=[120, 130, 200, 600])
    cpu_only = _rows_sweep(cpu=[40, 90, 900, 9_000], gpu=None)
    widths = SweepResult(SweepSpec(rows=(1_000,), hidden=(10, 100)),
                         points=[_point("cpu", 1_000, 5, hidden=h) for h in (10, 100)]).analyse()
    stored = [(1, on_gpu), (2, cpu_only), (3, widths)]
    picked = pick_sweep("data", stored)
    assert picked is not None and picked[0] == 1
    assert pick_sweep("mlp", stored) == (3, widths)
    assert pick_sweep("cnn", stored) is None  # no CNN sweep: the MLP's widths do not answer it
    listed = answers(stored)
    assert [(a.item.key, a.state, a.sweep_id) for a in listed] == [
        ("data", "crossing", 1), ("mlp", "cpu only", 3), ("cnn", "unmeasured", None),
        ("transformer", "unmeasured", None), ("batch", "unmeasured", None),
        ("world", "unmeasured", None)]


def test_the_batch_item_reads_the_crossings_along_the_batch() -> None:
    batches = (64, 512, 0)
    cpu = {64: 50_000.0, 512: 8_000.0, 0: 3_000.0}
    gpu = {64: 90_000.0, 512: 6_000.0, 0: 500.0}
    points = [_point(d, 4_096, us[b], hidden=100, batch=b)
              for d, us in (("cpu", cpu), ("cuda:0", gpu)) for b in batches]
    result = SweepResult(SweepSpec(rows=(4_096,), hidden=(100,), batches=batches),
                         points=points).analyse()
    found = answer("batch", result)
    assert found.state == "crossing" and found.at is not None and 64 < found.at < 512
    assert "rows per step" in found.text


def test_an_unknown_item_is_named_with_the_items_there_are() -> None:
    with pytest.raises(ValueError, match="no item 'gpu' in the note's list; there are data, mlp"):
        item("gpu")
    assert math.isnan(SweepPoint("cpu", "eager", 1, 1, 1, "skipped").epoch_us)


def _world_sweep(alone: list[float], together: list[float], busy: float = 0.0) -> SweepResult:
    spec = item("world").spec
    points = [SweepPoint("cpu", "eager", 1, 1_024, width, "completed", epoch_us=us, epochs=20,
                         flops_per_epoch=1e6 * width**2, cpu_wait_share=busy, world=world)
              for world, times in ((1, alone), (2, together))
              for width, us in zip(spec.hidden, times, strict=True)]
    return SweepResult(spec, points=points).analyse()


def test_more_than_one_device_is_answered_by_one_process_against_two() -> None:
    world = item("world")
    assert world.across_worlds and world.spec.worlds == (1, 2) and world.axis == "hidden"
    assert world.answered_by(world.spec) and not world.answered_by(item("cnn").spec)
    crossing = answer("world", _world_sweep([9_000, 54_000, 344_000],
                                            [11_000, 29_000, 137_000]), 4)
    assert crossing.state == "crossing" and 4 < crossing.at < 16
    assert crossing.text.startswith("sweep 4: cpu/eager/1 thread/2 processes overtakes "
                                    "cpu/eager/1 thread from ~")
    throughout = answer("world", _world_sweep([300, 400, 500], [900, 1_000, 1_100]))
    assert throughout.state == "throughout" and throughout.at is None
    assert throughout.text == ("cpu/eager/1 thread was faster than cpu/eager/1 thread/2 "
                               "processes throughout 4 channels to 64 channels (1,024 rows)")
    busy = answer("world", _world_sweep([9_000, 54_000, 344_000], [11_000, 29_000, 137_000],
                                        busy=0.5))
    assert busy.state == "not a finding"


def test_the_cpu_items_read_the_one_process_series_of_a_world_sweep() -> None:
    found = answer("cnn", _world_sweep([9_000, 54_000, 344_000], [11_000, 29_000, 137_000]))
    assert found.state == "cpu only" and "cpu/eager/1 thread:" in found.text
    assert "processes" not in found.text
