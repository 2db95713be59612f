"""The status bar's line for a finished run says when the CPU was busy or its load was not
measured (the flag is shown wherever the run's figure is), in the one number style."""

from __future__ import annotations

from dataclasses import replace

from iris_gui.ui.panels.samples.runs import sample_results
from iris_gui.ui.presenters.run_presenter import result_summary


def test_a_busy_run_says_so_and_a_quiet_one_does_not() -> None:
    cpu = sample_results()[0]
    busy = replace(cpu, timings=replace(cpu.timings, cpu_wait_share=0.38, epoch_us=85_965.4))
    quiet = replace(cpu, timings=replace(cpu.timings, cpu_wait_share=0.01))
    assert result_summary(7, busy).endswith("(85,965 µs/epoch) ⚠ CPU busy 38%: not comparable")
    assert "busy" not in result_summary(8, quiet)
    unread = replace(cpu, timings=replace(cpu.timings, cpu_wait_share=float("nan")))
    assert result_summary(9, unread).endswith("(119.7 µs/epoch) ? CPU load not measured")
    assert "not measured" not in result_summary(8, quiet)
