"""The roofline panel: the roofline figure (figures/roofline/roofline.py) in a dock, with what
only a screen has: a hover naming a mark's run and regime, the sentence over it, a line saying
which ceilings it draws, a Measure ceilings button, a datasheet to draw beside them, an
empty-state line and the app's theme. Its CSV is the roofs and marks it shows.

Run ``python -m iris_gui.ui.panels.roofline.panel`` to see the panel alone with sample data.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QPointF, QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from iris_gui.engine.records.datasheet import LABEL, SHEETS, Datasheet
from iris_gui.engine.records.roofline import Mark, Roof
from iris_gui.figures.plot_theme import LIGHT, PlotTheme, plot_theme_for, theme_changed_by
from iris_gui.figures.roofline.roofline import ABOUT, RooflineFigure
from iris_gui.figures.svg import scene_export
from iris_gui.store.roofline_csv import export_roofline_csv
from iris_gui.ui.panels.shared.about_line import fit_wrapped, wrapped_label
from iris_gui.ui.panels.shared.hover_tip import HoverTip
from iris_gui.ui.panels.shared.plain_text import plain

__all__ = ["RooflinePanel"]

EMPTY_TEXT = ("No ceilings are kept and no run is selected: press Measure ceilings, then "
              "select runs in the results table")
NO_DATASHEET = "No datasheet"
SIZE_HINT = (640, 300)
HOVER_PX = 8  # how near the pointer a mark answers


class RooflinePanel(QWidget):
    measure_requested = Signal()
    datasheet_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._roofs: list[Roof] = []
        self._marks: list[Mark] = []
        self._figure = RooflineFigure(plot_theme_for(self.palette()))
        self._build()
        self._redraw()

    def sizeHint(self) -> QSize:
        return QSize(*SIZE_HINT)

    def _build(self) -> None:
        self.about_label = wrapped_label(ABOUT)
        self.measure_button = QPushButton("Measure ceilings")
        self.measure_button.setToolTip(
            "Measure the Run panel's device at its threads and precision: peak arithmetic, "
            "memory bandwidth and the per-op floor (a few seconds), kept in the store")
        self.measure_button.clicked.connect(self.measure_requested)
        self.datasheet = QComboBox()
        self.datasheet.addItem(NO_DATASHEET, None)
        for sheet in SHEETS:
            self.datasheet.addItem(sheet.name, sheet)
        self.datasheet.setToolTip(f"Draw a device's roofs from its datasheet beside the "
                                  f"measured ones: dashed, labelled {LABEL}")
        self.datasheet.currentIndexChanged.connect(self.datasheet_changed)
        self.ceilings_label = plain(QLabel(""))
        self.ceilings_label.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.measure_button)
        row.addWidget(self.datasheet)
        row.addWidget(self.ceilings_label, 1)
        self._empty = plain(QLabel(EMPTY_TEXT))
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._stack = QStackedWidget()
        self._stack.addWidget(self._empty)
        self._stack.addWidget(self._figure.widget)
        self.hover = HoverTip(self._figure.widget, self._text_at)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.about_label)
        layout.addLayout(row)
        layout.addWidget(self._stack, 1)
        self._set_theme_colours(self._figure.theme)

    # -- what it shows, for the presenter, tests and exports --------------------------------

    @property
    def figure(self) -> RooflineFigure:
        return self._figure

    @property
    def empty_label(self) -> QLabel:
        return self._empty

    def chosen_datasheet(self) -> Datasheet | None:
        return self.datasheet.currentData()

    def show_roofline(self, roofs: list[Roof], marks: list[Mark], ceilings_words: str,
                      sample: bool = False) -> None:
        """Draw ``roofs`` and ``marks``; ``ceilings_words`` says which measurement they are;
        ``sample``: made-up figures, marked as such on the plot (and its exports)."""
        self._roofs, self._marks = list(roofs), list(marks)
        self._figure.sample_mark.set_shown(sample)
        self.ceilings_label.setText(ceilings_words)
        self._redraw()

    def set_measuring(self, measuring: bool) -> None:
        self.measure_button.setEnabled(not measuring)
        self.measure_button.setText("Measuring…" if measuring else "Measure ceilings")

    def roofs(self) -> list[Roof]:
        return list(self._roofs)

    def marks(self) -> list[Mark]:
        return list(self._marks)

    def mark_text(self, mark: Mark) -> str:
        standing = "" if mark.finding else " (busy or noisy: not a finding)"
        return f"{mark.label} on {mark.device}{standing}\n{mark.sentence}"

    def export_png(self, path: Path, width: int = 1600) -> None:
        self._settle()
        scene_export.write_png(self._figure.plot_item, Path(path), width, LIGHT.background,
                               ABOUT)

    def export_svg(self, path: Path) -> None:
        self._settle()
        scene_export.write_svg(self._figure.plot_item, Path(path), "roofline",
                               LIGHT.background, ABOUT)

    def export_csv(self, path: Path) -> None:
        export_roofline_csv(self._roofs, self._marks, Path(path))

    # -- drawing ---------------------------------------------------------------------------

    def _redraw(self) -> None:
        shown = bool(self._roofs or self._marks)
        self._stack.setCurrentWidget(self._figure.widget if shown else self._empty)
        self._figure.draw(self._roofs, self._marks)

    def _set_theme_colours(self, theme: PlotTheme) -> None:
        self._figure.colour_frame(theme)
        self._empty.setStyleSheet(f"color: {theme.muted};")
        self.ceilings_label.setStyleSheet(f"color: {theme.muted};")

    @property
    def plot_theme(self) -> PlotTheme:
        return self._figure.theme

    def apply_plot_theme(self, theme: PlotTheme) -> None:
        """Background, axes, legend and every line and mark in ``theme``'s colours."""
        self._set_theme_colours(theme)
        self._figure.draw(self._roofs, self._marks)

    def changeEvent(self, event: QEvent) -> None:  # a Qt override
        theme = theme_changed_by(self, event)
        if theme is not None:
            self.apply_plot_theme(theme)
        super().changeEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:  # a Qt override
        fit_wrapped(self.about_label, event.size().width())
        super().resizeEvent(event)

    def _settle(self) -> None:
        """Give a never-shown panel its geometry, so that nothing is dropped from an export."""
        if self.parent() is None and not self.isVisible():
            self.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
            self.show()
        QApplication.processEvents()

    def _text_at(self, scene_pos: QPointF) -> str | None:
        vb = self._figure.plot_item.vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        point = vb.mapSceneToView(scene_pos)
        pixel = vb.viewPixelSize()
        mark = self._figure.mark_at(point.x(), point.y(),
                                    (pixel[0] * HOVER_PX, pixel[1] * HOVER_PX))
        return self.mark_text(mark) if mark is not None else None


def main() -> None:
    from iris_gui.ui.panels.samples.roofline import sample_roofline

    app = QApplication.instance() or QApplication([])
    panel = RooflinePanel()
    panel.show_roofline(*sample_roofline(), sample=True)
    panel.setWindowTitle("iris-gui: roofline (sample data)")
    panel.resize(1000, 520)
    panel.show()
    app.exec()


if __name__ == "__main__":
    main()
