"""A run that waited for a core is flagged where its figures are read: the results table's
µs/epoch cell (mark, colour, tooltip with the share) and the run's Details; a quiet run and an
old record without the figure are not. A run whose wait was not read is neither: its ratio
stands, marked "?", and its tooltip and Details say the load was not measured."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from support.details import open_dialog, section

from iris_gui.engine.records.standing_words import BUSY_SUFFIX
from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.results.model import COLUMNS
from iris_gui.ui.panels.results.panel import ResultsPanel
from iris_gui.ui.panels.samples.runs import sample_results

STEADY = next(i for i, c in enumerate(COLUMNS) if c.title == "µs/epoch")
SPEEDUP = next(i for i, c in enumerate(COLUMNS) if c.key == "speedup")


def shown_panel(qtbot, store: RunStore) -> ResultsPanel:
    panel = ResultsPanel(store)
    qtbot.addWidget(panel)
    panel.show()
    return panel


def column_reader(panel: ResultsPanel, column: int):
    """What column ``column`` of run ``run_id``'s row shows, in a role (its text by default)."""
    def read(run_id: int, role=Qt.ItemDataRole.DisplayRole):
        return panel.model.index(panel.model.row_of(run_id), column).data(role)
    return read


@pytest.fixture
def runs(tmp_path, data_dir):
    """Three completed CPU runs: busy (38% waiting), quiet (1%), and one saved before the
    figure existed (NaN)."""
    cpu = sample_results()[0]
    store = RunStore.open(tmp_path / "runs.sqlite3")
    ids = [store.save(replace(cpu, timings=replace(cpu.timings, cpu_wait_share=share)))
           for share in (0.38, 0.01, float("nan"))]
    yield store, ids
    store.close()


def test_the_busy_run_is_marked_in_the_table_and_its_tooltip_says_how_busy(qtbot, runs):
    store, (busy, quiet, old) = runs
    panel = shown_panel(qtbot, store)
    data = column_reader(panel, STEADY)

    assert data(busy).endswith(BUSY_SUFFIX)
    assert "busy with other work for 38% of this run" in data(busy, Qt.ItemDataRole.ToolTipRole)
    assert data(busy, Qt.ItemDataRole.ForegroundRole) is not None
    for calm in (quiet, old):
        assert "busy" not in data(calm)
        assert "busy" not in (data(calm, Qt.ItemDataRole.ToolTipRole) or "")


def test_details_give_the_share_for_every_run(qtbot, runs):
    store, (busy, quiet, old) = runs
    shown = {run_id: section(open_dialog(qtbot, store, run_id), "Timings")["CPU wait"]
             for run_id in (busy, quiet, old)}
    assert shown[busy].startswith("38%: the CPU was busy with other work")
    assert shown[quiet] == "1% of the loop waiting for a core (a quiet CPU)"
    assert shown[old].startswith("- (not measured: no per-thread count of the time spent "
                                 "waiting for a core was read")



def test_a_busy_runs_speedup_is_no_result_in_the_table_or_details(qtbot, runs):
    """Against a quiet baseline, the busy run's ratio cell names the busy CPU (never a plain
    ratio, never "this run is slower"), sorts with the missing ones and is muted; as the
    baseline, the busy run makes every ratio no result."""
    store, (busy, quiet, old) = runs
    panel = shown_panel(qtbot, store)
    ratio = column_reader(panel, SPEEDUP)

    panel.set_baseline(quiet)
    assert ratio(busy) == "— CPU busy"
    tip = ratio(busy, Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith(f"Not a result: the CPU was busy with other work during run {busy} "
                          "(38% of its loop waited for a core)")
    assert "slower" not in tip and "faster" not in tip
    assert ratio(busy, Qt.ItemDataRole.UserRole + 1) is None  # sorts with the missing
    assert ratio(busy, Qt.ItemDataRole.ForegroundRole) is not None
    assert ratio(old) == "≈ 1.00x"  # the same figures, within the noise
    rows = section(open_dialog(qtbot, store, busy, baseline=quiet),
                   f"Against the baseline, run {quiet} (cpu/every-epoch/forward) — × vs baseline")
    assert rows["Steady state"].startswith("— CPU busy  (")
    assert "re-run it when the machine is quieter" in rows["Not a result"].replace("\n", " ")
    panel.set_baseline(busy)
    assert ratio(busy) == "baseline — CPU busy"
    assert ratio(quiet) == ratio(old) == "— CPU busy"


def test_a_busy_and_noisy_run_gets_one_mark(qtbot, tmp_path, data_dir):
    cpu = sample_results()[0]
    noisy_busy = replace(cpu, timings=replace(cpu.timings, cpu_wait_share=0.5,
                                              epoch_us_iqr=cpu.timings.epoch_us * 0.3))
    with RunStore.open(tmp_path / "both.sqlite3") as store:
        run_id = store.save(noisy_busy)
        panel = ResultsPanel(store)
        qtbot.addWidget(panel)
        text = panel.model.index(panel.model.row_of(run_id), STEADY).data()
    assert text.endswith(BUSY_SUFFIX) and text.count("⚠") == 1


def test_an_unmeasured_runs_ratio_stands_marked_and_says_what_it_lacks(qtbot, tmp_path, data_dir):
    cpu = sample_results()[0]
    store = RunStore.open(tmp_path / "runs.sqlite3")
    quiet = store.save(cpu)
    unread = store.save(replace(cpu, timings=replace(
        cpu.timings, epoch_us=cpu.timings.epoch_us / 2, cpu_wait_share=float("nan"))))
    panel = shown_panel(qtbot, store)
    ratio = column_reader(panel, SPEEDUP)
    panel.set_baseline(quiet)
    assert ratio(unread) == "2.00x ?"
    tip = ratio(unread, Qt.ItemDataRole.ToolTipRole)
    assert "so this run is faster (CPU load not measured)" in tip
    assert f"The CPU's load during run {unread} was not measured" in tip
    assert ratio(unread, Qt.ItemDataRole.UserRole + 1) == pytest.approx(2.0)  # sorts as a ratio
    rows = section(open_dialog(qtbot, store, unread, baseline=quiet),
                   f"Against the baseline, run {quiet} (cpu/every-epoch/forward) — × vs baseline")
    assert rows["Steady state"].startswith("2.00x ?  (")
    assert rows["CPU load not measured"].startswith("the CPU's load during this run was not "
                                                    "measured:\n(no per-thread count")
    store.close()
