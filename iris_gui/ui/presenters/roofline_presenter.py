"""RooflinePresenter: the Roofline view shows the runs selected in the results (placed as the
store reads them), the points of the sweep the Crossover view shows, the latest kept ceilings
of their devices (every device's when nothing is selected) and the datasheet chosen; its
Measure ceilings button measures the Run panel's device through the job service, and the
views that place runs (the results, Details) are read again once the new ceilings are kept.

The roofline is drawn only while its tab is on screen, once per burst of changes, as the
Ladder is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.roofline import datasheet_roof, roofs_for, run_mark, sweep_marks
from iris_gui.engine.spec.errors import EngineError
from iris_gui.engine.workers.messages import CeilingsAsked
from iris_gui.figures.roofline.roofline import rate
from iris_gui.ui.jobs.run_state import RunState

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDockWidget

    from iris_gui.ui.panels.roofline.panel import RooflinePanel
    from iris_gui.ui.presenters.views import Views

MAX_RUNS = 200
SAID_MS = 10_000
NONE_KEPT = "No ceilings kept yet: Measure ceilings measures the Run panel's device"


class RooflinePresenter(QObject):
    def __init__(self, views: Views, panel: RooflinePanel, dock: QDockWidget,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.views, self.panel = views, panel
        self._on_screen = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)  # after the burst of signals one click makes
        self._timer.timeout.connect(self.redraw)
        views.results.selection_changed.connect(self._changed)
        views.watch.changed.connect(self._changed)
        panel.datasheet_changed.connect(self._changed)
        panel.measure_requested.connect(self.measure)
        dock.visibilityChanged.connect(self._on_visibility)
        views.controller.ceilings_measured.connect(self._on_measured)
        views.controller.state_changed.connect(self._on_state)
        self._on_state(views.controller.state)

    def _on_visibility(self, visible: bool) -> None:
        self._on_screen = visible
        if visible:
            self._timer.start()

    def _changed(self, *_: object) -> None:
        if self._on_screen:
            self._timer.start()

    def _on_state(self, state: RunState) -> None:
        self.panel.measure_button.setEnabled(state.can_train)

    def redraw(self) -> None:
        """The selected runs, the Crossover's sweep and their roofs, drawn now; a store
        that cannot be read is said in the status bar and leaves the view as it was."""
        w = self.views
        try:
            kept = w.store.kept_ceilings()
        except EngineError as error:
            w.status.showMessage(f"The roofline cannot be shown: {error}", SAID_MS)
            return
        runs = {run.id: run for run in w.results.model.runs}
        chosen = [runs[i] for i in w.results.selected_ids()[:MAX_RUNS] if i in runs]
        marks = [mark for run in chosen
                 if (mark := run_mark(run.id, run.result, run.placement)) is not None]
        sweep = w.crossover.result()
        if sweep is not None:
            marks += sweep_marks(None, sweep, kept)
        roofs = roofs_for(marks, kept)
        sheet = self.panel.chosen_datasheet()
        if sheet is not None:
            roofs.append(datasheet_roof(sheet))
        shown = _shown(kept, {m.device for m in marks})
        self.panel.show_roofline(roofs, marks, "; ".join(_one(c) for c in shown) or NONE_KEPT)
        self.panel.ceilings_label.setToolTip("\n".join(_one(c, when=True) for c in shown))

    def measure(self) -> None:
        """The Run panel's device at its threads and precision, measured where runs train."""
        w = self.views
        try:
            config = w.controls.config()
        except ValueError as error:
            w.status.showMessage(str(error), SAID_MS)
            return
        threads = config.threads if config.device == "cpu" else None
        w.controller.measure_ceilings(CeilingsAsked(config.device, threads, config.precision),
                                      w.controls.execution())
        self.panel.set_measuring(True)
        w.status.showMessage(f"Measuring the ceilings of {config.device}…", SAID_MS)

    def _on_measured(self, ceilings: Ceilings | None, ceilings_id: int | None,
                     reason: str) -> None:
        w = self.views
        self.panel.set_measuring(False)
        if ceilings is None:
            w.status.showMessage(f"The ceilings could not be measured: {reason}", SAID_MS)
            return
        if reason:
            w.status.showMessage(f"The ceilings were measured but not kept: {reason}", SAID_MS)
        else:
            w.status.showMessage(f"Ceilings {ceilings_id} kept: {_one(ceilings, when=True)}",
                                 SAID_MS)
            w.watch.absorb()  # the window's own save: the watch need not reload for it
            w.results.refresh()  # each run's placement is read again, under the new ceilings
        self.redraw()


def _one(ceilings: Ceilings, when: bool = False) -> str:
    """"AMD EPYC, 1 thread: 83 GFLOP/s, 16.2 GB/s, 2.4 µs an op" (``when``: and when it was
    measured, at what precision)."""
    threads = (f", {ceilings.threads} thread{'s' if ceilings.threads != 1 else ''}"
               if ceilings.device == "cpu" else "")
    figures = (f"{ceilings.device_name}{threads}: {rate(ceilings.flops.median)}, "
               f"{ceilings.bandwidth.median / 1e9:.3g} GB/s, "
               f"{ceilings.op_floor.median * 1e6:.2g} µs an op")
    if not when:
        return figures
    return (f"{figures} ({ceilings.precision}, measured "
            f"{ceilings.measured_at[:16].replace('T', ' ')})")


def _shown(kept: list[Ceilings], devices: set[str]) -> list[Ceilings]:
    """Which measurements the roofs are: those of the marks' devices, else all kept."""
    return [c for c in kept if not devices or c.device_name in devices]
