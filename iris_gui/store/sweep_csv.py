"""A sweep as CSV: one row per point with its series' fit beside it, written atomically.

``sweep_rows`` is the one place a point meets its fit (the model's µs at the point's work, the
relative error the fit reported there, whether that is within ``FIT_TOLERANCE``): the
Crossover view's table and plot read these rows too, so the screen and the file agree. The
columns are the point's own field names, the sweep's ``model`` (whose width ``hidden`` is: an
MLP's hidden layer, a CNN's channels, a transformer's features), and ``fit_*`` (``batch`` 0 is
the full batch, and ``fit_us`` is the model at the point's work and steps per epoch); a missing
value is an empty cell, and formula-like text gets a leading ``'`` (store/files.py); numbers and the file as
every CSV export writes them (store/csv_cells.py). No Qt, no torch.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

from iris_gui.engine.records.sweep_model import (
    FIT_TOLERANCE,
    SweepPoint,
    SweepResult,
    fitted_points,
)
from iris_gui.store.csv_cells import csv_row, write_csv

SWEEP_COLUMNS: tuple[str, ...] = (
    "series", "model", "device", "engine", "threads", "rows", "hidden", "batch",
    "steps_per_epoch",
    "status", "message",
    "epoch_us", "epoch_us_iqr", "epochs", "flops_per_epoch", "bytes_per_epoch", "ops_per_step",
    "gflops",
    "cpu_wait_share", "cpu_busy", "remeasured",
    "fit_floor_us", "fit_gflops", "fit_us", "fit_error", "fit_ok",
)


def point_fit_errors(result: SweepResult) -> list[float]:
    """The fit's relative error at each of ``result.points`` (NaN where the point was not
    fitted): ``SeriesFit.errors`` lists them for the fitted points of a series, in order
    (``sweep_model.fitted_points``: a point measured while the CPU was busy may be left out)."""
    errors = [math.nan] * len(result.points)
    for fit in result.fits:
        indexed = [(i, p) for i, p in enumerate(result.points) if p.series == fit.series]
        chosen = {id(p) for p in fitted_points([p for _, p in indexed])}
        used = [i for i, p in indexed if id(p) in chosen]
        if len(used) == len(fit.errors):
            for index, error in zip(used, fit.errors, strict=True):
                errors[index] = error
    return errors


def sweep_rows(result: SweepResult) -> list[dict[str, Any]]:
    """One dict per point, keyed by ``SWEEP_COLUMNS``; None marks a missing value."""
    fits = {fit.series: fit for fit in result.fits}
    rows = []
    for point, error in zip(result.points, point_fit_errors(result), strict=True):
        fit = fits.get(point.series)
        predicted = (float(fit.predict_us(point.flops_per_epoch, point.steps_per_epoch))
                     if fit is not None and math.isfinite(point.flops_per_epoch) else math.nan)
        rows.append({
            **_point_values(point), "model": result.spec.model,
            "fit_floor_us": fit.floor_us if fit else None,
            "fit_gflops": fit.gflops if fit else None,
            "fit_us": _value(predicted),
            "fit_error": _value(error),
            "fit_ok": None if math.isnan(error) else abs(error) <= FIT_TOLERANCE,
        })
    return rows


def export_sweep_csv(result: SweepResult, path: Path) -> None:
    """Write a header and one line per point to ``path``; StoreError names a failure."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=SWEEP_COLUMNS)
    writer.writeheader()
    writer.writerows(csv_row(row) for row in sweep_rows(result))
    write_csv(Path(path), text.getvalue())


def _point_values(point: SweepPoint) -> dict[str, Any]:
    return {
        "series": point.series, "device": point.device, "engine": point.engine,
        "threads": point.threads, "rows": point.rows, "hidden": point.hidden,
        "batch": point.batch, "steps_per_epoch": point.steps_per_epoch,
        "status": point.status, "message": point.message,
        "epoch_us": _value(point.epoch_us), "epoch_us_iqr": _value(point.epoch_us_iqr),
        "epochs": point.epochs, "flops_per_epoch": _value(point.flops_per_epoch),
        "bytes_per_epoch": _value(point.bytes_per_epoch),
        "ops_per_step": _value(point.ops_per_step),
        "gflops": _value(point.gflops),
        "cpu_wait_share": _value(point.cpu_wait_share), "cpu_busy": point.busy_flag,
        "remeasured": point.remeasured,
    }


def _value(number: float) -> float | None:
    return float(number) if number is not None and math.isfinite(number) else None
