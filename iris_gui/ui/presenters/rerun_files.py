"""Re-running stored runs that name a model file. The file is code: nothing runs it again
unless the user says so now, each file named, and a file whose bytes are no longer those its
run recorded is refused (it can be chosen again in the Model list, which checks it anew).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from iris_gui.engine.records.model_file_check import changed
from iris_gui.engine.spec.models import is_model_file, model_file_parts
from iris_gui.engine.words.counted import counted


def ask(parent: QWidget | None, title: str, text: str) -> bool:
    """Yes or No, No the default; the text shown as written (a path is never markup)."""
    box = QMessageBox(QMessageBox.Question, title, text,
                      QMessageBox.Yes | QMessageBox.No, parent)
    box.setTextFormat(Qt.PlainText)
    box.setDefaultButton(QMessageBox.No)
    return box.exec() == QMessageBox.Yes


def own_code_asked(runs: list[Any], parent: QWidget | None) -> tuple[list[Any], str]:
    """The stored runs to queue again, and what was left out, in words ("" when nothing):
    runs of a model file whose bytes changed are refused; the others are asked about."""
    files = [run for run in runs if is_model_file(run.result.config.model)]
    if not files:
        return runs, ""
    refused = {run.id: why for run in files
               if (why := changed(run.result.config.model, run.result.model_file))}
    unchanged = [run for run in files if run.id not in refused]
    left: list[str] = [f"run {run_id} not re-run: {why}; choose the file again in the Model "
                       "list" for run_id, why in refused.items()]
    kept = [run for run in runs if run not in files]
    if unchanged:
        paths = sorted({model_file_parts(run.result.config.model)[0] for run in unchanged})
        one = len(paths) == 1
        text = (f"Re-running {counted(len(unchanged), 'run')} executes the code in "
                f"{'this file' if one else 'these files'} on this machine:\n\n"
                + "\n".join(paths) + "\n\n" + ("It is the file its runs recorded" if one else
                                                "Each is the file its runs recorded")
                + f" (the same SHA-256). Run {'it' if one else 'them'} again?")
        if ask(parent, "Run your model files again?", text):
            kept += unchanged
        else:
            left.append(f"{counted(len(unchanged), 'run')} of model files not re-run")
    order = {run.id: index for index, run in enumerate(runs)}
    return sorted(kept, key=lambda run: order[run.id]), "".join(f"; {line}" for line in left)
