"""A long message (a failed Explain's reason, a failed run's) never widens the window: the line
that shows it is elided at the width it has, and its tooltip holds the whole text; the window
keeps the screen's width, at 1280×800 and at 1024×700."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect

from iris_gui.ui.window.geometry import fit_geometry

REASON = ("the worker process sent what this end cannot use: its 'chunk' message has "
          "chunk.epochs_done 3,001, outside 0..3,000; it was restarted. ") * 4


@pytest.mark.parametrize("screen", [QRect(0, 0, 1280, 800), QRect(0, 0, 1024, 700)])
def test_a_long_reason_is_elided_with_its_whole_text_in_the_tooltip(qtbot, window_on, store,
                                                                     screen) -> None:
    window = window_on(store)
    window.setGeometry(fit_geometry(None, screen))
    window.arrange_docks()
    width = window.width()
    window.explain_dock.raise_()
    window.explain.show_error(REASON)
    window.status.begin(7, "cpu · eager · every:200", 3000)
    window.status.end(7, f"Run 7 failed: 486 epochs — {REASON}")
    qtbot.wait(50)
    assert window.width() == width <= screen.width()
    assert window.minimumSizeHint().width() <= screen.width()
    for label, whole in ((window.explain.status_label, f"Explain failed: {REASON}"),
                         (window.status.progress_label, f"Run 7 failed: 486 epochs — {REASON}")):
        assert label.text() == whole and label.is_elided()
        assert label.toolTip() == whole
        assert label.geometry().right() <= window.width()
    # A short line is shown whole, with no tooltip to repeat it.
    window.explain.show_error("no GPU")
    assert not window.explain.status_label.is_elided()
    assert window.explain.status_label.toolTip() == ""
