"""ExplainPresenter: Explain for the selected runs (or the current config), through the worker.

A breakdown of a stored run is saved with it (and so reaches the results CSV); selecting runs
shows the breakdowns already stored for them, side by side. A run explained in this session
keeps its profiled window's trace (in the worker's session folder) for Save trace….
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QMessageBox

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.regime import place_breakdown
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import EngineError
from iris_gui.engine.words.labels import owned_label
from iris_gui.engine.words.regime_words import explained_regime
from iris_gui.store.files import check_export_target, write_atomically
from iris_gui.ui.jobs.run_state import RunState
from iris_gui.ui.panels.shared.plain_text import plain_tip

if TYPE_CHECKING:
    from iris_gui.ui.presenters.views import Views


TRACE_NAME = "explain-trace.json"


class ExplainPresenter(QObject):
    def __init__(self, views: Views, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.views = views
        views.explain.explain_requested.connect(self.explain_selection)
        views.explain.save_trace_requested.connect(self.save_trace)
        views.controller.explained.connect(self._on_explained)
        views.controller.explain_failed.connect(self._on_failed)
        views.explain.message.connect(lambda text: views.status.showMessage(text, 8000))
        views.controller.state_changed.connect(self._on_state)
        views.results.selection_changed.connect(self._show_stored)
        views.explain.regime_of = self.regime_of
        self._on_state(views.controller.state)

    def regime_of(self, breakdown: Breakdown) -> str:
        """The explained step against the latest kept ceilings of its device, in words; ""
        where none are kept (the Roofline view says how to measure them), so the pane keeps
        its room for the sentences."""
        try:
            kept = self.views.store.kept_ceilings()
        except EngineError:
            kept = []  # the store's trouble is said where runs are read
        placed = place_breakdown(breakdown, kept)
        return explained_regime(breakdown, placed) if placed.regime else ""

    def explain_selection(self) -> None:
        w = self.views
        runs = {run.id: run for run in w.results.model.runs}
        items = [(i, runs[i].result.config) for i in w.results.selected_ids() if i in runs]
        if not items:
            try:
                items = [(None, w.controls.config())]
            except ValueError as error:
                w.status.showMessage(str(error), 8000)
                return
        window_epochs = w.explain.window_epochs()
        w.controller.explain(items, window_epochs, w.controls.execution())
        names = ", ".join(owned_label(i, c).split(" · ")[0] for i, c in items)
        w.explain.set_busy(True, f"Profiling {window_epochs:,} epochs of {names}…")

    def _on_state(self, state: RunState) -> None:
        w = self.views
        w.explain.explain_button.setEnabled(state.can_train)
        if state is RunState.IDLE:
            w.explain.set_busy(False)

    def _on_explained(self, run_id: int | None, config: RunConfig, data: dict, trace: str,
                      unsaved: str) -> None:
        """The job service has explained the run and kept the breakdown with it (in the
        worker's thread), or says why it could not."""
        w = self.views
        if unsaved:
            w.status.showMessage(f"The breakdown could not be saved: {unsaved}", 8000)
        elif run_id is not None:
            w.watch.absorb()  # the window's own save: the watch need not reload for it
            w.results.refresh()
        w.explain.add_breakdown(owned_label(run_id, config), Breakdown.from_dict(data), trace)

    def save_trace(self, source: str) -> str | None:
        """Save trace…: the shown run's trace file copied where the user chooses (a .json
        name; never the store, a device or a folder), whole or not at all."""
        panel = self.views.explain
        chosen, _ = QFileDialog.getSaveFileName(panel, "Save trace", str(Path.home() / TRACE_NAME),
                                                "Trace, Chrome's format (*.json)")
        if not chosen:
            return None
        target = Path(chosen)
        if target.suffix.lower() != ".json":
            target = target.with_name(target.name + ".json")
        try:
            check_export_target(target)
            write_atomically(target, Path(source).read_bytes())
        except (EngineError, OSError) as error:
            QMessageBox.warning(panel, "Trace not saved", plain_tip(f"{target}: {error}"))
            return None
        said = f"Saved the trace to {target}: open it in ui.perfetto.dev or chrome://tracing"
        self.views.status.showMessage(said, 8000)
        return said

    def _on_failed(self, run_id: int | None, config: RunConfig, reason: str) -> None:
        self.views.explain.show_error(f"{owned_label(run_id, config)}: {reason}")

    def _show_stored(self, ids: list[int]) -> None:
        runs = {run.id: run for run in self.views.results.model.runs}
        stored = [(owned_label(i, runs[i].result.config), Breakdown.from_dict(runs[i].breakdown))
                  for i in ids if i in runs and runs[i].breakdown]
        if stored:
            self.views.explain.set_breakdowns(stored)
