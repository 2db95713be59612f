"""An explanation tells its progress as each part ends (explain.Progress), and the command
line and the API draw it as one line (cli/progress.py): read from a real explain."""

from __future__ import annotations

import io

from iris_gui.cli.progress import ExplainProgress
from iris_gui.engine.explain.explain import explain
from iris_gui.engine.spec.config import RunConfig


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_every_part_is_told_once_in_order_and_the_line_ends_done() -> None:
    told: list[tuple[int, int, str]] = []
    explain(RunConfig(record="every-epoch"), epochs=10, warmup=2, replicates=2,
            progress=lambda *part: told.append(part))
    # The warm-up, the profiled window, 2 replicates of 10 blocks of one epoch, then done.
    total = 2 + 2 * 10
    assert {t for _, t, _ in told} == {total}
    assert [done for done, _, _ in told] == [*range(total + 1), total]
    assert [words for _, _, words in told][:3] == [
        "warming up", "profiling 10 epochs", "timing the unprofiled blocks"]
    assert told[-1][2] == "done"
    terminal = Terminal()
    line = ExplainProgress("cpu/every-epoch/forward", terminal)
    for part in told:
        line(*part)
    assert terminal.getvalue().split("\r")[-1].rstrip() == (
        f"explain cpu/every-epoch/forward [{'#' * 20}] {total}/{total} parts: done")
    line.close()
    assert terminal.getvalue().split("\r")[-2].strip() == ""  # the line is blanked at the end


def test_stderr_that_is_a_log_gets_no_progress_line(capsys) -> None:
    line = ExplainProgress("cpu")  # stderr, captured: a file, not a terminal
    line(1, 4, "profiling 10 epochs")
    line.close()
    assert capsys.readouterr().err == ""
