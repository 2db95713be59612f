"""Each run read from the store placed against the latest kept ceilings of its device
(engine/records/regime.py), so every surface that reads runs (Details, the results CSV, the
report, ``runs show``, the API's records) shows the same placement. A placement is read, not
kept: a later measurement of the ceilings places the older runs under it."""

from __future__ import annotations

from collections.abc import Callable

from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.regime import ceilings_for, place_run
from iris_gui.store.paths import StoreError
from iris_gui.store.run_rows import StoredRun


def placed(runs: list[StoredRun], kept: Callable[[], list[Ceilings]],
           say: Callable[[str], None]) -> list[StoredRun]:
    """``runs``, each with its ``placement``; ceilings that cannot be read (a damaged part of
    the store) leave every run unplaced, said once, and the runs still read."""
    if not runs:
        return runs
    try:
        ceilings = kept()
    except StoreError as error:
        say(f"the kept ceilings cannot be read ({error}); runs are not placed")
        ceilings = []
    for run in runs:
        run.placement = place_run(run.result, ceilings_for(ceilings, run.result))
    return runs
