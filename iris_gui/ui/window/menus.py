"""The window's actions and menus (File / Data set / Run / View / Help) with their shortcuts.

MainWindow connects the actions; Help → Open Data Folder and Data set → Open CSV… are connected
here, since they need nothing from the window but its store and status bar, or its Run panel.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMainWindow

from iris_gui.ui.window.csv_dialog import open_csv
from iris_gui.ui.window.open_folder import open_data_folder
from iris_gui.ui.window.theme import MODE_TITLES, MODES


@dataclass
class WindowActions:
    export_png: QAction
    export_svg: QAction
    export_results_csv: QAction
    export_curves_csv: QAction
    export_ladder_png: QAction
    export_ladder_svg: QAction
    export_ladder_csv: QAction
    export_crossover_png: QAction
    export_crossover_svg: QAction
    export_crossover_csv: QAction
    export_roofline_png: QAction
    export_roofline_svg: QAction
    export_roofline_csv: QAction
    export_report: QAction
    export_tensorboard: QAction
    quit: QAction
    open_csv: QAction
    train: QAction
    stop: QAction
    run_all: QAction
    run_ladder: QAction
    run_ladder_everywhere: QAction
    rerun_busy: QAction
    refresh_devices: QAction
    hosts: QAction
    log_y: QAction
    themes: dict[str, QAction]  # "system", "light", "dark": View → Theme, one checked
    shortcuts: QAction
    machine: QAction  # Help → What This Machine Can Measure…: the notice of this machine
    open_log_folder: QAction
    open_data_folder: QAction
    about: QAction


def build_menus(window: QMainWindow) -> WindowActions:
    def action(text: str, shortcut: QKeySequence | str | None = None, tip: str = "") -> QAction:
        made = QAction(text, window)
        if shortcut is not None:
            made.setShortcut(QKeySequence(shortcut))
        made.setStatusTip(tip)
        return made

    actions = WindowActions(
        export_png=action("Export Plot as &PNG…", "Ctrl+E", "Save the loss plot as a PNG image"),
        export_svg=action("Export Plot as &SVG…", "Ctrl+Shift+E", "Save the loss plot as SVG"),
        export_results_csv=action("Export &Results as CSV…", None, "Every stored run, one row each"),
        export_curves_csv=action("Export Selected &Curves as CSV…", None,
                                 "The loss curves shown in the plot, one row per epoch"),
        export_ladder_png=action("Export Ladder as P&NG…", None,
                                 "Save the engine ladder of the selected runs as a PNG image"),
        export_ladder_svg=action("Export Ladder as S&VG…", None,
                                 "Save the engine ladder of the selected runs as SVG"),
        export_ladder_csv=action("Export &Ladder as CSV…", None,
                                 "The engine ladder's rows, one per selected run"),
        export_crossover_png=action("Export Crossover as PN&G…", None,
                                    "Save the crossover plot of the shown sweep as a PNG image"),
        export_crossover_svg=action("Export Crossover &as SVG…", None,
                                    "Save the crossover plot of the shown sweep as SVG"),
        export_crossover_csv=action("Export Cr&ossover as CSV…", None,
                                    "The shown sweep's points with their fits, one row each"),
        export_roofline_png=action("Export Roofline as PNG…", None,
                                   "Save the roofline of the selected runs as a PNG image"),
        export_roofline_svg=action("Export Roofline as SVG…", None,
                                   "Save the roofline of the selected runs as SVG"),
        export_roofline_csv=action("Export Roofline as CSV…", None,
                                   "The roofline's roofs and marks, one row each"),
        export_report=action("Export &Report…", "Ctrl+Shift+R",
                             "The selected runs as one HTML file (or Markdown with its images): "
                             "figures, table, explain, environment, commands"),
        export_tensorboard=action("Export for &TensorBoard…", None,
                                  "The selected runs as TensorBoard event files, a folder each: "
                                  "loss curve, timings, settings as hparams"),
        quit=action("&Quit", QKeySequence.StandardKey.Quit),
        open_csv=action("Open &CSV…", "Ctrl+O",
                        "Train on your own data: a CSV file with a header line and a target "
                        "column"),
        train=action("&Train", "Ctrl+Return", "Train the configured run"),
        stop=action("&Stop", "Esc", "Stop the current run and keep what it did"),
        run_all=action("Run on &Every Device", "Ctrl+Shift+Return",
                       "Queue the note's experiment: every device x every loss-recording choice"),
        run_ladder=action("Run the &Ladder", "Ctrl+Shift+L",
                          "The note's loop, then every engine the selected device can run"),
        run_ladder_everywhere=action("Run the Ladder on Every De&vice", None,
                                     "The engine ladder on each detected device"),
        rerun_busy=action("Re-run &Busy Runs", None,
                          "Queue again every stored run measured on a busy CPU or with a noisy "
                          "steady state: their speedups are not results until then"),
        refresh_devices=action("&Refresh Devices", "F5"),
        hosts=action("&Hosts…", None, "Machines whose devices to train on, through ssh"),
        log_y=action("&Logarithmic Loss Axis", "Ctrl+L"),
        themes={mode: action(MODE_TITLES[mode], None, tip) for mode, tip in zip(MODES, (
            "Follow the system's light or dark colour scheme", "Light whatever the system says",
            "Dark whatever the system says"), strict=True)},
        shortcuts=action("&Keyboard Shortcuts", "Ctrl+/", "Every shortcut, in one list"),
        machine=action("What This Machine Can &Measure…", None,
                       "Whether a GPU is here, why not, and what to do here and elsewhere"),
        open_log_folder=action("Open &Log Folder", None,
                               "Where the tracebacks of failed runs are written"),
        open_data_folder=action("Open &Data Folder", None,
                                "Where the runs store, its logs and recovered saves are kept"),
        about=action("&About iris-gui"),
    )
    actions.quit.setShortcut(QKeySequence("Ctrl+Q"))
    actions.log_y.setCheckable(True)
    bar = window.menuBar()
    file_menu = bar.addMenu("&File")
    for item in (actions.export_png, actions.export_svg, actions.export_results_csv,
                 actions.export_curves_csv):
        file_menu.addAction(item)
    file_menu.addSeparator()
    for item in (actions.export_ladder_png, actions.export_ladder_svg, actions.export_ladder_csv):
        file_menu.addAction(item)
    file_menu.addSeparator()
    for item in (actions.export_crossover_png, actions.export_crossover_svg,
                 actions.export_crossover_csv):
        file_menu.addAction(item)
    file_menu.addSeparator()
    for item in (actions.export_roofline_png, actions.export_roofline_svg,
                 actions.export_roofline_csv):
        file_menu.addAction(item)
    file_menu.addSeparator()
    file_menu.addAction(actions.export_report)
    file_menu.addAction(actions.export_tensorboard)
    file_menu.addSeparator()
    file_menu.addAction(actions.quit)
    data_menu = bar.addMenu("&Data set")
    data_menu.addAction(actions.open_csv)
    window.recent_csv_menu = data_menu.addMenu("Open &Recent")
    run_menu = bar.addMenu("&Run")
    for item in (actions.train, actions.stop, actions.run_all, actions.run_ladder,
                 actions.run_ladder_everywhere, actions.rerun_busy):
        run_menu.addAction(item)
    run_menu.addSeparator()
    run_menu.addAction(actions.refresh_devices)
    run_menu.addAction(actions.hosts)
    view_menu = bar.addMenu("&View")
    view_menu.addAction(actions.log_y)
    theme_menu = view_menu.addMenu("&Theme")
    group = QActionGroup(window)
    for item in actions.themes.values():
        item.setCheckable(True)
        group.addAction(item)
        theme_menu.addAction(item)
    view_menu.addSeparator()
    window.view_menu = view_menu
    help_menu = bar.addMenu("&Help")
    help_menu.addAction(actions.machine)
    help_menu.addAction(actions.shortcuts)
    help_menu.addAction(actions.open_log_folder)
    help_menu.addAction(actions.open_data_folder)
    help_menu.addSeparator()
    help_menu.addAction(actions.about)
    # Looked up when chosen, not now: the window may replace its store or status bar later.
    actions.open_data_folder.triggered.connect(
        lambda: open_data_folder(getattr(window, "store", None), window.statusBar()))
    actions.open_csv.triggered.connect(lambda: open_csv(window))
    return actions
