"""ResultsPanel: the stored runs in one sortable table, with a baseline to compare against.

Run alone with sample data: ``python -m iris_gui.ui.panels.results.panel``.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from html import escape
from pathlib import Path

from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from iris_gui.engine.words.command_line import command_for
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.program import program_here
from iris_gui.store.export import export_runs_csv
from iris_gui.store.runs import RunStore, StoreError
from iris_gui.ui.panels.results.columns import ColumnFitter
from iris_gui.ui.panels.results.details import RunDetailsDialog
from iris_gui.ui.panels.results.differing import differing_keys
from iris_gui.ui.panels.results.model import (
    COLUMNS,
    DEFAULT_HIDDEN,
    DEVICE_NAME_COLUMN,
    SORT_ROLE,
    RunsTableModel,
)
from iris_gui.ui.panels.results.view_place import place_kept
from iris_gui.ui.panels.shared.plain_text import plain, plain_tip
from iris_gui.ui.window.column_menu import ColumnChooser

EMPTY_TEXT = ("Your runs appear here, one row each, with their timings.\n"
              "Press Train (Ctrl+Return) to make the first.")
BASELINE_TIPS = {False: "Make the selected run the baseline: the × vs baseline column says how "
                        "many times faster than it each run's steady state is",
                 True: "Stop comparing the runs with this one"}


def _run_list(ids: list[int]) -> str:
    return f"run {ids[0]}" if len(ids) == 1 else f"runs {', '.join(map(str, ids))}"


class ResultsPanel(QWidget):
    """Every stored run; select rows to compare them, pick one as the speedup baseline."""

    selection_changed = Signal(list)  # selected run ids, in table order
    baseline_changed = Signal(object)  # run id or None
    message = Signal(str)  # one line for the status bar
    columns_changed = Signal(list)  # the hidden columns' keys, when the user changes them

    def __init__(self, store: RunStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._last_selection: list[int] = []
        self.model = RunsTableModel(self)
        self._proxy = QSortFilterProxyModel(self)
        self._proxy.setSourceModel(self.model)
        self._proxy.setSortRole(SORT_ROLE)
        self._proxy.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.view = self._make_view()
        self._fit = ColumnFitter(self.view, DEVICE_NAME_COLUMN)
        self.columns = ColumnChooser(self.view, [(c.key, c.title) for c in COLUMNS],
                                     DEFAULT_HIDDEN, always_shown=("id",))
        self.columns.changed.connect(self._columns_changed)
        self._baseline_action = self._action("Set as baseline", self._toggle_baseline)
        self._details_action = self._action("Details…", self._details_of_selection)
        self._copy_action = self._action("Copy as command", self._copy_of_selection)
        self._copy_action.setToolTip("Copy the iris-gui train line that repeats this run "
                                     "headless")
        self._copy_action.setShortcut(QKeySequence("Ctrl+Shift+C"))
        self._copy_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self._delete_action = self._action("Delete", self.delete_selected)
        self._delete_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        self._delete_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self._summary = plain(QLabel())
        self.empty_label = plain(QLabel(EMPTY_TEXT, alignment=Qt.AlignmentFlag.AlignCenter))
        self.empty_label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.empty_label.setEnabled(False)  # drawn in the palette's muted text colour
        self._lay_out()
        self.view.selectionModel().selectionChanged.connect(self._selection_moved)
        self._proxy.layoutChanged.connect(self._selection_moved)
        self.view.doubleClicked.connect(lambda index: self.show_details(self._run_id(index)))
        failure = self._reload()
        if failure is not None:
            # Nobody has connected ``message`` yet; say it once the event loop runs.
            QTimer.singleShot(0, self, lambda: self.message.emit(failure))

    @property
    def baseline_id(self) -> int | None:
        return self.model.baseline_id

    def refresh(self) -> None:
        """Reload from the store, keeping the selection and baseline where those runs remain;
        a store error becomes a ``message`` and leaves the table as it was."""
        failure = self._reload()
        if failure is not None:
            self.message.emit(failure)

    def _reload(self) -> str | None:
        try:
            runs = self._store.list_runs()
        except StoreError as exc:
            return str(exc)
        kept, baseline = self.selected_ids(), self.model.baseline_id
        with place_kept(self.view, self._run_id, self._index_of):
            self.model.set_runs(runs)
            self._select(kept)  # a reload keeps the selection without moving the view
        self.columns.reveal(differing_keys(runs))
        self._fit.fit()
        self.empty_label.setVisible(not runs)
        if self.model.baseline_id != baseline:
            self.baseline_changed.emit(None)
        self._selection_moved()
        return None

    def selected_ids(self) -> list[int]:
        rows = sorted(index.row() for index in self.view.selectionModel().selectedRows())
        return [self._run_id(self._proxy.index(row, 0)) for row in rows]

    def select_ids(self, ids: list[int]) -> None:
        """Select the rows of runs ``ids`` and scroll the last of them into view (a run just
        saved is passed last, and must not land below the visible rows)."""
        self._select(ids)
        index = self._index_of(ids[-1]) if ids else None
        if index is not None:
            # Just after a reload the view's layout is still pending, and scrollTo would
            # measure the old rows: lay them out first.
            self.view.doItemsLayout()
            self.view.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)

    def _index_of(self, run_id: int) -> QModelIndex | None:
        """The view's index of run ``run_id``'s row (its first column), None if not shown."""
        row = self.model.row_of(run_id)
        return None if row is None else self._proxy.mapFromSource(self.model.index(row, 0))

    def _select(self, ids: list[int]) -> None:
        selection = QItemSelection()
        for index in map(self._index_of, ids):
            if index is not None:
                selection.select(index, index)
        flags = (QItemSelectionModel.SelectionFlag.ClearAndSelect
                 | QItemSelectionModel.SelectionFlag.Rows)
        self.view.selectionModel().select(selection, flags)

    def set_baseline(self, run_id: int | None) -> None:
        """Compare every run with ``run_id`` (None: no baseline); ValueError if it is not shown.
        A run whose timings are partial (it failed part-way) is refused with a ``message``."""
        if run_id == self.model.baseline_id:
            return
        refusal = self.model.baseline_refusal(run_id) if run_id is not None else None
        if refusal is not None:
            self.message.emit(refusal)
            return
        self._take_baseline(run_id)
        self.message.emit("Baseline cleared" if run_id is None else f"Run {run_id} is the baseline")

    def restore_baseline(self, run_id: int | None) -> bool:
        """Make a remembered baseline the baseline again, quietly, if that run is still shown
        and can be one; return whether it did (a run deleted since is simply forgotten)."""
        if run_id is None or self.model.row_of(run_id) is None:
            return False
        if self.model.baseline_refusal(run_id) is not None:
            return False
        if run_id != self.model.baseline_id:
            self._take_baseline(run_id)
        return True

    def _take_baseline(self, run_id: int | None) -> None:
        self.model.set_baseline(run_id)
        # The bold row and "baseline" can be wider than the cells the columns were fitted to.
        if self._fit.fitted:
            self._fit.fit()
        self._update_actions()
        self.baseline_changed.emit(run_id)

    def delete_selected(self, confirm: bool = True) -> list[int]:
        """Delete the selected runs from the store (after asking, unless ``confirm`` is False);
        return the ids deleted."""
        ids = self.selected_ids()
        if not ids or (confirm and not self._confirm_delete(ids)):
            return []
        deleted, errors = [], []
        for run_id in ids:
            try:
                self._store.delete(run_id)
                deleted.append(run_id)
            except StoreError as exc:
                errors.append(str(exc))
        if self.model.baseline_id in deleted:
            self.set_baseline(None)
        # Drop the rows at once, so they go even if the reload below cannot read the store.
        self.model.set_runs([run for run in self.model.runs if run.id not in deleted])
        self.refresh()
        done = [f"Deleted {_run_list(deleted)}"] if deleted else []
        self.message.emit("; ".join(done + errors))
        return deleted

    def show_details(self, run_id: int) -> RunDetailsDialog | None:
        """Open a details window for run ``run_id``; None (and a message) if it cannot be read."""
        try:
            run = self._store.get(run_id)
        except StoreError as exc:
            self.message.emit(str(exc))
            return None
        dialog = RunDetailsDialog(run, self, self.model.baseline_run())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.command_copied.connect(self._say_copied)
        dialog.show()
        return dialog

    def copy_command(self, run_id: int) -> str | None:
        """Put the ``iris-gui train`` line that repeats run ``run_id`` on the clipboard."""
        row = self.model.row_of(run_id)
        if row is None:
            return None
        text = command_for(self.model.run_at(row).result.config, program_here())
        QGuiApplication.clipboard().setText(text)
        self._say_copied(text)
        return text

    def set_hidden_columns(self, keys: list[str], known: list[str]) -> None:
        """Hide the columns named ``keys`` (a remembered choice, made when the columns
        ``known`` existed); the others show, except columns added since, which take their
        defaults."""
        self.columns.restore(keys, known)
        self.columns.reveal(differing_keys(self.model.runs))

    def column_keys(self) -> list[str]:
        return self.columns.keys

    def export_csv(self, path: Path) -> int:
        """Write every stored run to ``path`` as CSV; return the count. Raises StoreError."""
        runs = self._store.list_runs()
        export_runs_csv(runs, Path(path))
        self.message.emit(f"Exported {counted(len(runs), 'run')} to {path}")
        return len(runs)

    def _make_view(self) -> QTableView:
        view = QTableView(self)
        view.setModel(self._proxy)
        view.setSortingEnabled(True)
        view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.setAlternatingRowColors(True)
        view.setWordWrap(False)
        view.verticalHeader().hide()
        view.horizontalHeader().setStretchLastSection(False)
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        return view

    def _action(self, text: str, slot: Callable[[], object]) -> QAction:
        action = QAction(text, self.view)
        action.setIconText(text)  # kept whole: Qt drops the "…" from a derived button text
        # Through a lambda: triggered's "checked" must not reach delete_selected's ``confirm``.
        action.triggered.connect(lambda: slot())
        self.view.addAction(action)  # the view's context menu lists them
        return action

    def _lay_out(self) -> None:
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 6, 0)
        for action in (self._baseline_action, self._details_action, self._delete_action):
            button = QToolButton(self)
            button.setDefaultAction(action)
            bar.addWidget(button)
        bar.addStretch(1)
        bar.addWidget(self._summary)
        # The empty state's words sit over the empty table, in the same cell.
        table = QGridLayout()
        table.addWidget(self.view, 0, 0)
        table.addWidget(self.empty_label, 0, 0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addLayout(table, 1)
        self.empty_label.raise_()

    def _columns_changed(self, hidden: list[str]) -> None:
        self._fit.fit()
        self.columns_changed.emit(hidden)

    def _run_id(self, proxy_index: QModelIndex) -> int:
        return self.model.run_at(self._proxy.mapToSource(proxy_index).row()).id

    def _selection_moved(self) -> None:
        ids = self.selected_ids()
        self._update_actions()
        if ids != self._last_selection:
            self._last_selection = ids
            self.selection_changed.emit(ids)

    def _update_actions(self) -> None:
        ids = self.selected_ids()
        one = len(ids) == 1
        clears = one and ids[0] == self.model.baseline_id
        label = "Clear baseline" if clears else "Set as baseline"
        refusal = self.model.baseline_refusal(ids[0]) if one and not clears else None
        self._baseline_action.setText(label)
        self._baseline_action.setIconText(label)
        self._baseline_action.setEnabled(one and refusal is None)
        self._baseline_action.setToolTip(plain_tip(refusal) or BASELINE_TIPS[clears])
        self._details_action.setEnabled(one)
        self._copy_action.setEnabled(one)
        self._delete_action.setEnabled(bool(ids))
        count = self.model.rowCount()
        base = self.model.baseline_id
        tail = f"baseline: run {base}" if base is not None else "no baseline"
        self._summary.setText(f"{count} run{'' if count == 1 else 's'} · {tail}")

    def _toggle_baseline(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.set_baseline(None if ids[0] == self.model.baseline_id else ids[0])

    def _details_of_selection(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.show_details(ids[0])

    def _copy_of_selection(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.copy_command(ids[0])

    def _say_copied(self, text: str) -> None:
        self.message.emit(f"Copied to the clipboard: {text}")

    def _confirm_delete(self, ids: list[int]) -> bool:
        answer = QMessageBox.question(
            self, "Delete runs",
            f"Delete {_run_list(ids)}? The record and loss curve are removed from the store; "
            "this cannot be undone.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes


def main() -> int:
    from iris_gui.figures.plot_theme import SAMPLE
    from iris_gui.figures.sample_mark import SAMPLE_LINES
    from iris_gui.ui.panels.samples.runs import sample_store

    app = QApplication.instance() or QApplication(sys.argv)
    with tempfile.TemporaryDirectory() as folder:
        store = sample_store(Path(folder) / "runs.sqlite3")
        panel = ResultsPanel(store)
        panel.message.connect(print)
        # On the view itself, not only in the title: a screenshot keeps no title bar.
        preview = QWidget()
        layout = QVBoxLayout(preview)
        warning = QLabel(f"<b>{escape(' — '.join(SAMPLE_LINES))}</b>: made-up runs for a preview",
                         textFormat=Qt.TextFormat.RichText)
        warning.setStyleSheet(f"color: {SAMPLE}")
        layout.addWidget(warning)
        layout.addWidget(panel)
        preview.setWindowTitle("Results (sample runs)")
        preview.resize(1100, 340)
        preview.show()
        code = app.exec()
        store.close()
    return code


if __name__ == "__main__":
    sys.exit(main())
