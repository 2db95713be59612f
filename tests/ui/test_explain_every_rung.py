"""Explain in the window over runs of several rungs: every run's breakdown arrives,
is labelled with its engine, is kept with its run and read back from the store, and clicking a
run's bar (or its label) puts that run's figures and sentences in the text pane.

The runs are trained by the command line into the test's data directory first; the window
explains them in its worker, as a user would."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt
from support.cli import describe, run_cli

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.words.labels import owned_label as explain_label

# (engine, recording): two rungs that call the module, and two that call none. compiled's
# explain (a compile in the worker) is covered through the CLI by test_report_every_rung.py.
RUNGS = [("eager", "every-epoch"), ("manual", "device"), ("lean", "every-epoch"),
         ("native", "device")]
EXPLAIN_MS = 240_000  # four explanations on a busy machine


def train_by_cli(data_dir) -> None:
    """The runs, by the command line in this process (what reaches the store is the point)."""
    for engine, record in RUNGS:
        done = run_cli(["train", "--engine", engine, "--record", record, "--epochs", "200"],
                       data_dir)
        assert done.returncode == 0, describe(done)


def text(window) -> str:
    return " ".join(window.explain.text_view.toPlainText().split())


def click_row(window, qtbot, index: int, on_label: bool) -> None:
    """Click run ``index``'s bar or label (its chart row: a CPU run's estimate has a row)."""
    panel = window.explain
    row = panel.figure.row_of(index)
    point = panel.plot_item.vb.mapViewToScene(QPointF(1.0, float(row)))
    if on_label:
        point.setX(panel.plot_item.getAxis("left").sceneBoundingRect().center().x())
    view = panel._plot_widget
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(point))


def click_each_run(window, qtbot) -> None:
    shown = window.explain.breakdowns()
    assert len(shown) == len(RUNGS)
    for row, (label, breakdown) in enumerate(shown):
        click_row(window, qtbot, row, on_label=row % 2 == 0)
        answer = " ".join(breakdown.answer().split())
        qtbot.waitUntil(lambda label=label, answer=answer: text(window).startswith(answer)
                        and label in text(window), timeout=5000)
        # The estimate's own sentence is the answer's; its box keeps the rest.
        for sentence in breakdown.sentences() + breakdown.estimate_sentences()[:1]:
            assert " ".join(sentence.split()) in text(window)


def test_the_window_explains_runs_of_several_rungs_and_shows_each(
        open_window, data_dir, qtbot) -> None:
    train_by_cli(data_dir)
    window = open_window()
    window.resize(1280, 800)
    window.explain_dock.raise_()
    ids = [run.id for run in window.results.model.runs]
    assert len(ids) == len(RUNGS)
    window.results.select_ids(ids)
    window.explain.window_spin.setValue(20)
    qtbot.mouseClick(window.explain.explain_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(window.explain.breakdowns()) == len(RUNGS)
                    and window.explain.explain_button.isEnabled(), timeout=EXPLAIN_MS)
    assert window.explain.status_label.text() == ""  # no failure on show
    labels = [label for label, _ in window.explain.breakdowns()]
    by_engine = {run.result.config.engine: run for run in window.results.model.runs}
    for engine, _record in RUNGS:
        run = by_engine[engine]
        assert explain_label(run.id, run.result.config) in labels
    assert f"run {by_engine['manual'].id} · cpu · manual · device" in labels
    assert f"run {by_engine['eager'].id} · cpu · eager · every-epoch · forward" in labels
    click_each_run(window, qtbot)

    # Kept with the runs: selecting them again shows the stored breakdowns, nulls and all.
    qtbot.waitUntil(lambda: all(run.breakdown for run in window.results.model.runs),
                    timeout=10_000)
    window.results.select_ids(ids[:1])
    window.results.select_ids(ids)
    qtbot.waitUntil(lambda: len(window.explain.breakdowns()) == len(RUNGS), timeout=5000)
    for run in window.results.model.runs:
        stored = window.store.get(run.id).breakdown
        assert Breakdown.from_dict(stored).sentences()
    click_each_run(window, qtbot)


@pytest.mark.parametrize("engine, call, label", [
    ("eager", "call", "run 3 · cpu · eager · none · call"),
    ("lean", "forward", "run 3 · cpu · lean · none · forward"),
    ("manual", "forward", "run 3 · cpu · manual · none"),
    ("compiled", "forward", "run 3 · cpu · compiled · none"),
    ("native", "forward", "run 3 · cpu · native · none"),
    ("persistent", "forward", "run 3 · cpu · persistent · none"),
])
def test_explains_labels_name_the_engine_and_a_call_style_only_where_it_applies(
        engine, call, label) -> None:
    assert explain_label(3, RunConfig(engine=engine, record="none", call=call)) == label
