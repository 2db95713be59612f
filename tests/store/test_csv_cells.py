"""Every CSV export is UTF-8 with a byte-order mark (a spreadsheet then reads "·", "×", "µ"
right) and writes its floats at the precision they carry: timings to the nanosecond, other
floats to 9 significant digits, none with arithmetic's 16-digit noise."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from iris_gui.engine.records.ladder import ladder_rows
from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.store.csv_cells import csv_row, number
from iris_gui.store.curve_csv import export_curves_csv
from iris_gui.store.export import export_runs_csv
from iris_gui.store.ladder_csv import export_ladder_csv
from iris_gui.store.sweep_csv import export_sweep_csv

BOM = b"\xef\xbb\xbf"


def _rows(path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize(("column", "value", "written"), [
    ("epoch_us", 85965.12345678901, 85965.123),
    ("epoch_us_iqr", 0.30000000000000004, 0.3),
    ("explain_launch_us_per_epoch", 12.0004999, 12.0),
    ("train_seconds", 1.2345678901234567, 1.23456789),
    ("setup_seconds", 0.1 + 0.2, 0.3),
    ("final_loss", 0.123456789123, 0.123456789),
    ("final_loss", 1.2345678901234e-07, 1.23456789e-07),  # small losses keep their digits
    ("cpu_wait_share", 0.1 + 0.2, 0.3),
    ("lr", 0.01, 0.01),
])
def test_a_float_is_written_at_its_precision(column, value, written):
    assert number(column, value) == written
    assert repr(number(column, value)) == repr(written)  # Python's shortest form


def test_other_cells_pass_as_they_are():
    assert number("epoch_us", math.nan) is not None and math.isnan(number("epoch_us", math.nan))
    assert [number("epochs", 20_000), number("cpu_busy", True), number("status", "stopped"),
            number("epoch_us", None)] == [20_000, True, "stopped", None]
    assert csv_row({"label": "=SUM(A1)", "epoch_us": 1 / 3}) == {"label": "'=SUM(A1)",
                                                                 "epoch_us": 0.333}


def test_the_runs_csv_starts_with_the_mark_and_rounds_its_timings(store, make_result,
                                                                  tmp_path):
    from iris_gui.engine.records.result import Timings

    timings = Timings(setup_seconds=0.1 + 0.2, train_seconds=1.2345678901234567,
                      epoch_us=85965.12345678901, epoch_us_iqr=560.4999999999999)
    store.save(make_result(timings=timings, final_loss=0.12345678912345,
                           message="3.1× slower · 14 µs"))
    path = tmp_path / "runs.csv"
    export_runs_csv(store.list_runs(), path)
    assert path.read_bytes().startswith(BOM + b"id,")
    row = _rows(path)[0]
    assert (row["setup_seconds"], row["train_seconds"], row["epoch_us"], row["epoch_us_iqr"],
            row["final_loss"]) == ("0.3", "1.23456789", "85965.123", "560.5", "0.123456789")
    assert row["message"] == "3.1× slower · 14 µs"


def test_the_curves_ladder_and_sweep_csvs_carry_the_mark(tmp_path, store, make_result):
    curves = tmp_path / "curves.csv"
    export_curves_csv([("run 1: eager · every-epoch × 2", np.array([0.5, 0.25], np.float32), 1)],
                      curves)
    assert curves.read_bytes().startswith(BOM + b"epoch,")
    with open(curves, newline="", encoding="utf-8-sig") as handle:
        assert next(csv.reader(handle)) == ["epoch", "run 1: eager · every-epoch × 2"]

    store.save(make_result())
    ladder = tmp_path / "ladder.csv"
    export_ladder_csv(ladder_rows([run.result for run in store.list_runs()]), ladder)
    assert ladder.read_bytes().startswith(BOM + b"device,")

    point = SweepPoint("cpu", "eager", 1, 120, 10, "completed", 14.000000000000002, 0.1 + 0.2,
                       40, 33_120.0)
    sweep = tmp_path / "sweep.csv"
    export_sweep_csv(SweepResult(SweepSpec(rows=(120,)), points=[point]).analyse(), sweep)
    assert sweep.read_bytes().startswith(BOM + b"series,")
    row = _rows(sweep)[0]
    assert (row["epoch_us"], row["epoch_us_iqr"], row["flops_per_epoch"]) == ("14.0", "0.3",
                                                                             "33120.0")
