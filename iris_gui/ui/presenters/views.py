"""Views: what the presenters drive, handed to them by the main window.

A presenter wires panels to the controller and the store; it needs those, not the window that
lays them out. Taking this instead of ``MainWindow`` keeps the arrows one way: the window
imports the presenters, and nothing here imports the window.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDockWidget

    from iris_gui.store.runs import RunStore
    from iris_gui.ui.jobs.training_controller import TrainingController
    from iris_gui.ui.panels.crossover.panel import CrossoverPanel
    from iris_gui.ui.panels.explain.panel import ExplainPanel
    from iris_gui.ui.panels.ladder.panel import LadderPanel
    from iris_gui.ui.panels.loss_plot.panel import LossPlotPanel
    from iris_gui.ui.panels.results.panel import ResultsPanel
    from iris_gui.ui.panels.run.panel import ControlsPanel
    from iris_gui.ui.panels.run.status import RunStatusBar
    from iris_gui.ui.window.menus import WindowActions
    from iris_gui.ui.window.store_watch import StoreWatch


@dataclass(frozen=True)
class Views:
    store: RunStore
    controller: TrainingController
    status: RunStatusBar
    controls: ControlsPanel
    plot: LossPlotPanel
    results: ResultsPanel
    explain: ExplainPanel
    ladder: LadderPanel
    crossover: CrossoverPanel
    actions: WindowActions
    ladder_dock: QDockWidget  # the Ladder's tab: raised for a ladder, watched for visibility
    watch: StoreWatch  # told of the window's own saves, which it need not reload for
