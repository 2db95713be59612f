"""Help > About: versions of the app, torch (from the worker), Qt and pyqtgraph, and devices."""

from __future__ import annotations

import platform

import pyqtgraph
from PySide6 import __version__ as pyside_version
from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QMessageBox, QWidget

from iris_gui import __version__
from iris_gui.ui.training_controller import TrainingController


def about_text(controller: TrainingController) -> str:
    devices = "".join(f"<li>{d.describe()}</li>" for d in controller.devices) or \
        "<li>still detecting…</li>"
    torch_version = controller.torch_version or "loading…"
    return (
        f"<h3>iris-gui {__version__}</h3>"
        "<p>A lab for timing PyTorch training on the CPU and on accelerators.</p>"
        f"<p>torch {torch_version} · Qt {qVersion()} (PySide6 {pyside_version}) · "
        f"pyqtgraph {pyqtgraph.__version__} · Python {platform.python_version()}</p>"
        f"<p>Devices:</p><ul>{devices}</ul>"
    )


def show_about(parent: QWidget, controller: TrainingController) -> None:
    QMessageBox.about(parent, "About iris-gui", about_text(controller))
