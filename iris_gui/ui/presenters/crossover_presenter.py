"""CrossoverPresenter: the Crossover view's sweeps through the controller and the store.

Start queues the settings' sweep; each measured point grows the view and the progress (with the
time left for the points to come, engine/timing/sweep_left.py); the finished sweep is saved in one transaction, joins the
list of earlier sweeps and is shown as stored. An earlier sweep is reopened from the store.
Start is on only while the controller is idle, as Train is.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from iris_gui.engine.records.note_list import answers, families
from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.engine.spec.errors import EngineError
from iris_gui.engine.timing.sweep_left import SweepTimeLeft
from iris_gui.ui.jobs.run_state import RunState

if TYPE_CHECKING:
    from iris_gui.ui.presenters.views import Views

MESSAGE_MS = 8000


class CrossoverPresenter(QObject):
    def __init__(self, views: Views, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.views = views
        self.panel = views.crossover
        self.clock = time.monotonic  # a test's own clock replaces it
        self._left: SweepTimeLeft | None = None  # the running sweep's time left
        controller = views.controller
        self.panel.start_requested.connect(self.start)
        self.panel.stop_requested.connect(controller.stop)
        self.panel.reopen_requested.connect(self.reopen)
        controller.sweep_point.connect(self._on_point)
        controller.sweep_next.connect(self._on_next)
        controller.sweep_kept.connect(self._on_finished)
        controller.state_changed.connect(self._on_state)
        controller.devices_ready.connect(self.panel.set_devices)
        if controller.devices:
            self.panel.set_devices(controller.devices)
        self._on_state(controller.state)
        self.refresh_history()

    def start(self, spec: SweepSpec) -> None:
        w = self.views
        self._left = SweepTimeLeft(spec, self.clock())
        self.panel.begin(spec)
        self.panel.set_running(True)
        w.controller.sweep(spec, w.controls.execution())
        w.status.showMessage("Sweep queued: its points appear as they are measured", MESSAGE_MS)

    def reopen(self, sweep_id: int) -> None:
        try:
            stored = self.views.store.get_sweep(sweep_id)
        except EngineError as error:
            self._say(f"The sweep cannot be reopened: {error}")
            return
        self.panel.set_result(stored.result)
        self.panel.set_spec(stored.result.spec)  # its settings, ready to sweep again or vary
        self._say(f"Showing sweep {stored.id} from {stored.created_at}")

    def refresh_history(self) -> None:
        """The stored sweeps, newest first; a store error is said and the list kept."""
        try:
            stored = self.views.store.list_sweeps()
            kept = self.views.store.kept_ceilings()
        except EngineError as error:
            self._say(f"The earlier sweeps cannot be listed: {error}")
            return
        self.panel.set_history([(s.id, s.label()) for s in reversed(stored)])
        sweeps = [(s.id, s.result) for s in stored]
        self.panel.set_answers(answers(sweeps, kept), families(sweeps))

    def _on_next(self, done: int, total: int) -> None:
        """A point begins: the count is known before its first point ends, which can take
        minutes (a batch sweep's smallest batch)."""
        if self._left is None:
            return  # a sweep someone else queued: its points say where it is
        self.panel.show_progress(done, total, self._left.seconds_left, measuring=True)

    def _on_point(self, point: SweepPoint, done: int, total: int) -> None:
        if self._left is None:  # a sweep someone else queued (the CLI has its own view)
            self._left = SweepTimeLeft(None, self.clock())
            self.panel.set_running(True)
        self.panel.add_point(point)
        self._left.add(point, done, total, self.clock())
        self.panel.show_progress(done, total, self._left.seconds_left)

    def _on_finished(self, result: SweepResult, sweep_id: int | None, unsaved: str) -> None:
        """The sweep ended and the job service has saved it (in the worker's thread)."""
        self._left = None
        self.panel.set_running(False)
        if unsaved:
            self.panel.set_result(result)
            self._say(f"The sweep could not be saved: {unsaved}")
            return
        self.views.watch.absorb()  # the window's own save: the watch need not reload for it
        self.refresh_history()
        self.panel.set_result(result)
        found = sum(1 for c in result.crossovers if c.at is not None)
        self._say(f"Sweep {sweep_id} {result.status}: {len(result.points)} points, "
                  f"{found} crossing{'' if found == 1 else 's'}")

    def _on_state(self, state: RunState) -> None:
        self.panel.set_ready(state.can_train)

    def _say(self, text: str) -> None:
        self.views.status.showMessage(text, MESSAGE_MS)
