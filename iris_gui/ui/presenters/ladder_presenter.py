"""LadderPresenter: the Ladder view shows ``ladder_rows`` of the runs selected in the results.

The curve deviation needs each run's full curve, which the results table does not hold, so the
runs are read from the store one by one. That is done only while the Ladder is on screen (a
selection made with it hidden is shown when its tab is raised), once per burst of selection
changes, and for at most ``MAX_RUNS`` runs, so a click in the table stays instant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

from iris_gui.engine.records.ladder import Skipped, ladder_rows
from iris_gui.engine.spec.errors import EngineError
from iris_gui.engine.words.counted import counted
from iris_gui.figures.ladder.ladder_text import run_facts

if TYPE_CHECKING:
    from iris_gui.ui.presenters.views import Views

MAX_RUNS = 60  # ten rungs on six devices
QUEUED_MS = 15_000


class LadderPresenter(QObject):
    def __init__(self, views: Views, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.views = views
        self._pending: list[int] | None = None  # a selection not yet shown
        self._on_screen = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)  # after the burst of signals one click makes
        self._timer.timeout.connect(self._show_pending)
        views.results.selection_changed.connect(self._on_selection)
        views.ladder_dock.visibilityChanged.connect(self._on_visibility)

    def _on_selection(self, ids: list[int]) -> None:
        self._pending = list(ids)
        if self._on_screen:
            self._timer.start()

    def _on_visibility(self, visible: bool) -> None:
        # Behind another dock's tab the Ladder still answers isVisible(); Qt says when its tab
        # is raised or lowered through this signal only.
        self._on_screen = visible
        if visible and self._pending is not None:
            self._timer.start()

    def _show_pending(self) -> None:
        if self._pending is None or not self._on_screen:
            return
        ids, self._pending = self._pending, None
        self.show_runs(ids)

    def queued(self, count: int, skipped: list[Skipped]) -> None:
        """A ladder was queued: the rungs left out are listed in the Ladder view, and the status
        bar says only how many. The whole list there ran under the run's progress, which
        the status bar keeps at its right: the two messages overlapped."""
        self.views.ladder.set_left_out([f"{s.device}/{s.engine}: {s.reason}" for s in skipped])
        left_out = f"; {len(skipped)} left out (listed in the Ladder view)" if skipped else ""
        self.views.status.showMessage(f"The ladder: {counted(count, 'run')} queued{left_out}",
                                       QUEUED_MS)

    def show_runs(self, ids: list[int]) -> None:
        """The ladder of these stored runs (the first ``MAX_RUNS``); a store error is said in
        the status bar and leaves the ladder as it was."""
        w = self.views
        shown = ids[:MAX_RUNS]
        try:
            runs = [w.store.get(run_id) for run_id in shown]
        except EngineError as error:
            w.status.showMessage(f"The ladder cannot be shown: {error}", 8000)
            return
        w.ladder.set_rows(ladder_rows([run.result for run in runs], [run.id for run in runs]),
                          {run.id: run_facts(run.result) for run in runs})
        if len(ids) > MAX_RUNS:
            w.status.showMessage(f"The ladder shows the first {MAX_RUNS} of the "
                                 f"{len(ids)} selected runs", 8000)
