"""Data set → Open CSV…: choose a CSV file and its target column for the Run panel.

The header is read as soon as a file is named, so its columns fill the Target list (the last
column by default, as RunConfig's "" means); on OK a file of modest size is read whole, so that
a malformed row is said here, in the file reader's one line, rather than by a failed run. Every
read runs off the GUI thread (csv_reading.py): a large file or a slow disk never freezes the
window, and Cancel works while it reads. A
target of very many classes for its rows (a measurement, such as a price) is noted as it is
chosen, for a small file, or on OK, which then needs pressing again. The folder the last file
came from is kept in the app's settings.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from iris_gui.engine.data.csv_data import many_classes_note, read_csv_data, read_header
from iris_gui.figures.plot_theme import CAUTION, COMPLAINT
from iris_gui.ui.panels.shared.plain_text import plain, plain_row
from iris_gui.ui.window.csv_reading import FileReads
from iris_gui.ui.window.recent import RecentFiles
from iris_gui.ui.window.settings import settings_store

FOLDER_KEY = "files/csv_folder"
# Read whole on OK up to this size (a few seconds at most); a larger file is checked by its
# run, which says what is wrong the same way.
CHECK_WHOLE_BYTES = 20_000_000
# Read whole as the target is chosen, to judge it, up to this size (a blink).
JUDGE_TARGET_BYTES = 2_000_000
CHOOSE = "choose another target above, or OK to train on these classes"
FILTERS = "CSV files (*.csv *.tsv *.txt);;All files (*)"


class CsvDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, settings: QSettings | None = None,
                 path: str = "", target: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Open CSV data set")
        self._settings = settings if settings is not None else settings_store()
        self._columns: list[str] = []
        self.file_dialog: QFileDialog | None = None
        self.path_edit = QLineEdit(placeholderText="a .csv file with a header line")
        self.path_edit.setMinimumWidth(360)
        self.browse_button = QPushButton("Browse…")
        self.target_combo = QComboBox(enabled=False)
        self.target_combo.setToolTip("the column the model learns to predict (its classes); "
                                     "every other column is a numeric feature")
        # Plain text: a header or a path may hold anything, markup included (<h1>, <img>).
        self.columns_label = plain(QLabel(wordWrap=True))
        self.error_label = plain(QLabel(visible=False, wordWrap=True))
        self.error_label.setStyleSheet(f"color: {COMPLAINT};")
        self.note_label = plain(QLabel(visible=False, wordWrap=True))
        self.note_label.setStyleSheet(f"color: {CAUTION};")
        self.reading_label = plain(QLabel(visible=False))
        self.reads = FileReads(self)
        self._read_path = ""  # the path whose header was last asked for
        self._accept_pending = False  # OK was pressed while the header was read
        self._checking = False  # OK's read of the whole file is under way
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self._build_layout()
        self.browse_button.clicked.connect(self.browse)
        self.path_edit.editingFinished.connect(self._path_edited)
        self.target_combo.currentTextChanged.connect(self._judge_target)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self._ok().setEnabled(False)
        if path:
            self.set_path(path, target)

    def _build_layout(self) -> None:
        file_row = QHBoxLayout()
        file_row.addWidget(self.path_edit, 1)
        file_row.addWidget(self.browse_button)
        form = QFormLayout()
        plain_row(form, "File", file_row)
        plain_row(form, "Target", self.target_combo)
        plain_row(form, "", self.columns_label)
        layout = QVBoxLayout(self)
        layout.addWidget(plain(QLabel("A header line naming the columns, numeric features, "
                                      "and one target column of class labels (numbers or "
                                      "words).", wordWrap=True)))
        layout.addLayout(form)
        layout.addWidget(self.reading_label)
        layout.addWidget(self.error_label)
        layout.addWidget(self.note_label)
        layout.addWidget(self.buttons)

    def _ok(self) -> QPushButton:
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    # --- the file -------------------------------------------------------------------------
    def browse(self) -> QFileDialog:
        """Open the file chooser in the last CSV's folder; choosing a file names it here."""
        chooser = QFileDialog(self, "Open CSV data set", self.start_folder(), FILTERS)
        chooser.setFileMode(QFileDialog.FileMode.ExistingFile)
        # Qt's own dialog where there is no desktop to ask (offscreen, in the tests).
        chooser.setOption(QFileDialog.Option.DontUseNativeDialog,
                          QGuiApplication.platformName() in ("offscreen", "minimal"))
        chooser.fileSelected.connect(self.set_path)
        self.file_dialog = chooser
        chooser.open()
        return chooser

    def start_folder(self) -> str:
        folder = self._settings.value(FOLDER_KEY)
        if isinstance(folder, str) and folder and Path(folder).is_dir():
            return folder
        current = Path(self.path_edit.text()).parent if self.path_edit.text() else None
        return str(current) if current is not None and current.is_dir() else str(Path.home())

    def set_path(self, path: str, target: str = "") -> None:
        """Name the file: its header, read off the GUI thread, fills Target (``target``
        chosen, else the last column), or its one-line error is shown."""
        if self.path_edit.text() != path:
            self.path_edit.setText(path)
        self._fill([], "")
        self._show_error("")
        self._show_note("")
        self._read_path = path
        if not path.strip():
            self.reads.cancel()
            self._reading("")
            return
        self._reading(f"Reading {Path(path).name}…")
        self.reads.start(lambda _stop: read_header(path),
                         lambda outcome: self._header_read(path, target, outcome))

    def _path_edited(self) -> None:
        # The focus leaving the field (for OK) ends an edit too: the same path is not read
        # again, so the target chosen stays.
        if self.path_edit.text() != self._read_path:
            self.set_path(self.path_edit.text())

    def _header_read(self, path: str, target: str, outcome: object) -> None:
        self._reading("")
        if isinstance(outcome, Exception):
            self._accept_pending = False
            self._show_error(_said(path, outcome))
            return
        assert isinstance(outcome, list)
        self._fill(outcome, target)
        if self._accept_pending:
            self._accept_pending = False
            self.accept()
        else:
            self._judge_target()

    def _fill(self, columns: list[str], target: str) -> None:
        self.target_combo.blockSignals(True)  # judged once, by the caller, not per item added
        self.target_combo.clear()
        self._columns = columns
        self.target_combo.addItems(columns)
        if columns:
            self.target_combo.setCurrentText(target if target in columns else columns[-1])
            features = len(columns) - 1
            self.columns_label.setText(
                f"{len(columns)} columns: {features} feature{'s' * (features != 1)} and the "
                "target")
        else:
            self.columns_label.setText("")
        self.target_combo.blockSignals(False)
        self.target_combo.setEnabled(bool(columns))
        self._ok().setEnabled(bool(columns))

    def _reading(self, text: str) -> None:
        self.reading_label.setText(text)
        self.reading_label.setVisible(bool(text))

    def _show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))

    def _show_note(self, text: str) -> None:
        self.note_label.setText(text[:1].upper() + text[1:] + "." if text else "")
        self.note_label.setVisible(bool(text))

    def _judge_target(self) -> None:
        """Note a target of very many classes while it is chosen (a small file only)."""
        self._show_note("")
        if not self._columns:
            return
        path, target = self.path(), self.target()
        try:
            small = os.path.getsize(path) <= JUDGE_TARGET_BYTES
        except OSError:
            return  # OK reads the file again and says what is wrong
        if small:
            # A failure is left for OK to say, in the reader's line.
            self.reads.start(lambda stop: _note(path, target, stop),
                             lambda note: self._show_note(note if isinstance(note, str) else ""))

    # --- the choice -----------------------------------------------------------------------
    def path(self) -> str:
        return self.path_edit.text().strip()

    def target(self) -> str:
        return self.target_combo.currentText()

    def reading(self) -> bool:
        """Whether a read of the file is under way (OK waits for it)."""
        return self.reads.busy()

    def accept(self) -> None:
        """OK: the file read whole (a modest one) in the background, then accepted, or its
        error or note shown; while the header is still read, once it is."""
        if self.reading_label.isVisible():
            self._accept_pending = not self._checking  # OK again while checking: no more
            return
        if not self._columns:
            if self.path() and self.path_edit.text() != self._read_path:
                self._accept_pending = True
                self.set_path(self.path_edit.text())
            return
        path, target = self.path(), self.target()
        try:
            whole = os.path.getsize(path) <= CHECK_WHOLE_BYTES
        except OSError as error:
            self._show_error(f"{path} cannot be read: {error.strerror or error}")
            return
        if not whole:
            self._accepted(path)
            return
        self._checking = True
        self._ok().setEnabled(False)
        self._reading(f"Checking {Path(path).name}…")
        self.reads.start(lambda stop: _note(path, target, stop),
                         lambda outcome: self._checked(path, outcome))

    def _checked(self, path: str, outcome: object) -> None:
        self._checking = False
        self._reading("")
        self._ok().setEnabled(True)
        if isinstance(outcome, Exception):
            self._show_error(_said(path, outcome))
            return
        if outcome and self.note_label.isHidden():
            self._show_note(str(outcome))  # a note not yet seen: OK again goes on
            return
        self._accepted(path)

    def _accepted(self, path: str) -> None:
        self._settings.setValue(FOLDER_KEY, str(Path(path).resolve().parent))
        super().accept()

    def done(self, result: int) -> None:
        self.reads.cancel()  # a read still under way is dropped (and asked to stop)
        super().done(result)


def _note(path: str, target: str, stop: Callable[[], bool]) -> str:
    """The file read whole: its many-classes note ("" for none); ConfigError when it is not
    a data set."""
    return many_classes_note(read_csv_data(path, target, stop=stop).record, CHOOSE)


def _said(path: str, error: Exception) -> str:
    if isinstance(error, OSError):
        return f"{path} cannot be read: {error.strerror or error}"
    return str(error)


def open_csv(window: QWidget, settings: QSettings | None = None) -> CsvDialog:
    """Data set → Open CSV…: the dialog, window-modal; OK sets the Run panel's data set. The
    last folder is kept in the window's own settings (a test's are a temporary file)."""
    form = window.controls.form
    if settings is None and hasattr(window, "settings"):
        settings = window.settings.qsettings
    dialog = CsvDialog(window, settings, *form.csv_file())
    dialog.accepted.connect(lambda: form.set_csv(dialog.path(), dialog.target()))
    if settings is not None:  # and Data set → Open Recent lists it first
        dialog.accepted.connect(
            lambda: RecentFiles(settings).add_csv(dialog.path(), dialog.target()))
    dialog.open()
    return dialog
