"""Closing the window while a run is in flight: the user is asked first (Stop and quit, or
Cancel), the run is kept as ``stopped``, and the next launch's status bar says so.

A close from the window's own button or File → Quit asks; a close the program makes (Ctrl+C
in the terminal, SIGTERM, the self-test) does not, and still leaves the note for the next
launch. The note lives beside the runs store it speaks of, so any window on that store tells
it, once.
"""

from __future__ import annotations

import contextlib
import json
import logging
from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QWidget

from iris_gui.ui.panels.shared.plain_text import plain

log = logging.getLogger(__name__)

NOTE_NAME = "closed-during-run.json"
QUESTION = "A run is in progress: stop it and quit?"
DETAIL = "It is kept as stopped, with the epochs done so far; Cancel lets it carry on."
STOP_AND_QUIT = "Stop and quit"


def ask_to_stop(parent: QWidget, on_quit) -> QMessageBox:
    """Open the question (window-modal, not a nested event loop: the run keeps drawing while
    it waits); ``on_quit`` runs if the user picks Stop and quit."""
    box = QMessageBox(QMessageBox.Icon.Question, "iris-gui", QUESTION,
                      QMessageBox.StandardButton.Cancel, parent)
    box.setInformativeText(DETAIL)
    plain(box)
    stop = box.addButton(STOP_AND_QUIT, QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)  # Return must not end a run
    box.buttonClicked.connect(lambda button: on_quit() if button is stop else None)
    box.open()
    return box


def note_path(store_path: str | Path) -> Path:
    return Path(store_path).parent / NOTE_NAME


def remember(store_path: str | Path, run_id: int, epochs: int) -> None:
    """Leave the note for the next launch; a note that cannot be written costs only the
    message (the run itself is already saved)."""
    try:
        note_path(store_path).write_text(json.dumps({"run": run_id, "epochs": epochs}),
                                         encoding="utf-8")
    except OSError as error:
        log.warning("the closed-run note could not be written: %s", error)


def take(store_path: str | Path) -> tuple[int, str] | None:
    """The run the note names and its sentence, once (the note is removed), or None."""
    path = note_path(store_path)
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
        path.unlink()
        run_id, epochs = int(note["run"]), int(note["epochs"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError) as error:
        log.warning("the closed-run note %s is unreadable, ignored: %s", path, error)
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
        return None
    return run_id, (f"Run {run_id} was stopped when the window closed at epoch {epochs:,}; "
                    "it is kept as stopped")
