"""A report file holds stored text as text: an escape, a bell or a bidi override in a run's
record is not written into the HTML or the Markdown (the words around it are)."""

from __future__ import annotations

import pytest
from support.made_runs import made_run

from iris_gui.report.writer import write_report
from iris_gui.store.runs import RunStore

PLANTED = "failed \x1b]0;PWNED\x07 at \u202eepoch\x1b[2J 3"
ACTING = (b"\x1b", b"\x07", "\u202e".encode())


@pytest.mark.parametrize("suffix", [".html", ".md"])
def test_a_planted_escape_never_reaches_the_report_file(tmp_path, qapp, suffix) -> None:
    run = made_run(100.0)
    run.message = PLANTED
    with RunStore.open(tmp_path / "runs.sqlite3") as store:
        stored = store.get(store.save(run))
    out = tmp_path / f"report{suffix}"
    write_report(out, [stored], lambda config: "iris-gui train")
    data = out.read_bytes()
    assert not any(mark in data for mark in ACTING)
    assert "failed ]0;PWNED at epoch[2J 3" in data.decode("utf-8").replace("\\", "")
