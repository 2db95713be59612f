"""The first launch on a 1280×800 screen, view by view: with no saved
settings, each view (Run, Results, Explain, Ladder, Crossover) is switched to as a user would,
by its tab, and shows its primary controls without scrolling, and no word of it is cut."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QCheckBox,
    QComboBox,
    QLabel,
    QPushButton,
    QRadioButton,
    QStyle,
    QStyleOptionComboBox,
    QTabBar,
    QToolButton,
    QWidget,
)

from iris_gui.ui.panels.samples.ladder import sample_rows
from iris_gui.ui.panels.samples.sweep import sample_sweep
from iris_gui.ui.window.geometry import fit_geometry

LAPTOP = QRect(0, 0, 1280, 800)
HTML = re.compile(r"<[a-zA-Z/!]")  # rich text wraps and is measured by its document
VIEWS = ("Run", "Results", "Explain", "Ladder", "Crossover")


def primary(window, view: str) -> list[QWidget]:
    """What a view is for: the controls a user must reach without scrolling."""
    c, x = window.controls, window.crossover
    return {
        "Run": [c.train_button, c.stop_button],
        "Results": [window.results.view],
        "Explain": [window.explain.explain_button],
        "Ladder": [window.ladder.about_label, window.ladder._plot_widget],
        "Crossover": [x.about_label, x.start_button, x.stop_button, x.tabs.tabBar(), x.plot],
    }[view]


def view_widget(window, view: str) -> QWidget:
    return {"Run": window.controls, "Results": window.results, "Explain": window.explain,
            "Ladder": window.ladder, "Crossover": window.crossover}[view]


@pytest.fixture
def laptop(qtbot, open_window):
    """A first launch (no saved settings) at the size the window picks on a 1280×800 screen,
    the Ladder and Crossover showing sample rows so that their plots hold words."""
    window = open_window(worker="this process")  # nothing trains: how it looks
    window.setGeometry(fit_geometry(None, LAPTOP))
    window.arrange_docks()
    window.ladder.set_rows(sample_rows(), sample=True)
    window.crossover.set_result(sample_sweep())
    qtbot.wait(1)
    return window


def switch_to(qtbot, window, view: str) -> None:
    """Click the view's tab under the plot, as a user would (the Run panel is always shown)."""
    if view == "Run":
        return
    bar = next(b for b in window.findChildren(QTabBar)
               if view in [b.tabText(i) for i in range(b.count())] and b.isVisible())
    index = [bar.tabText(i) for i in range(bar.count())].index(view)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    qtbot.waitUntil(lambda: view_widget(window, view).isVisible()
                    and not view_widget(window, view).visibleRegion().isEmpty())


def scroll_areas(widget: QWidget) -> list[QAbstractScrollArea]:
    areas, parent = [], widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            areas.append(parent)
        parent = parent.parentWidget()
    return areas


def in_sight(widget: QWidget) -> bool:
    """Shown, and wholly inside the viewport of every scroll area around it as scrolled now."""
    # A scroll area (a table, a plot) is wholly covered by its viewport.
    shown = widget.viewport() if isinstance(widget, QAbstractScrollArea) else widget
    if not widget.isVisible() or shown.visibleRegion().isEmpty():
        return False
    for area in scroll_areas(widget):
        viewport = area.viewport()
        corner = widget.mapTo(viewport, QPoint(0, 0))
        if not viewport.rect().contains(QRect(corner, widget.size())):
            return False
    return True


def cut_words(root: QWidget) -> list[str]:
    """Every shown label, button and combo under ``root`` whose text does not fit its room."""
    cut = []
    for label in root.findChildren(QLabel):
        text = label.text()
        if not label.isVisible() or not text or HTML.search(text) or not label.pixmap().isNull():
            continue
        room = label.contentsRect().adjusted(label.margin(), label.margin(),
                                             -label.margin(), -label.margin())
        metrics = label.fontMetrics()
        if label.wordWrap():
            needed = metrics.boundingRect(QRect(0, 0, room.width(), 100_000),
                                          Qt.TextFlag.TextWordWrap, text)
            if needed.height() > room.height():
                cut.append(f"label {text!r}: {needed.height()} px tall in {room.height()}")
        elif metrics.horizontalAdvance(text) > room.width():
            cut.append(f"label {text!r}: {metrics.horizontalAdvance(text)} px in {room.width()}")
    for button in root.findChildren(QAbstractButton):
        text = button.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
        if not button.isVisible() or not text:
            continue
        if isinstance(button, (QCheckBox, QRadioButton, QToolButton)):
            # Their size hints are their words, icon and indicator, no minimum added.
            if button.width() < button.sizeHint().width():
                cut.append(f"button {text!r}: {button.width()} px of {button.sizeHint().width()}")
        elif isinstance(button, QPushButton):
            margin = button.style().pixelMetric(QStyle.PixelMetric.PM_ButtonMargin, None, button)
            icon = button.iconSize().width() + 4 if not button.icon().isNull() else 0
            needed = button.fontMetrics().horizontalAdvance(text) + icon + 2 * margin
            if needed > button.width():
                cut.append(f"button {text!r}: {needed} px in {button.width()}")
    for combo in root.findChildren(QComboBox):
        text = combo.currentText()
        if not combo.isVisible() or not text or combo.isEditable():
            continue
        option = QStyleOptionComboBox()
        combo.initStyleOption(option)
        field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                             QStyle.SubControl.SC_ComboBoxEditField, combo)
        icon = combo.iconSize().width() + 4 if not combo.itemIcon(combo.currentIndex()).isNull() \
            else 0
        needed = combo.fontMetrics().horizontalAdvance(text) + icon
        if needed > field.width():
            cut.append(f"combo {text!r}: {needed} px in {field.width()}")
    return cut


