"""The run details dialog: every part of a stored run, read-only, as the user reads it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialogButtonBox, QGroupBox, QLabel, QTableWidget
from support.details import open_dialog, section

from iris_gui.engine.words.program import program_here
from iris_gui.ui.panels.results.details import RunDetailsDialog
from iris_gui.ui.panels.samples.runs import FAILED_MESSAGE

CPU, GPU, STOPPED, FAILED = 1, 2, 3, 4


def test_the_confusion_matrix_is_a_table_of_counts(qtbot, store):
    dialog = open_dialog(qtbot, store, STOPPED)
    table = dialog.findChild(QTableWidget)
    assert (table.rowCount(), table.columnCount()) == (10, 10)
    assert [table.item(0, c).text() for c in range(3)] == ["34", "2", "0"]
    assert table.item(9, 9).text() == "34"
    assert table.horizontalHeaderItem(9).text() == "9"
    # Sized to show every cell, without scrolling.
    assert table.width() >= table.horizontalHeader().length()
    assert table.height() >= table.verticalHeader().length()


def test_timings_are_kept_apart(qtbot, store):
    timings = section(open_dialog(qtbot, store, STOPPED), "Timings")
    assert timings == {
        "Setup": "655.00 ms", "Transfer": "1.10 ms", "First epoch": "12.20 ms",
        "Loop": "9.360 s",
        "Steady state": ("1,450 ± 210 µs/epoch (median ± IQR, chunk-median) — noisy: IQR > 10% "
                         "of the median"),
        "Chunks": "319 synchronised chunks of ~30 ms; 318 after the first make the steady state",
        "Evaluation": "4.30 ms",
        "CPU wait": "3% of the loop waiting for a core (a quiet CPU)",
    }


def test_results_config_and_environment(qtbot, store):
    dialog = open_dialog(qtbot, store, STOPPED)
    results = section(dialog, "Results")
    assert results["Epochs"] == "6,400 of 20,000"
    assert results["Test accuracy"] == "94.44%"
    assert results["Final loss"] == "0.1377"
    assert results["Loss curve"] == "32 points, one every 200 epochs"
    config = section(dialog, "Configuration")
    # every RunConfig field but the synthetic sizes and the shapes of other models and data
    assert len(config) == 16 and config["Model"] == "mlp"
    assert not {"Width", "Depth", "Heads", "Seq len", "Image size", "Channels"} & set(config)
    assert not any(name.startswith("Synthetic") for name in config)
    assert config["Dataset"] == "digits" and config["Hidden widths"] == "64, 32"
    assert config["Engine"] == "eager"
    assert config["Learning rate"] == "0.001" and config["Epochs"] == "20,000"
    env = section(dialog, "Environment")
    assert env["Device name"] == "AMD EPYC 9654 96-Core Processor"
    assert env["Threads"] == "4" and env["Execution"] == "process"
    assert env["PyTorch"] == "2.13.0" and env["Python"] == "3.11.7"


def test_a_failed_run_shows_its_message_and_no_matrix(qtbot, store):
    dialog = open_dialog(qtbot, store, FAILED)
    texts = [label.text() for label in dialog.findChildren(QLabel)]
    assert any("failed" in text and FAILED_MESSAGE in text for text in texts)
    assert dialog.findChild(QTableWidget) is None
    assert section(dialog, "Timings")["Steady state"] == "-"
    assert "Run 4" in dialog.windowTitle()


def test_text_is_selectable_and_close_closes(qtbot, store):
    dialog = open_dialog(qtbot, store, STOPPED)
    value = next(b for b in dialog.findChildren(QGroupBox) if b.title() == "Timings")
    label = value.findChildren(QLabel)[1]
    assert label.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    table = dialog.findChild(QTableWidget)
    assert not table.editTriggers() & table.EditTrigger.AllEditTriggers
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close).click()
    assert not dialog.isVisible()


def test_the_confusion_matrix_names_the_classes(qtbot, store):
    dialog = open_dialog(qtbot, store, CPU)
    table = dialog.findChild(QTableWidget)
    names = ["setosa", "versicolor", "virginica"]
    assert [table.horizontalHeaderItem(c).text() for c in range(3)] == names
    assert [table.verticalHeaderItem(r).text() for r in range(3)] == names
    assert table.width() >= table.verticalHeader().width() + table.horizontalHeader().length()


def test_synthetic_sizes_show_for_synthetic_data_only(qtbot, store):
    dialog = open_dialog(qtbot, store, FAILED)  # a synthetic run
    config = section(dialog, "Configuration")
    assert config["Synthetic rows"] == "5,000,000" and config["Synthetic features"] == "10"
    assert len(config) == 19


def test_copy_as_command_puts_the_train_line_on_the_clipboard(qtbot, store):
    dialog = open_dialog(qtbot, store, STOPPED)
    with qtbot.waitSignal(dialog.command_copied) as copied:
        qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    line = QGuiApplication.clipboard().text()
    assert copied.args == [line]
    assert line.startswith(f"{program_here()} train --dataset digits ")
    assert "--hidden 64,32" in line and "--optimizer adam" in line and "--threads 4" in line


def test_the_comparison_uses_the_tables_words_for_its_speedup(qtbot, store):
    # The same word as the results table, and which speedup it is not.
    dialog = RunDetailsDialog(store.get(GPU), None, store.get(CPU))
    qtbot.addWidget(dialog)
    titles = [b.title() for b in dialog.findChildren(QGroupBox)]
    assert any(t.startswith("Against the baseline, run 1") and t.endswith(" — × vs baseline")
               for t in titles), titles
    against = next(b for b in dialog.findChildren(QGroupBox) if b.title().startswith("Against"))
    rows = section(dialog, against.title())
    assert rows["Steady state"] == "2.00x  (119.7 ± 3.1 → 59.9 ± 0.8 µs/epoch)"
    assert rows["× vs baseline"] == (
        "how many times faster than the baseline run: its time ÷ this run's, so above 1x this "
        "run is faster.\nThe Ladder's '× vs the note's loop' compares with the note's loop on "
        "the same device instead.")


def test_the_steady_state_says_how_it_was_measured(qtbot, store):
    dialog = open_dialog(qtbot, store, CPU)
    box = next(b for b in dialog.findChildren(QGroupBox) if b.title() == "Timings")
    value = next(label for label in box.findChildren(QLabel)
                 if label.text().startswith("119.7 ± 3.1 µs/epoch"))
    assert "their median, leaving out the first chunk" in value.toolTip()


def test_a_ratio_that_is_no_result_says_why_instead(qtbot, store):
    # The stopped run trains digits, the baseline iris: no ratio, the reason in its place.
    dialog = RunDetailsDialog(store.get(STOPPED), None, store.get(CPU))
    qtbot.addWidget(dialog)
    against = next(b for b in dialog.findChildren(QGroupBox) if b.title().startswith("Against"))
    rows = section(dialog, against.title())
    assert rows["Steady state"] == "— other data  (119.7 ± 3.1 → 1,450 ± 210 ⚠ µs/epoch)"
    assert rows["Not a result"] == ("this run trains digits, the baseline (run 1) iris:\n"
                                    "a speedup across data sets is not a result.")
    assert "Whole loop" not in rows


def test_on_a_1024_by_700_screen_no_column_is_pushed_off_it(qtbot, store) -> None:
    """The Environment's long values (the OS, the warm-up) wrap at the dialog's width."""
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QScrollArea

    from iris_gui.ui.panels.results.details import RunDetailsDialog

    run = store.get(store.list_runs()[0].id)
    dialog = RunDetailsDialog(run)
    qtbot.addWidget(dialog)
    dialog.resize(1004, 660)
    dialog.show()
    qtbot.waitExposed(dialog)
    (area,) = dialog.findChildren(QScrollArea)
    assert area.horizontalScrollBar().maximum() == 0
    assert QRect(0, 0, 1004, 660).contains(dialog.rect())
