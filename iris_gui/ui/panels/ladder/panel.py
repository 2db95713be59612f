"""The ladder panel: the ladder figure (figures/ladder/ladder.py) in a dock, with what only a screen
has: hover tooltips on bars and rung names, the sentence over it, the rungs left out, an
empty-state line, the app's theme, and a refit on resize. Its CSV is the rows it shows, so
the picture and the file never disagree.

Run ``python -m iris_gui.ui.panels.ladder.panel`` to see the panel alone with sample data.
"""

from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QSize, Qt
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QApplication, QLabel, QStackedWidget, QVBoxLayout, QWidget

from iris_gui.engine.records.ladder import LadderRow
from iris_gui.figures.ladder import ladder_text as words
from iris_gui.figures.ladder.ladder import BAR_HEIGHT, LadderFigure
from iris_gui.figures.plot_theme import LIGHT, PlotTheme, plot_theme_for, theme_changed_by
from iris_gui.figures.sample_mark import SampleMark
from iris_gui.figures.svg import scene_export
from iris_gui.store.ladder_csv import export_ladder_csv
from iris_gui.ui.panels.shared.about_line import fit_wrapped, wrapped_label
from iris_gui.ui.panels.shared.hover_tip import HoverTip
from iris_gui.ui.panels.shared.plain_text import plain

__all__ = ["LadderPanel"]

EMPTY_TEXT = "Select runs of several engines, or press Run the Ladder"
SIZE_HINT = (640, 300)  # px: as much as the dock gives, about the results table's height


class LadderPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[LadderRow] = []
        self._facts: dict[int, words.RunFacts] = {}
        self._figure = LadderFigure(plot_theme_for(self.palette()))
        self._build()
        self._redraw()

    def sizeHint(self) -> QSize:
        # The plot's own hint follows its scene, which grows with the rows; a dock area that
        # adopted it would jump in height when runs are selected.
        return QSize(SIZE_HINT[0], SIZE_HINT[1])

    # -- what it shows, for tests and exports --------------------------------------------------

    @property
    def plot_theme(self) -> PlotTheme:
        return self._figure.theme

    @property
    def plot_item(self) -> pg.PlotItem:
        return self._figure.plot_item

    @property
    def legend(self) -> pg.LegendItem:
        return self._figure.legend

    @property
    def empty_label(self) -> QLabel:
        return self._empty

    @property
    def pytorch_bars(self) -> pg.BarGraphItem:
        return self._figure.pytorch_bars

    @property
    def reference_bars(self) -> pg.BarGraphItem:
        return self._figure.reference_bars

    @property
    def whiskers(self) -> pg.ErrorBarItem:
        return self._figure.whiskers

    @property
    def sample_mark(self) -> SampleMark:
        return self._figure.sample_mark

    def texts(self, kind: str) -> dict[float, str]:
        """The plain text drawn in the plot by slot: ``heading``, ``bar`` or ``missing``."""
        return {item.pos().y(): item.textItem.toPlainText().strip()
                for item in self._figure.text_items if item.property("kind") == kind}

    def rung_names(self) -> dict[float, str]:
        """The left axis: a rung's name at each row's slot."""
        return dict(self.plot_item.getAxis("left")._tickLevels[0])

    # -- building ---------------------------------------------------------------------------

    def _build(self) -> None:
        self._plot_widget = self._figure.widget
        self.hover = HoverTip(self._plot_widget, self._text_at)
        self.plot_item.vb.sigResized.connect(self._figure.fit_x)
        self._empty = plain(QLabel(EMPTY_TEXT))
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._stack = QStackedWidget()
        self._stack.addWidget(self._empty)
        self._stack.addWidget(self._plot_widget)
        self.about_label = wrapped_label(words.ABOUT)
        self.left_out_label = wrapped_label("")
        self.left_out_label.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.about_label)
        layout.addWidget(self.left_out_label)
        layout.addWidget(self._stack, 1)
        self._set_theme_colours(self.plot_theme)

    def _set_theme_colours(self, theme: PlotTheme) -> None:
        self._figure.set_colours(theme)
        self._empty.setStyleSheet(f"color: {theme.muted};")
        self.left_out_label.setStyleSheet(f"color: {theme.muted};")

    def apply_plot_theme(self, theme: PlotTheme) -> None:
        """Background, axes, legend, words and rules in ``theme``'s colours; the bars keep
        theirs (the no-framework fill excepted, pale on white and deep on black)."""
        self._set_theme_colours(theme)
        self._figure.draw_texts()

    def changeEvent(self, event: QEvent) -> None:  # a Qt override
        theme = theme_changed_by(self, event)
        if theme is not None:
            self.apply_plot_theme(theme)
        super().changeEvent(event)

    # -- public API ----------------------------------------------------------------------------

    def set_rows(self, rows: list[LadderRow], facts: dict[int, words.RunFacts] | None = None,
                 sample: bool = False) -> None:
        """Show these rows (replacing any shown), a group per device in first-seen order.
        ``facts`` by run id adds what a row does not carry to its tooltip; ``sample`` marks
        made-up rows as such on the plot (and in its exports)."""
        self._rows = list(rows)
        self._facts = dict(facts or {})
        self.sample_mark.set_shown(sample and bool(rows))
        self._redraw()

    def set_left_out(self, lines: list[str]) -> None:
        """The rungs a ladder run could not queue, one ``device/engine: why`` each; said here,
        beside the rungs that did run, rather than in a status bar already showing progress."""
        self.left_out_label.setText("Left out: " + "; ".join(lines) if lines else "")
        self.left_out_label.setVisible(bool(lines))
        fit_wrapped(self.left_out_label, self.width())

    def resizeEvent(self, event: QResizeEvent) -> None:  # a Qt override
        self._fit_words(event.size().width())
        super().resizeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:  # a Qt override
        super().showEvent(event)
        self._fit_words(self.width())

    def _fit_words(self, width: int) -> None:
        fit_wrapped(self.about_label, width)
        fit_wrapped(self.left_out_label, width)

    def rows(self) -> list[LadderRow]:
        return list(self._rows)

    def clear(self) -> None:
        self.set_rows([])

    def bar_at(self, x: float, y: float) -> str | None:
        """The hover text at view point (x in log10 µs, y in slots), or None off the rows. A
        row without a bar answers anywhere along its slot."""
        row = words.row_at(self._figure.slots, y, BAR_HEIGHT / 2)
        if row is None or (words.has_bar(row)
                           and not self._figure.left <= x <= words.whisker_end(row)):
            return None
        return words.hover_text(row, self._facts.get(row.run_id))

    def rung_at(self, y: float) -> str | None:
        """What the rung named at slot ``y`` (in the left axis) is, or None off the names."""
        row = words.row_at(self._figure.slots, y, 0.5)
        return None if row is None else words.rung_tip(row)

    def export_png(self, path: Path, width: int = 1600) -> None:
        """The ladder (bars, labels, headings, axes, legend) as a PNG ``width`` pixels wide."""
        self._settle()
        scene_export.write_png(self.plot_item, Path(path), width, LIGHT.background)

    def export_svg(self, path: Path) -> None:
        """The ladder as SVG: each bar one ``<rect>``, the words as ``<text>``."""
        self._settle()
        scene_export.write_svg(self.plot_item, Path(path), "engine ladder", LIGHT.background)

    def export_csv(self, path: Path) -> None:
        """One line per shown row, its ``LadderRow.to_dict()``."""
        export_ladder_csv(self._rows, Path(path))

    # -- drawing -------------------------------------------------------------------------------

    def _redraw(self) -> None:
        self._stack.setCurrentWidget(self._plot_widget if self._rows else self._empty)
        self._figure.draw(self._rows)

    def _settle(self) -> None:
        """Give a never-shown panel its geometry, so that nothing is dropped from an export."""
        if self.parent() is None and not self.isVisible():
            self.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
            self.show()
        QApplication.processEvents()
        self._figure.fit_x()

    def _text_at(self, scene_pos: QPointF) -> str | None:
        vb = self.plot_item.vb
        if vb.sceneBoundingRect().contains(scene_pos):
            point = vb.mapSceneToView(scene_pos)
            return self.bar_at(point.x(), point.y())
        if self.plot_item.getAxis("left").sceneBoundingRect().contains(scene_pos):
            return self.rung_at(vb.mapSceneToView(scene_pos).y())
        return None


def main() -> None:
    from iris_gui.ui.panels.samples.ladder import sample_facts, sample_rows

    app = QApplication.instance() or QApplication([])
    panel = LadderPanel()
    panel.set_rows(sample_rows(), sample_facts(), sample=True)
    panel.setWindowTitle("iris-gui: ladder (sample data)")
    panel.resize(1000, 520)
    panel.show()
    app.exec()


if __name__ == "__main__":
    main()
