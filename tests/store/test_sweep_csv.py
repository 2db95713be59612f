"""A sweep as CSV: one row per point with its series' fit, NaN as an empty cell, skipped points
kept with their reason, the file replaced whole; written without Qt or torch."""

from __future__ import annotations

import csv
import math
import subprocess
import sys

import pytest

from iris_gui.engine.records.sweep_model import FIT_TOLERANCE, SweepPoint, SweepResult, SweepSpec
from iris_gui.store.paths import StoreError
from iris_gui.store.sweep_csv import (
    SWEEP_COLUMNS,
    export_sweep_csv,
    point_fit_errors,
    sweep_rows,
)
from iris_gui.ui.panels.samples.sweep import sample_points, sample_sweep


def read(path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


def test_each_point_meets_its_series_fit() -> None:
    result = sample_sweep()
    rows = sweep_rows(result)
    assert len(rows) == 30 and set(rows[0]) == set(SWEEP_COLUMNS)
    fits = {fit.series: fit for fit in result.fits}
    errors = point_fit_errors(result)
    for row, point, error in zip(rows, result.points, errors, strict=True):
        fit = fits[point.series]
        assert row["fit_floor_us"] == fit.floor_us and row["fit_gflops"] == fit.gflops
        assert row["fit_us"] == pytest.approx(float(fit.predict_us(point.flops_per_epoch)))
        assert row["fit_error"] == pytest.approx((row["fit_us"] - point.epoch_us)
                                                 / point.epoch_us)
        assert row["fit_ok"] is (abs(error) <= FIT_TOLERANCE)
    # The engine's own errors, in each series' order.
    eager = [e for e, p in zip(errors, result.points, strict=True)
             if p.series == "cpu/eager/1 thread"]
    assert eager == list(fits["cpu/eager/1 thread"].errors)


def test_a_skipped_point_keeps_its_reason_and_the_model_s_guess(tmp_path) -> None:
    points = sample_points()
    skipped = SweepPoint("cuda:0", "graph", None, 1_000_000, 10, "skipped",
                         flops_per_epoch=points[-1].flops_per_epoch, message="needs 3.2 GiB")
    result = SweepResult(SweepSpec(), points=[*points[:-1], skipped]).analyse()
    path = tmp_path / "sweep.csv"
    export_sweep_csv(result, path)
    last = read(path)[-1]
    assert last["status"] == "skipped" and last["message"] == "needs 3.2 GiB"
    assert last["epoch_us"] == last["gflops"] == last["fit_error"] == last["fit_ok"] == ""
    assert last["threads"] == "" and float(last["fit_us"]) > 0  # what the fit expected there
    assert math.isnan(point_fit_errors(result)[-1])


def test_an_empty_sweep_is_a_header_and_a_file_is_replaced_whole(tmp_path) -> None:
    path = tmp_path / "sweep.csv"
    export_sweep_csv(sample_sweep(), path)
    export_sweep_csv(SweepResult(SweepSpec()), path)
    assert path.read_text(encoding="utf-8-sig").strip() == ",".join(SWEEP_COLUMNS)
    assert [p.name for p in tmp_path.iterdir()] == ["sweep.csv"]  # no temporary left
    with pytest.raises(StoreError, match="cannot write"):
        export_sweep_csv(sample_sweep(), tmp_path / "missing" / "sweep.csv")


def test_the_csv_needs_neither_qt_nor_torch() -> None:
    code = ("import sys; sys.modules['PySide6'] = None; sys.modules['torch'] = None; "
            "import iris_gui.store.sweep_csv, iris_gui.ui.panels.samples.sweep")
    assert subprocess.run([sys.executable, "-c", code], check=False, timeout=120).returncode == 0


def test_a_sweep_of_a_cnns_width_names_its_model_in_every_row() -> None:
    from dataclasses import replace

    result = sample_sweep()
    cnn = replace(result, spec=replace(result.spec, model="cnn"))
    assert {row["model"] for row in sweep_rows(cnn)} == {"cnn"}
    assert {row["model"] for row in sweep_rows(result)} == {"mlp"}
