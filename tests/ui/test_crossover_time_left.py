"""The Crossover view's time left: from the points to come and the pace of those done (a test's
own clock, made-up points), said on one line of the progress bar at 1280×800."""

from __future__ import annotations

from iris_gui.engine.records.sweep_model import SweepPoint, SweepSpec, flops_per_epoch
from iris_gui.engine.words.sweep_progress import progress_text

SPEC = SweepSpec(rows=(120, 10_000, 1_000_000), devices=("cpu",), engines=("eager",),
                 threads=("1",))


def _point(rows: int, epoch_us: float, epochs: int) -> SweepPoint:
    return SweepPoint("cpu", "eager", 1, rows, 10, "completed", epoch_us, epoch_us / 50, epochs,
                      flops_per_epoch(rows, 4, (10,), 3))


def _window(window_on, store, qtbot):
    window = window_on(store)
    window.resize(1280, 800)
    window.crossover_dock.raise_()
    qtbot.waitUntil(lambda: window.crossover.progress_bar.isVisible())
    return window


def test_the_million_rows_to_come_count_at_their_own_pace(qtbot, window_on, store):
    window = _window(window_on, store, qtbot)
    presenter, bar = window.crossover_presenter, window.crossover.progress_bar
    now = [100.0]
    presenter.clock = lambda: now[0]
    presenter.start(SPEC)
    sweep_point = window.controller.sweep_point
    now[0] += 3.0  # the worker's warm-up and the first window: where the pace starts
    sweep_point.emit(_point(120, 50.0, 6000), 1, 3)
    assert bar.text() == "point 1 of 3"
    now[0] += 0.5  # 0.2 s of setup and a 0.3 s window of 2 ms epochs
    sweep_point.emit(_point(10_000, 2000.0, 150), 2, 3)
    # 1,000,000 rows: about 0.2 s an epoch, so 20 epochs (min epochs) make a 4 s window; the
    # mean time per point so far (1.75 s) said "about 2 s".
    assert bar.text() == "point 2 of 3 · about 5 s left"
    now[0] += 4.6
    sweep_point.emit(_point(1_000_000, 197_000.0, 20), 3, 3)
    assert bar.text() == "point 3 of 3"


def test_the_longest_words_fit_on_one_line_at_1280_by_800(qtbot, window_on, store):
    window = _window(window_on, store, qtbot)
    panel, bar = window.crossover, window.crossover.progress_bar
    for done, total, left in ((13, 20, 150.0), (888, 999, 599.0), (1, 999, 7200.0)):
        panel.show_progress(done, total, left)
        words = progress_text(done, total, left)
        assert bar.text() == words and bar.toolTip() == words
        assert bar.drawn_text() == words  # drawn whole: nothing cut, nothing wrapped


def test_a_narrower_bar_cuts_its_words_rather_than_wrapping_them(qtbot, window_on, store):
    window = _window(window_on, store, qtbot)
    bar = window.crossover.progress_bar
    window.crossover.show_progress(13, 20, 150.0)
    bar.setFixedWidth(120)
    qtbot.waitUntil(lambda: bar.width() == 120)
    drawn = bar.drawn_text()
    assert drawn.endswith("…") and "\n" not in drawn
    assert bar.fontMetrics().horizontalAdvance(drawn) <= bar.contentsRect().width()
    assert bar.toolTip() == "point 13 of 20 · about 2 min 30 s left"

