"""MainWindow: composes the panels; the run's path through them lives in RunPresenter."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QShowEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from iris_gui.figures.plot_theme import light_plots
from iris_gui.store.paths import log_dir
from iris_gui.store.runs import RunStore
from iris_gui.ui.jobs.training_controller import TrainingController
from iris_gui.ui.panels.crossover.panel import CrossoverPanel
from iris_gui.ui.panels.explain.panel import ExplainPanel
from iris_gui.ui.panels.ladder.panel import LadderPanel
from iris_gui.ui.panels.loss_plot.panel import LossPlotPanel
from iris_gui.ui.panels.results.panel import ResultsPanel
from iris_gui.ui.panels.roofline.panel import RooflinePanel
from iris_gui.ui.panels.run.panel import BUSY_STATES, ControlsPanel
from iris_gui.ui.panels.run.status import RunStatusBar
from iris_gui.ui.panels.shared.plain_text import plain_tip
from iris_gui.ui.presenters.crossover_presenter import CrossoverPresenter
from iris_gui.ui.presenters.explain_presenter import ExplainPresenter
from iris_gui.ui.presenters.hosts_presenter import HostsPresenter
from iris_gui.ui.presenters.ladder_presenter import LadderPresenter
from iris_gui.ui.presenters.machine_presenter import MachinePresenter
from iris_gui.ui.presenters.roofline_presenter import RooflinePresenter
from iris_gui.ui.presenters.run_presenter import RunPresenter, empty_plot_hint
from iris_gui.ui.presenters.views import Views
from iris_gui.ui.window import close_during_run, export_dialogs
from iris_gui.ui.window.about import show_about
from iris_gui.ui.window.machine_notice import MachineNotice
from iris_gui.ui.window.menus import build_menus
from iris_gui.ui.window.open_folder import open_folder
from iris_gui.ui.window.recent import keep_recent
from iris_gui.ui.window.settings import AppSettings
from iris_gui.ui.window.shortcuts import ShortcutsDialog
from iris_gui.ui.window.store_watch import StoreWatch
from iris_gui.ui.window.theme import ThemeController
from iris_gui.ui.window.window_placement import WindowPlacement

# Bumped whenever the docks change: a layout saved with other docks is then not restored (Qt
# would squeeze a new dock beside the old ones) and the default arrangement is used.
LAYOUT_VERSION = 5
# Wide enough for the device combo to show a GPU's name and the form's labels unclipped.
CONTROLS_MIN_WIDTH = 360
# The bottom tabs' share of the height below the menu bar: the plot keeps more than half.
BOTTOM_SHARE = 0.4


class MainWindow(QMainWindow):
    def __init__(self, store: RunStore, settings: AppSettings,
                 controller: TrainingController) -> None:
        super().__init__()
        self.setWindowTitle("iris-gui — PyTorch training timer")
        self.store, self.settings, self.controller = store, settings, controller
        self.plot = LossPlotPanel()
        self.controls = ControlsPanel()
        self.results = ResultsPanel(store)
        self.explain = ExplainPanel()
        self.ladder = LadderPanel()
        self.crossover = CrossoverPanel()
        self.roofline = RooflinePanel()
        self.status = RunStatusBar()
        self.machine_notice = MachineNotice()
        self.setCentralWidget(_above(self.machine_notice, self.plot))
        self.setStatusBar(self.status)
        # The Run panel takes the whole left edge, so every control it holds fits in a
        # 1280×800 screen's height; the bottom tabs sit under the plot alone.
        self.setCorner(Qt.Corner.TopLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.controls.setMinimumWidth(CONTROLS_MIN_WIDTH)
        self.controls_dock = self._dock("Run", "controls", self.controls, Qt.LeftDockWidgetArea)
        self.results_dock = self._dock("Results", "results", self.results, Qt.BottomDockWidgetArea)
        self.explain_dock = self._dock("Explain", "explain", self.explain, Qt.BottomDockWidgetArea)
        self.ladder_dock = self._dock("Ladder", "ladder", self.ladder, Qt.BottomDockWidgetArea)
        # The Crossover view needs ~790 px across (its settings beside the plot): in a
        # scroll area, so that it cannot make the window wider than a 1280×800 screen.
        self.crossover_dock = self._dock("Crossover", "crossover", _scrolled(self.crossover),
                                         Qt.BottomDockWidgetArea)
        self.tabifyDockWidget(self.results_dock, self.explain_dock)
        self.tabifyDockWidget(self.explain_dock, self.ladder_dock)
        self.roofline_dock = self._dock("Roofline", "roofline", self.roofline,
                                        Qt.BottomDockWidgetArea)
        self.tabifyDockWidget(self.ladder_dock, self.crossover_dock)
        self.tabifyDockWidget(self.crossover_dock, self.roofline_dock)
        self.results_dock.raise_()
        self.actions = build_menus(self)
        self.recent = keep_recent(self.controls.form, self.recent_csv_menu, settings.qsettings)
        for dock in (self.controls_dock, self.results_dock, self.explain_dock, self.ladder_dock,
                     self.crossover_dock, self.roofline_dock):
            self.view_menu.addAction(dock.toggleViewAction())
        self.theme = ThemeController(self)
        # Runs and sweeps other processes save (the CLI) join the views as they land.
        self.store_watch = StoreWatch(store, self)
        controller.keep_in(store.path)  # the job service saves there, in the worker's thread
        views = Views(store, controller, self.status, self.controls, self.plot, self.results,
                      self.explain, self.ladder, self.crossover, self.actions, self.ladder_dock,
                      self.store_watch)
        self.ladder_presenter = LadderPresenter(views, self)
        self.presenter = RunPresenter(views, self.ladder_presenter, self)
        self.explain_presenter = ExplainPresenter(views, self)
        self.crossover_presenter = CrossoverPresenter(views, self)
        self.hosts_presenter = HostsPresenter(views, self)
        self.roofline_presenter = RooflinePresenter(views, self.roofline, self.roofline_dock,
                                                    self)
        self.store_watch.changed.connect(self.results.refresh)
        self.store_watch.changed.connect(self.crossover_presenter.refresh_history)
        # The GPU wins? answers place each sweep's series under the ceilings just kept.
        controller.ceilings_measured.connect(lambda *_: self.crossover_presenter.refresh_history())
        self.machine_presenter = MachinePresenter(views, self.machine_notice, settings, self)
        self.placement = WindowPlacement(self)
        self.quit_question: QMessageBox | None = None
        self._quit_confirmed = False
        self._connect_actions()
        self._restore()
        closed = close_during_run.take(store.path)
        if closed:
            # Beside the run's progress, where it stays until the next run starts.
            self.presenter.name_run(*closed)

    def _dock(self, title: str, name: str, widget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"{name}-dock")  # saveState() needs stable names
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _connect_actions(self) -> None:
        a = self.actions
        a.train.triggered.connect(self.controls.train_button.click)
        a.stop.triggered.connect(self.controls.stop_button.click)
        a.run_all.triggered.connect(self.controls.run_all_button.click)
        a.run_ladder.triggered.connect(self.controls.ladder_button.click)
        a.run_ladder_everywhere.triggered.connect(self._ladder_everywhere)
        a.refresh_devices.triggered.connect(self.presenter.refresh_devices)
        a.hosts.triggered.connect(lambda: self.hosts_presenter.show_dialog(self))
        a.quit.triggered.connect(self.request_quit)
        a.about.triggered.connect(lambda: show_about(self, self.controller))
        a.open_log_folder.triggered.connect(self.open_log_folder)
        a.log_y.toggled.connect(self.plot.set_log_y)
        self.plot.log_y_changed.connect(a.log_y.setChecked)
        for mode, action in a.themes.items():
            action.triggered.connect(lambda _=False, mode=mode: self.set_theme(mode))
        a.shortcuts.triggered.connect(self.show_shortcuts)
        self.controls.config_changed.connect(self._update_empty_hint)
        self.results.columns_changed.connect(self._remember_columns)
        self.results.baseline_changed.connect(self._remember_baseline)
        self.controls.form.advanced.toggled.connect(self._remember_advanced)
        sweep, roof = self.crossover, self.roofline
        exports = {
            a.export_png: lambda: export_dialogs.export_plot_png(self, self.plot),
            a.export_svg: lambda: export_dialogs.export_plot_svg(self, self.plot),
            a.export_results_csv: lambda: export_dialogs.export_results_csv(self, self.results),
            a.export_curves_csv: lambda: export_dialogs.export_curves(self, self.plot),
            a.export_ladder_png: lambda: export_dialogs.export_ladder(self, self.ladder, "png"),
            a.export_ladder_svg: lambda: export_dialogs.export_ladder(self, self.ladder, "svg"),
            a.export_ladder_csv: lambda: export_dialogs.export_ladder(self, self.ladder, "csv"),
            a.export_crossover_png: lambda: export_dialogs.export_crossover(self, sweep, "png"),
            a.export_crossover_svg: lambda: export_dialogs.export_crossover(self, sweep, "svg"),
            a.export_crossover_csv: lambda: export_dialogs.export_crossover(self, sweep, "csv"),
            a.export_roofline_png: lambda: export_dialogs.export_roofline(self, roof, "png"),
            a.export_roofline_svg: lambda: export_dialogs.export_roofline(self, roof, "svg"),
            a.export_roofline_csv: lambda: export_dialogs.export_roofline(self, roof, "csv"),
            a.export_report: lambda: export_dialogs.export_report(self, self),
            a.export_tensorboard: lambda: export_dialogs.export_tensorboard(self, self),
        }
        for action, export in exports.items():
            action.triggered.connect(lambda _=False, export=export: self._export(export))

    def _export(self, export) -> None:
        # Figures leave the app light, whatever the screen shows: they end up in documents.
        with light_plots([self.plot, self.explain, self.ladder, self.crossover.plot,
                          self.roofline]):
            self._report(export())

    def set_theme(self, mode: str) -> None:
        """View → Theme: follow the system, or stay light or dark; remembered."""
        self.theme.set_mode(mode)
        self.actions.themes[self.theme.mode].setChecked(True)
        self.settings.theme = self.theme.mode

    def show_shortcuts(self) -> ShortcutsDialog:
        dialog = ShortcutsDialog(self)
        dialog.show()
        return dialog

    def _update_empty_hint(self) -> None:
        try:
            config = self.controls.config()
        except ValueError:
            return  # the form says what is wrong; the hint keeps the last good run
        self.plot.set_empty_hint(empty_plot_hint(config))

    def _remember_columns(self, hidden: list[str]) -> None:
        self.settings.hidden_columns = hidden
        self.settings.known_columns = self.results.column_keys()

    def _remember_baseline(self, run_id: int | None) -> None:
        self.settings.baseline_id = run_id

    def _remember_advanced(self, expanded: bool) -> None:
        self.settings.advanced_open = expanded

    def _ladder_everywhere(self) -> None:
        if self.controls.ladder_button.isEnabled():
            self.presenter.run_ladder(self.controls.form.ladder_base(), everywhere=True)

    def open_log_folder(self) -> None:
        """Help → Open Log Folder: the folder in the system's file manager."""
        open_folder(log_dir, self.status, "log folder", "Logs are in")

    def _report(self, text: str | None) -> None:
        if text:
            self.status.showMessage(text, 8000)

    def _restore(self) -> None:
        config, execution = self.settings.load_config()
        self.controls.set_config(config)
        self.controls.set_execution(execution)
        self.controls.form.advanced.set_expanded(self.settings.advanced_open)
        self.plot.set_log_y(self.settings.log_y)
        self.set_theme(self.settings.theme)
        hidden = self.settings.hidden_columns
        if hidden is not None:
            self.results.set_hidden_columns(hidden, self.settings.known_columns)
        self.results.restore_baseline(self.settings.baseline_id)
        self._update_empty_hint()
        geometry, state = self.settings.load_window()
        if geometry is not None:
            self.restoreGeometry(geometry)
        self.placement.place(restored=geometry is not None)
        if state is None or not self.restoreState(state, LAYOUT_VERSION):
            self.arrange_docks()

    def arrange_docks(self) -> None:
        """The default arrangement: the Run panel at its narrowest, the bottom tabs under the
        plot at ``BOTTOM_SHARE`` of the height."""
        self.resizeDocks([self.controls_dock], [CONTROLS_MIN_WIDTH], Qt.Orientation.Horizontal)
        self.resizeDocks([self.results_dock], [round(self.height() * BOTTOM_SHARE)],
                         Qt.Orientation.Vertical)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.placement.shown()

    def show_store_notice(self) -> None:
        if self.store.notice:
            # It names the store's files, whose paths may look like markup.
            QMessageBox.information(self, "Runs store", plain_tip(self.store.notice))

    def request_quit(self) -> None:
        """File → Quit, as the window's close button: asks first while a run is in flight."""
        if self._run_in_flight():
            self._ask_to_stop()
        else:
            self.close()

    def _run_in_flight(self) -> bool:
        return self.controller.state in BUSY_STATES and not self._quit_confirmed

    def _ask_to_stop(self) -> None:
        if self.quit_question is None or not self.quit_question.isVisible():
            self.quit_question = close_during_run.ask_to_stop(self, self._stop_and_quit)

    def _stop_and_quit(self) -> None:
        self._quit_confirmed = True
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        # Only the user's own close asks (the close button: a spontaneous event); one the
        # program makes (Ctrl+C in the terminal, SIGTERM, the self-test) goes ahead.
        if event.spontaneous() and self._run_in_flight():
            event.ignore()
            self._ask_to_stop()
            return
        try:
            self.settings.save_config(self.controls.config(), self.controls.execution())
        except ValueError:
            pass  # an invalid form is not worth keeping; the last good one stays saved
        self.settings.save_window(self.saveGeometry(), self.saveState(LAYOUT_VERSION))
        self.settings.log_y = self.actions.log_y.isChecked()
        self.presenter.closing = True
        self.store_watch.stop()
        self.controller.shutdown()
        if self.presenter.stopped_on_close is not None:
            close_during_run.remember(self.store.path, *self.presenter.stopped_on_close)
        super().closeEvent(event)


def _above(notice: QWidget, view: QWidget) -> QWidget:
    """The notice over the view, taking only the height it needs while shown."""
    holder = QWidget()
    layout = QVBoxLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    layout.addWidget(notice)
    layout.addWidget(view, 1)
    return holder


def _scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea(widgetResizable=True, frameShape=QFrame.Shape.NoFrame)
    area.setWidget(widget)
    return area
