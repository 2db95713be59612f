"""Where the window goes: the decision as a pure function of rectangles, for any screen."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMargins, QRect, QSize

from iris_gui.ui.window.geometry import ASSUMED_FRAME, PREFERRED, first_geometry, fit_geometry, fits

FRAME = QMargins(1, 30, 1, 1)
LAPTOP = QRect(0, 0, 1280, 800)
LAPTOP_WITH_PANEL = QRect(0, 27, 1280, 773)  # a desktop's top bar takes the first rows
FULL_HD = QRect(0, 0, 1920, 1040)  # 1920×1080 with a 40-pixel task bar
LARGE = QRect(0, 0, 2560, 1400)
RIGHT_SCREEN = QRect(1920, 0, 1280, 800)  # a second screen to the right of the first


@pytest.mark.parametrize("available", [LAPTOP, LAPTOP_WITH_PANEL, FULL_HD, LARGE, RIGHT_SCREEN])
@pytest.mark.parametrize("frame", [FRAME, ASSUMED_FRAME, QMargins()])
def test_a_first_launch_fits_its_frame_on_the_screen(available, frame):
    placed = first_geometry(available, frame)
    assert fits(placed, available, frame)
    assert fit_geometry(None, available, frame) == placed


def test_a_small_screen_is_used_whole():
    placed = first_geometry(LAPTOP, FRAME)
    assert placed.marginsAdded(FRAME) == LAPTOP
    assert placed.size() == QSize(1278, 769)


def test_a_large_screen_gets_a_comfortable_window_in_its_middle():
    placed = first_geometry(FULL_HD, FRAME)
    assert placed.size() == PREFERRED
    assert abs(placed.marginsAdded(FRAME).center().x() - FULL_HD.center().x()) <= 1
    assert first_geometry(LARGE, FRAME).size() == QSize(1920, 1050)  # three quarters


def test_a_restored_geometry_that_fits_is_kept():
    saved = QRect(100, 80, 1000, 600)
    assert fit_geometry(saved, LAPTOP, FRAME) == saved


def test_a_restored_geometry_larger_than_the_screen_is_shrunk_onto_it():
    saved = QRect(200, 100, 2400, 1300)  # saved on a large screen
    placed = fit_geometry(saved, LAPTOP, FRAME)
    assert fits(placed, LAPTOP, FRAME)
    assert placed.size() == QSize(1278, 769)


def test_a_restored_geometry_off_the_screen_is_moved_back_as_little_as_it_takes():
    # Saved on a second screen that is gone: moved onto the remaining one, size kept.
    placed = fit_geometry(QRect(2100, 120, 900, 600), LAPTOP, FRAME)
    assert fits(placed, LAPTOP, FRAME) and placed.size() == QSize(900, 600)
    assert placed.right() + FRAME.right() == LAPTOP.right() and placed.top() == 120
    # Hanging over the top-left corner: moved right and down just enough.
    placed = fit_geometry(QRect(-50, -10, 900, 600), LAPTOP, FRAME)
    assert placed.topLeft().toTuple() == (FRAME.left(), FRAME.top())


def test_a_restored_geometry_on_the_second_screen_stays_there():
    saved = QRect(2000, 100, 1000, 600)
    assert fit_geometry(saved, RIGHT_SCREEN, FRAME) == saved
