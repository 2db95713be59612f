"""The results table's Model, Params and FLOPs/step columns and the run's details: a stored
CNN on digits with its counts, a run of your own model file, and an MLP recorded before the
counts existed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QGroupBox
from support.dialog_forms import form_rows
from support.made_runs import made_run

from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.results.details import RunDetailsDialog
from iris_gui.ui.panels.results.model import COLUMNS, DEFAULT_HIDDEN
from iris_gui.ui.panels.results.panel import ResultsPanel

TITLES = ("Model", "Params", "FLOPs/step")
SHA = "0123456789ab" + "cd" * 26
PATH = "/home/me/<i>net&co.py"  # markup in a path is shown as typed


def _cnn():
    run = made_run(100.0, model="cnn", dataset="digits")
    run.parameters, run.flops_per_step = 3130, 16_760_832.0
    return run


def _own():
    run = made_run(120.0, model=f"{PATH}:Net")
    run.parameters, run.flops_per_step = 1_234_567, 1.2e9
    run.model_file = {"path": PATH, "size": 4321, "sha256": SHA, "name": "Net"}
    return run


@pytest.fixture
def runs(tmp_path):
    with RunStore.open(tmp_path / "runs.sqlite3") as opened:
        ids = [opened.save(_cnn()), opened.save(_own()), opened.save(made_run(90.0))]
        yield opened, ids


@pytest.fixture
def panel(qtbot, runs) -> ResultsPanel:
    widget = ResultsPanel(runs[0])
    qtbot.addWidget(widget)
    widget.resize(1200, 300)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def column(title: str) -> int:
    return [c.title for c in COLUMNS].index(title)


def cell(panel: ResultsPanel, run_id: int, title: str, role=Qt.ItemDataRole.DisplayRole):
    model = panel.model
    return model.index(model.row_of(run_id), column(title)).data(role)


def test_the_cells_say_the_model_its_parameters_and_flops(panel, runs):
    cnn, own, old = runs[1]
    assert [cell(panel, cnn, t) for t in TITLES] == ["cnn 16×2", "3,130", "16.8 M"]
    assert [cell(panel, own, t) for t in TITLES] == ["<i>net&co.py:Net", "1,234,567", "1.2 G"]
    assert [cell(panel, old, t) for t in TITLES] == ["MLP 10", "-", "-"]
    right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    for title in ("Params", "FLOPs/step"):
        assert cell(panel, cnn, title, Qt.ItemDataRole.TextAlignmentRole) == right
    assert cell(panel, cnn, "Model", Qt.ItemDataRole.TextAlignmentRole) is None
    assert cell(panel, cnn, "Model", Qt.ItemDataRole.ToolTipRole) == (
        "cnn 16×2, 3,130 parameters, 16.8 MFLOP a step")
    tip = cell(panel, own, "Model", Qt.ItemDataRole.ToolTipRole)
    assert "/home/me/&lt;i&gt;net&amp;co.py, 4,321 bytes, SHA-256 0123456789ab" in tip


def test_the_model_shows_itself_where_runs_differ_and_the_counts_wait(panel):
    assert {"model", "parameters", "flops"} <= set(DEFAULT_HIDDEN)
    assert not panel.view.isColumnHidden(column("Model"))  # cnn, a file and an MLP
    assert panel.view.isColumnHidden(column("Params"))
    assert panel.view.isColumnHidden(column("FLOPs/step"))
    for title in ("Params", "FLOPs/step"):
        next(a for a in panel.columns.menu().actions() if a.text() == title).trigger()
        assert not panel.view.isColumnHidden(column(title))


@pytest.mark.parametrize("title, ascending", [
    ("Params", ["3,130", "1,234,567", "-"]), ("FLOPs/step", ["16.8 M", "1.2 G", "-"]),
])
def test_the_counts_sort_by_their_numbers(panel, title, ascending):
    model = panel.view.model()
    panel.view.sortByColumn(column(title), Qt.SortOrder.AscendingOrder)
    assert [model.index(r, column(title)).data() for r in range(3)] == ascending
    panel.view.sortByColumn(column(title), Qt.SortOrder.DescendingOrder)
    assert [model.index(r, column(title)).data() for r in range(3)] == ascending[::-1]


def open_details(qtbot, store: RunStore, run_id: int) -> RunDetailsDialog:
    dialog = RunDetailsDialog(store.get(run_id))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_details_say_the_model_and_its_file_as_plain_text(qtbot, runs):
    store, (cnn, own, old) = runs
    dialog = open_details(qtbot, store, cnn)
    assert form_rows(dialog, "Results")["Model"] == "cnn 16×2, 3,130 parameters, 16.8 MFLOP a step"
    assert not any(b.title() == "Model file" for b in dialog.findChildren(QGroupBox))
    dialog = open_details(qtbot, store, own)
    assert form_rows(dialog, "Model file") == {
        "File": PATH, "Size": "4.3 kB (4,321 bytes)", "SHA-256": "0123456789ab…", "Name": "Net"}
    form = next(b for b in dialog.findChildren(QGroupBox) if b.title() == "Model file").layout()
    assert isinstance(form, QFormLayout)
    assert form.itemAt(0, QFormLayout.ItemRole.FieldRole).widget().textFormat() == (
        Qt.TextFormat.PlainText)
    assert form_rows(open_details(qtbot, store, old), "Results")["Model"] == "MLP 10"
