"""Help > About: versions of the app, torch, Qt, pyqtgraph and Python, the devices, and the
data folder (selectable, and a link that opens it).

torch's version and the devices come from the worker process (the window never imports torch);
before the worker reports, torch's version is read from its installed package's metadata.
"""

from __future__ import annotations

import html
import platform
from importlib import metadata
from pathlib import Path

import pyqtgraph
from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, QUrl, qVersion
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QVBoxLayout,
    QWidget,
)

from iris_gui.ui.jobs.training_controller import TrainingController
from iris_gui.ui.panels.shared.plain_text import plain
from iris_gui.ui.window.app_icon import app_icon
from iris_gui.ui.window.open_folder import data_folder, open_data_folder
from iris_gui.version import __version__


def torch_version(controller: TrainingController) -> str:
    if controller.torch_version:
        return controller.torch_version
    try:
        return f"{metadata.version('torch')} (installed; the worker has not reported yet)"
    except metadata.PackageNotFoundError:
        return "not installed"


def about_text(controller: TrainingController, folder: Path | None = None) -> str:
    folder = data_folder(None) if folder is None else folder
    devices = "<br>".join(html.escape(d.describe()) for d in controller.devices) or \
        "still detecting… (the worker process is starting)"
    link = QUrl.fromLocalFile(str(folder)).toString()
    rows = (("torch", html.escape(torch_version(controller))),
            ("Qt", f"{qVersion()} (PySide6 {pyside_version})"),
            ("pyqtgraph", pyqtgraph.__version__),
            ("Python", f"{platform.python_version()} ({platform.python_implementation()})"),
            ("Devices", devices),
            ("Data folder", f'<a href="{html.escape(link)}">{html.escape(str(folder))}</a>'))
    table = "".join(f"<tr><td style='padding-right:12px' valign='top'><b>{name}</b></td>"
                    f"<td>{value}</td></tr>" for name, value in rows)
    return ("<p>A lab for timing PyTorch training on the CPU and on accelerators.</p>"
            f"<table cellspacing='3'>{table}</table>")


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None, controller: TrainingController,
                 store: object | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About iris-gui")
        self.store = store
        icon = plain(QLabel())  # a picture, no words
        icon.setPixmap(app_icon().pixmap(64, 64))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.title = QLabel(f"<h3>iris-gui {__version__}</h3>", textFormat=Qt.TextFormat.RichText)
        self.details = QLabel(about_text(controller, data_folder(store)))
        self.details.setTextFormat(Qt.TextFormat.RichText)
        # Selectable so a bug report can quote it; links handled here, not by the label, so a
        # missing file manager still shows the path in the status bar.
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.details.setOpenExternalLinks(False)
        self.details.linkActivated.connect(self.open_data_folder)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        text = QVBoxLayout()
        text.addWidget(self.title)
        text.addWidget(self.details)
        row = QHBoxLayout()
        row.addWidget(icon)
        row.addLayout(text, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(buttons)

    def open_data_folder(self, _link: str = "") -> bool:
        window = self.parent()
        status = window.statusBar() if isinstance(window, QMainWindow) else None
        return open_data_folder(self.store, status)


def show_about(parent: QWidget, controller: TrainingController) -> AboutDialog:
    dialog = AboutDialog(parent, controller, getattr(parent, "store", None))
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog
