"""Breakdown.answer: the note's question (why is the GPU slower?) in one plain sentence, from
what the record measured: a GPU's idleness, launches and syncs; on a CPU, the counts and the
estimate set against this CPU's epoch, or standing alone where the CPU was busy."""

from __future__ import annotations

from dataclasses import replace

import pytest

from iris_gui.engine.records.gpu_estimate import GpuEstimate
from iris_gui.ui.panels.samples.breakdowns import cpu_breakdown, gpu_breakdown


def on_cpu(cpu_epoch_us: float, wait: float = 0.01):
    # 15 launches at 3-20 µs and 1 sync at 10-50 µs: 55-350 µs of overhead.
    estimate = GpuEstimate(kernels_per_epoch=15.0, syncs_per_epoch=1.0, cpu_epoch_us=cpu_epoch_us)
    return replace(cpu_breakdown(), gpu_estimate=estimate, cpu_wait_share=wait)


@pytest.mark.parametrize(("cpu_us", "share"), [
    (30.0, "1.8× to 12× this CPU's whole 30 µs epoch"),
    (400.0, "0.14× to 0.88× this CPU's whole 400 µs epoch"),
    (1_000.0, "0.055× to 0.35× this CPU's whole 1,000 µs epoch"),
])
def test_on_a_cpu_the_estimate_is_set_beside_this_cpus_whole_epoch(cpu_us: float, share: str):
    """On top of the host's own work, so a share of the CPU's epoch, never a verdict."""
    answer = on_cpu(cpu_us).answer()
    assert answer == ("A GPU would launch about 15 kernels and wait for 1 sync each epoch: "
                      "55-350 µs of overhead on top of the host's own work, "
                      f"{share} (an estimate: no GPU here).")


def test_a_busy_cpu_keeps_the_counts_and_the_estimate_and_sets_nothing_against_them():
    answer = on_cpu(120.0, wait=0.4).answer()
    assert answer.startswith("A GPU would launch about 15 kernels and wait for 1 sync each "
                             "epoch: 55-350 µs of overhead")
    assert answer.endswith("; this CPU's own epoch is not measured: the CPU was busy with other "
                           "work (40% of the time); re-run it when the machine is quieter.")
    assert "120" not in answer


def test_a_cpu_record_without_an_estimate_says_how_to_measure():
    assert "add a GPU host (Hosts…)" in replace(cpu_breakdown(), gpu_estimate=None).answer()


@pytest.mark.parametrize(("busy", "words"), [
    (6.0, ("The GPU mostly waits: it is busy 6.0% of each 293 µs epoch, the rest is the host "
          "launching 23 kernels and waiting for 1 sync: overhead, not arithmetic, sets the pace.")),
    (80.0, ("The GPU is busy 80% of each 293 µs epoch: its own work, more than launching 23 "
           "kernels and waiting for 1 sync, sets the pace.")),
])
def test_on_a_gpu_its_idleness_answers(busy: float, words: str):
    assert replace(gpu_breakdown(), device_busy_pct=busy).answer() == words


def test_a_gpu_whose_activity_was_not_seen_still_counts_its_launches():
    answer = replace(gpu_breakdown(), device_busy_pct=None).answer()
    assert answer.startswith("Each epoch on cuda:0 means launching 23 kernels and waiting for 1 "
                             "sync; how idle the device is cannot be measured here")
