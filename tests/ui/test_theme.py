"""Light and dark: View → Theme switches the palette and every plot's colours, is remembered,
and exports stay light."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication

from iris_gui.figures.loss import loss_file as plot_export
from iris_gui.figures.plot_theme import (
    DARK,
    LIGHT,
    TABLEAU,
    TABLEAU_ON_DARK,
    is_dark,
    light_plots,
    same_hue,
)
from iris_gui.ui.panels.loss_plot.panel import LossPlotPanel, PlotCurve


@pytest.fixture
def window(window_on, store):
    opened = window_on(store)
    yield opened
    opened.set_theme("system")  # the palette is the application's: leave it as found
    opened.close()


def plots(window):
    return [window.plot, window.explain, window.ladder, window.crossover.plot]


def background(panel) -> str:
    view = panel.plot_item.getViewWidget() if hasattr(panel, "plot_item") else panel._view
    return view.backgroundBrush().color().name()


def test_the_default_follows_the_system_and_draws_as_before(window):
    # Qt's offscreen platform reports no scheme: light, the colours the plots always had.
    assert window.actions.themes["system"].isChecked()
    assert not is_dark(QApplication.palette())
    for panel in plots(window):
        assert panel.plot_theme == LIGHT
    assert background(window.plot) == "#ffffff"


def test_dark_turns_the_palette_and_every_plot_dark_and_back(window, qtbot):
    window.results.select_ids([1, 2])  # two curves in the plot
    window.actions.themes["dark"].trigger()
    QApplication.processEvents()  # Qt posts the palette change to each widget
    assert is_dark(QApplication.palette())
    for panel in plots(window):
        assert panel.plot_theme == DARK, panel
    assert background(window.plot) == DARK.background
    axis = window.plot.plot_item.getAxis("left")
    assert axis.pen().color().name() == DARK.foreground
    pens = [item.opts["pen"].color().name() for item in window.plot.plot_item.listDataItems()]
    assert pens == list(TABLEAU_ON_DARK[:2])
    window.actions.themes["light"].trigger()
    QApplication.processEvents()
    assert not is_dark(QApplication.palette())
    pens = [item.opts["pen"].color().name() for item in window.plot.plot_item.listDataItems()]
    assert pens == list(TABLEAU[:2])
    assert background(window.plot) == "#ffffff"


def test_the_choice_is_remembered(qtbot, window_on, tmp_path, store):
    first = window_on(store)
    first.actions.themes["dark"].trigger()
    first.close()
    second = window_on(store)
    try:
        assert second.actions.themes["dark"].isChecked()
        assert is_dark(QApplication.palette()) and second.plot.plot_theme == DARK
    finally:
        second.set_theme("system")
        second.close()


def test_curve_colours_stay_distinguishable_in_both_themes():
    for theme in (LIGHT, DARK):
        assert len(set(theme.curves)) == 10
        back = QColor(theme.background)
        for colour in theme.curves:
            # Apart from the background by a clear step of lightness.
            assert abs(QColor(colour).lightness() - back.lightness()) > 60, (theme.name, colour)
    assert same_hue(TABLEAU[3], DARK) == TABLEAU_ON_DARK[3]
    assert same_hue(TABLEAU_ON_DARK[3], LIGHT) == TABLEAU[3]


def test_a_panel_made_under_a_dark_palette_starts_dark(qtbot):
    app = QApplication.instance()
    from iris_gui.ui.window.theme import built_palette

    app.setPalette(built_palette(True))
    try:
        panel = LossPlotPanel()
        qtbot.addWidget(panel)
        assert panel.plot_theme == DARK
        assert background(panel) == DARK.background
    finally:
        app.setPalette(QPalette())


def test_an_export_is_light_whatever_the_screen_shows(qtbot, tmp_path):
    panel = LossPlotPanel()
    qtbot.addWidget(panel)
    panel.resize(800, 500)
    panel.show()
    panel.set_overlays([PlotCurve("run 1", "run 1", np.linspace(1.0, 0.1, 200, dtype=np.float32))])
    panel.apply_plot_theme(DARK)
    with light_plots([panel]):
        assert panel.plot_theme == LIGHT and not panel.updatesEnabled()
        plot_export.export_png(panel, tmp_path / "loss.png", 800)
    assert panel.plot_theme == DARK and panel.updatesEnabled()
    image = QImage(str(tmp_path / "loss.png"))
    assert image.pixelColor(5, 5).name() == "#ffffff"
