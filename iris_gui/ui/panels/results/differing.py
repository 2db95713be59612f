"""Which of the results table's hidden-by-default columns the stored runs differ in: the data
set, the model, the batch, the data path and the precision. Two runs that differ only there would look
identical in the default columns, so the table shows those columns while the runs differ
(``ColumnChooser.reveal``). Plain functions, no Qt."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from iris_gui.engine.records.standing import data_identity
from iris_gui.engine.words.labels import model_words
from iris_gui.store.runs import StoredRun
from iris_gui.ui.panels.results.cells import batch_cell, data_path_cell, precision_cell

# The column's key and what tells two runs apart in it.
REVEALED: tuple[tuple[str, Callable[[StoredRun], object]], ...] = (
    ("dataset", lambda run: data_identity(run.result)),
    # The family and its shape; MLPs of other hidden widths are told apart by their data
    # set or figures, as before the families, and keep the first launch within 1280 pixels.
    ("model", lambda run: model_words(run.result.config)),
    ("batch", lambda run: batch_cell(run.result.config)),
    ("data_path", lambda run: data_path_cell(run.result.config)),
    ("precision", lambda run: precision_cell(run.result.config)),
)


def differing_keys(runs: Iterable[StoredRun]) -> list[str]:
    """The keys of ``REVEALED`` in which the runs hold more than one value."""
    runs = list(runs)
    return [key for key, value in REVEALED if len({value(run) for run in runs}) > 1]
