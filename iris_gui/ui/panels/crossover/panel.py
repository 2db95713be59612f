"""The Crossover view: where the GPU starts to win.

A sweep times the same training over a grid of problem sizes (and batch sizes) on several
series (device x engine x CPU threads); the engine fits ``µs/epoch = steps · floor + work /
throughput`` per series (one step per epoch at full batch) and finds where two series cross
(engine/records/sweep_fit.py). A sentence on top says what is compared;
the left column holds Start, Stop and the earlier sweeps to reopen, the progress with its time
left on a row of its own, and four tabs: the new sweep's settings, what the shown sweep found,
every point, and the note's list of when the GPU wins answered item by item from the stored
sweeps (note_list.py: each item swept with one button). The plot beside them (the crossover figure, figures/crossover/crossover.py) draws a
sweep as it grows point by point or as it was stored. A made-up sweep is marked as such on
the plot. The figures are the ``SweepResult``'s; its CSV is ``store/sweep_csv.py``'s rows.

Run ``python -m iris_gui.ui.panels.crossover.panel`` to see the panel alone with sample data.
"""

from __future__ import annotations

import math
from html import escape
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.records.note_list import NoteAnswer, item
from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.words.sweep_progress import measuring_text, progress_text
from iris_gui.figures.crossover import crossover_file
from iris_gui.figures.crossover import crossover_text as words
from iris_gui.figures.plot_theme import ERROR
from iris_gui.store.sweep_csv import export_sweep_csv
from iris_gui.ui.panels.crossover.families_dialog import FamiliesDialog
from iris_gui.ui.panels.crossover.note_list import NoteListTab
from iris_gui.ui.panels.crossover.plot import CrossoverPlot
from iris_gui.ui.panels.crossover.progress import SweepProgress
from iris_gui.ui.panels.crossover.settings import SweepSettings
from iris_gui.ui.panels.crossover.table import PointsTable
from iris_gui.ui.panels.shared.about_line import fit_wrapped, wrapped_label
from iris_gui.ui.panels.shared.no_wheel import guard_fields, guard_wheel
from iris_gui.ui.panels.shared.plain_text import plain

__all__ = ["CrossoverPanel"]

IDLE_TEXT = "Press Start to sweep the sizes set under Sweep, or reopen an earlier sweep."
HISTORY_PROMPT = "Earlier sweeps…"
# What the view compares, for a learner who opens it first; the tags' sentences say the rest.
ABOUT_TEXT = ("Each series (device / engine / CPU threads / processes) timed in µs per epoch "
              "against the "
              "problem size (rows × the model's width), on log-log axes; a numbered line marks "
              "where one series overtakes another, and Findings says what each number means.")
# The left column: Start, the sweep's settings and what it found, beside the plot. On a
# 1280×800 screen the docked view is ~900×250 px: settings, findings and plot stacked
# would each get a sliver, so the settings and the words share one set of tabs.
COLUMN_WIDTH = 350  # where the dock is wide; never narrower than its form needs
SETTINGS_TAB, FINDINGS_TAB, POINTS_TAB, WINS_TAB = 0, 1, 2, 3
SIZE_HINT = (900, 320)