@pytest.mark.parametrize("view", VIEWS)
def test_each_views_primary_controls_are_in_sight_without_scrolling(qtbot, laptop, view):
    switch_to(qtbot, laptop, view)
    widgets = primary(laptop, view)
    # Polled: a scroll area settles its bars an event or two after its view is raised.
    try:
        qtbot.waitUntil(lambda: all(in_sight(w) for w in widgets), timeout=3000)
    except AssertionError:
        hidden = [type(w).__name__ for w in widgets if not in_sight(w)]
        pytest.fail(f"{view}: not in sight without scrolling: {hidden}")
    for area in scroll_areas(view_widget(laptop, view)):
        assert area.verticalScrollBar().value() == 0


@pytest.mark.parametrize("view", VIEWS)
def test_no_word_of_a_view_is_cut(qtbot, laptop, view):
    switch_to(qtbot, laptop, view)
    assert cut_words(view_widget(laptop, view)) == []


def test_the_crossover_legend_names_every_series_whole(qtbot, laptop):
    switch_to(qtbot, laptop, "Crossover")
    plot = laptop.crossover.plot
    scene = plot._view.mapToScene(plot._view.viewport().rect()).boundingRect()
    names = [label for _, label in plot.figure.legend.items]
    assert {label.text for label in names} >= {"cpu/eager/16 threads", "cuda:0/graph"}
    for label in names:
        assert scene.contains(label.sceneBoundingRect()), label.text


def test_the_crossover_view_does_not_scroll_at_1280_by_800(qtbot, laptop):
    switch_to(qtbot, laptop, "Crossover")
    outer = scroll_areas(laptop.crossover)
    assert outer, "the window keeps the view in a scroll area"
    for area in outer:
        assert area.horizontalScrollBar().maximum() == 0
        assert area.verticalScrollBar().maximum() == 0


def test_at_1024_by_700_no_word_of_the_ladder_or_crossover_is_cut(qtbot, laptop):
    laptop.setGeometry(fit_geometry(None, QRect(0, 0, 1024, 700)))
    laptop.arrange_docks()
    for view in ("Ladder", "Crossover"):
        switch_to(qtbot, laptop, view)
        assert cut_words(view_widget(laptop, view)) == [], view
    # Beside the Run panel whole: its description and chart are not behind a scroll.
    for area in scroll_areas(laptop.crossover):
        assert area.horizontalScrollBar().maximum() == 0


def test_the_crossover_settings_tab_cuts_no_word(qtbot, laptop):
    switch_to(qtbot, laptop, "Crossover")
    tabs = laptop.crossover.tabs
    bar = tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(0).center())
    qtbot.waitUntil(lambda: laptop.crossover.settings.isVisible())
    assert laptop.crossover.settings.rows_edit.isVisible()
    assert cut_words(laptop.crossover) == []


def test_the_check_finds_a_cut_label_button_and_combo(qtbot):
    """The check itself, on words squeezed on purpose: it must not pass by seeing nothing."""
    from PySide6.QtWidgets import QHBoxLayout

    root = QWidget()
    qtbot.addWidget(root)
    row = QHBoxLayout(root)
    label, button, combo = QLabel("hidden widths"), QPushButton("Run the ladder"), QComboBox()
    combo.addItem("every loss copied back per chunk")
    for widget in (label, button, combo):
        widget.setFixedWidth(40)
        row.addWidget(widget)
    root.show()
    qtbot.waitExposed(root)
    cut = cut_words(root)
    assert [line.split(":")[0] for line in cut] == [
        "label 'hidden widths'", "button 'Run the ladder'",
        "combo 'every loss copied back per chunk'"]
