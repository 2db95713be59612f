"""``sweep`` and ``sweeps show`` keep their points table narrow: a point's message (measured
again while busy, why it failed) is a numbered footnote under the table, said once per text."""

from __future__ import annotations

from dataclasses import replace

from iris_gui.cli.sweep_cmd import describe
from iris_gui.ui.panels.samples.sweep import sample_sweep

BUSY = "measured twice: the CPU was busy with other work the first time; the calmer kept"


def test_messages_are_footnotes_and_rows_stay_narrow() -> None:
    result = sample_sweep()
    points = [replace(p, message=BUSY) if i % 3 == 0 else p
              for i, p in enumerate(result.points)]
    points[1] = replace(points[1], status="failed", message="CUDA error: out of memory")
    text = describe(replace(result, points=points), 7)
    lines = text.splitlines()
    rows = [line for line in lines if line.rstrip().endswith(("]", "completed", "failed"))
            and not line.startswith("  [")]
    assert rows and max(len(row) for row in rows) <= 140
    assert sum(row.rstrip().endswith("completed [1]") for row in rows) == len(points[::3])
    assert any(row.rstrip().endswith("failed [2]") for row in rows)
    assert f"  [1] {BUSY}" in lines and "  [2] CUDA error: out of memory" in lines
    assert text.count(BUSY) == 1


def test_a_hosts_slurm_jobs_are_named_under_the_table() -> None:
    result = sample_sweep()
    one = "Slurm job 12 on node1, CUDA_VISIBLE_DEVICES=0"
    two = "Slurm job 13 on node2, CUDA_VISIBLE_DEVICES=0"
    env = {**result.env, "hosts": {"hpc": {"jobs": [one]}, "big": {"jobs": [one, two]},
                                   "lab": {}}}
    lines = describe(replace(result, env=env), 7).splitlines()
    assert f"hpc: measured on 1 Slurm job ({one})" in lines
    assert f"big: measured on 2 Slurm jobs ({one}; {two})" in lines
    assert not any(line.startswith("lab:") for line in lines)