class CrossoverPanel(QWidget):
    start_requested = Signal(object)  # SweepSpec
    stop_requested = Signal()
    reopen_requested = Signal(int)  # a stored sweep's id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._result: SweepResult | None = None
        self._running = False
        self._ready = True  # whether the controller would take a sweep now
        self._build()
        self._validate()
        self._show_findings()

    def sizeHint(self) -> QSize:
        return QSize(*SIZE_HINT)

    # -- building ------------------------------------------------------------------------------

    def _build(self) -> None:
        self.about_label = wrapped_label(ABOUT_TEXT)
        self.settings = SweepSettings()
        self.settings.changed.connect(self._validate)
        guard_fields(self.settings)  # the wheel scrolls the form; it changes no field
        self.error_label = plain(QLabel(""))
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {ERROR};")
        self.start_button = QPushButton("Start")
        self.start_button.setToolTip("Measure every size on every series, then fit and cross")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop the sweep and keep the points measured")
        self.start_button.clicked.connect(self._on_start)
        self.stop_button.clicked.connect(self.stop_requested)
        self.progress_bar = SweepProgress()
        self.progress_bar.setRange(0, 1)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat("no sweep running")
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        self.history_combo = guard_wheel(QComboBox())
        self.history_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.history_combo.setMinimumContentsLength(9)
        self.history_combo.view().setMinimumWidth(320)  # the list shows labels whole
        self.history_combo.setToolTip("Sweeps kept in the runs store")
        self.history_combo.activated.connect(self._on_history)
        self.set_history([])
        buttons.addWidget(self.history_combo, 1)

        form = QWidget()
        inner = QVBoxLayout(form)
        inner.setContentsMargins(6, 6, 6, 6)
        inner.addWidget(self.settings)
        inner.addStretch(1)
        self.settings_scroll = QScrollArea()
        self.settings_scroll.setWidget(form)
        self.settings_scroll.setWidgetResizable(True)
        self.settings_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.settings_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.findings = QTextBrowser()
        self.findings.setOpenLinks(False)
        self.table = PointsTable()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.settings_scroll, "Sweep")
        self.tabs.addTab(self.findings, "Findings")
        self.tabs.addTab(self.table, "Points")
        self.note_list = NoteListTab()
        self.note_list.measure_requested.connect(self._on_measure_item)
        self.note_list.reopen_requested.connect(self.reopen_requested)
        self.note_list.families_requested.connect(self.show_families)
        self._families: list[tuple[NoteAnswer, SweepResult]] = []
        self.tabs.addTab(self.note_list, "GPU wins?")
        self.tabs.setTabToolTip(SETTINGS_TAB, "What a new sweep measures")
        self.tabs.setTabToolTip(FINDINGS_TAB, "What the shown sweep found, crossing by crossing")
        self.tabs.setTabToolTip(POINTS_TAB, "Every point of the shown sweep, as its CSV has it")
        self.tabs.setTabToolTip(WINS_TAB, "The note's list of when the GPU wins, item by item")

        column = QWidget()
        left = QVBoxLayout(column)
        left.setContentsMargins(8, 4, 4, 4)
        left.addLayout(buttons)
        # A row of its own: the time left's words need the column's width.
        left.addWidget(self.progress_bar)
        left.addWidget(self.error_label)
        left.addWidget(self.tabs, 1)
        # The form's own width, whatever the style: no label of it is ever cut.
        column.setMinimumWidth(form.minimumSizeHint().width() + 24)

        self.plot = CrossoverPlot()
        self.plot.redrawn.connect(self._show_findings)
        self.sample_mark = self.plot.sample_mark
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(column)
        self.splitter.addWidget(self.plot)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([max(COLUMN_WIDTH, column.minimumWidth()), SIZE_HINT[0]])
        self._column = column
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.about_label)
        layout.addWidget(self.splitter, 1)

    def resizeEvent(self, event: QResizeEvent) -> None:  # a Qt override
        # A narrow dock (a 1024 px screen) gives the plot the room, its settings their least.
        if event.size().width() < COLUMN_WIDTH + SIZE_HINT[0] // 2:
            self.splitter.setSizes([self._column.minimumWidth(), event.size().width()])
        fit_wrapped(self.about_label, event.size().width())
        super().resizeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:  # a Qt override
        super().showEvent(event)
        fit_wrapped(self.about_label, self.width())

    # -- settings and the run ------------------------------------------------------------------

    def spec(self) -> SweepSpec:
        """The sweep the settings describe; ConfigError (a ValueError) names a bad field."""
        return self.settings.spec()

    def set_spec(self, spec: SweepSpec) -> None:
        self.settings.set_spec(spec)

    def set_devices(self, devices: list[DeviceInfo]) -> None:
        self.settings.set_devices(devices)

    def set_running(self, running: bool) -> None:
        """A sweep of this panel's runs (Stop on, Start and the settings off) or not."""
        self._running = running
        self.settings.setEnabled(not running)
        self._validate()

    def set_ready(self, ready: bool) -> None:
        """Whether a sweep may start now (nothing else is running)."""
        self._ready = ready
        self._validate()

    def show_progress(self, done: int, total: int, eta_seconds: float | None = None,
                      measuring: bool = False) -> None:
        """``done`` of ``total`` points measured; ``measuring``: the next one has begun."""
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(min(done, total))
        said = measuring_text if measuring and done < total else progress_text
        self.progress_bar.setFormat(said(done, total, eta_seconds))

    def _validate(self) -> None:
        message = self.settings.error()
        self.error_label.setText(message)
        self.error_label.setVisible(bool(message))
        self.start_button.setEnabled(not message and self._ready and not self._running)
        self.stop_button.setEnabled(self._running)
        self.note_list.set_measurable(self._ready and not self._running)

    def _on_start(self) -> None:
        try:
            spec = self.spec()
        except ConfigError:
            self._validate()
            return
        self.start_requested.emit(spec)

    def _on_measure_item(self, key: str) -> None:
        """An item of the note's list swept: its spec becomes the settings, then starts."""
        spec = item(key).spec
        self.set_spec(spec)
        self.start_requested.emit(spec)

    def set_answers(self, answers: list[NoteAnswer],
                    families: list[tuple[NoteAnswer, SweepResult]] | None = None) -> None:
        """The note's list answered from the stored sweeps, and its model-size sweeps."""
        self.note_list.show_answers(answers)
        self._families = list(families or [])

    def show_families(self) -> FamiliesDialog:
        """The model-size sweeps of every family on one plot, in a window of their own."""
        dialog = FamiliesDialog(self._families, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    # -- what it shows -------------------------------------------------------------------------

    def begin(self, spec: SweepSpec) -> None:
        """A new sweep starts: clear the view for its points."""
        self._result = SweepResult(spec)
        self._show_words()
        self.plot.set_result(self._result)
        self.table.show_result(self._result)
        self.progress_bar.setRange(0, 0)  # busy until the first point says how many come
        self.progress_bar.setFormat("waiting for the first point…")

    def add_point(self, point: SweepPoint) -> None:
        """One more point of the running sweep: fits and crossings are redone on the points so
        far (pure arithmetic on a few dozen points) and the view redrawn."""
        if self._result is None:
            self._result = SweepResult(self._spec_or_default())
        self._result.points.append(point)
        self._result.analyse()
        self.plot.set_result(self._result, keep_colours=True)
        self.table.show_result(self._result)

    def set_result(self, result: SweepResult) -> None:
        """Show a whole sweep (finished, or reopened from the store)."""
        self._result = result
        self._show_words()
        self.plot.set_result(result)
        self.table.show_result(result)
        done = len(result.points)
        self.progress_bar.setRange(0, max(done, 1))
        self.progress_bar.setValue(done)
        self.progress_bar.setFormat(f"{done} points · {result.status}")

    def result(self) -> SweepResult | None:
        return self._result

    def clear(self) -> None:
        self._result = None
        self.sample_mark.set_shown(False)
        self.plot.set_result(None)
        self.table.show_result(None)

    def _show_words(self) -> None:
        """A sweep is shown: its findings come forward (the settings stay a click away), and
        made-up data says so on the plot."""
        if self.tabs.currentIndex() == SETTINGS_TAB:
            self.tabs.setCurrentIndex(FINDINGS_TAB)
        self.sample_mark.set_shown(words.is_sample(self._result))

    def set_history(self, items: list[tuple[int, str]]) -> None:
        """Earlier sweeps to reopen: (stored id, label), newest first."""
        self.history_combo.clear()
        self.history_combo.addItem(HISTORY_PROMPT if items else "None kept", None)
        for sweep_id, label in items:
            self.history_combo.addItem(label, sweep_id)
        self.history_combo.setEnabled(bool(items))

    def _on_history(self, index: int) -> None:
        sweep_id = self.history_combo.itemData(index)
        self.history_combo.setCurrentIndex(0)
        if sweep_id is not None:
            self.reopen_requested.emit(int(sweep_id))

    def _spec_or_default(self) -> SweepSpec:
        try:
            return self.spec()
        except ConfigError:
            return SweepSpec()

    def _show_findings(self) -> None:
        if self._result is None or not self._result.points:
            self.findings.setHtml(f"<p>{escape(IDLE_TEXT)}</p>")
            return
        axis = self.plot.axis()
        numbered = [(c.number, c.crossover, c.colour) for c in self.plot.crossings()]
        shown = set(self.plot.series_lines())
        throughout = words.throughout_sentences(
            c for c in self._result.crossovers
            if (c.axis == axis or (axis == "flops" and c.axis != "batch"))
            and c.a in shown and c.b in shown)
        fits = [words.fit_sentence(f) for f in self._result.fits if math.isfinite(f.gflops)]
        notes = words.sweep_notes(self._result, axis)
        self.findings.setHtml(words.findings_html(notes, numbered, throughout, fits,
                                                  self.plot.misfits(),
                                                  words.fits_title(self._result)))

    # -- exports -------------------------------------------------------------------------------

    def caption_html(self) -> str:
        """The key an exported figure carries under the plot."""
        return self.plot.figure.caption_html()

    def export_png(self, path: Path, width: int = 1600) -> None:
        """The plot, its legend and the key to its crossings as a PNG ``width`` pixels wide."""
        self._settle()
        crossover_file.write_png(self.plot.figure, Path(path), width)

    def export_svg(self, path: Path) -> None:
        """The same figure as SVG: lines as paths, words as text."""
        self._settle()
        crossover_file.write_svg(self.plot.figure, Path(path))

    def export_csv(self, path: Path) -> None:
        """One line per point of the shown sweep with its series' fit."""
        export_sweep_csv(self._result or SweepResult(SweepSpec()), Path(path))

    def _settle(self) -> None:
        """Give a never-shown panel its geometry, so that nothing is dropped from an export."""
        if self.parent() is None and not self.isVisible():
            self.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
            self.show()
        QApplication.processEvents()


def main() -> None:
    from iris_gui.ui.panels.samples.sweep import sample_sweep

    app = QApplication.instance() or QApplication([])
    panel = CrossoverPanel()
    panel.set_result(sample_sweep())
    panel.setWindowTitle("iris-gui: crossover (sample data)")
    panel.resize(1200, 760)
    panel.show()
    app.exec()


if __name__ == "__main__":
    main()
