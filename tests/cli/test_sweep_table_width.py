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
