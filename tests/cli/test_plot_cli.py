"""``iris-gui plot``: stored runs drawn to PNG, SVG and CSV in a subprocess; bad input is one
line and exit status 2. Runs are saved straight into the test's store (no training)."""

from __future__ import annotations

import csv
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage
from support.cli import DB_NAME, describe, one_line_error, run_many

from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.runs import RunStore


@pytest.fixture(scope="module")
def plots(tmp_path_factory: pytest.TempPathFactory) -> dict:
    data = tmp_path_factory.mktemp("plot-data")
    out = tmp_path_factory.mktemp("plot-out")
    with RunStore.open(data / DB_NAME) as store:
        for stride in (1, 3):
            losses = np.geomspace(1.0, 0.01, 300 // stride).astype(np.float32)
            store.save(RunResult(RunConfig(epochs=300), RunStatus.COMPLETED, epochs_completed=300,
                                 losses=losses, loss_stride=stride))
    (out / "a-directory.png").mkdir()
    jobs = {
        "png": ["--runs", "1,2", "--out", str(out / "x.png"), "--width", "800"],
        "svg": ["--runs", "1,2", "--out", str(out / "x.svg"), "--log-y"],
        "csv": ["--runs", "2,1", "--out", str(out / "x.csv")],
        "unknown": ["--runs", "1,99", "--out", str(out / "y.png")],
        "gif": ["--runs", "1", "--out", str(out / "x.gif")],
        "no-dir": ["--runs", "1", "--out", str(out / "missing" / "x.png")],
        "dir": ["--runs", "1", "--out", str(out / "a-directory.png")],
        "narrow": ["--runs", "1", "--out", str(out / "z.png"), "--width", "50"],
    }
    done = run_many([(["plot", *args], data) for args in jobs.values()])
    return {"out": out, **dict(zip(jobs, done, strict=True))}


def test_png_is_drawn_at_the_width_asked(plots: dict) -> None:
    proc = plots["png"]
    assert proc.returncode == 0 and proc.stderr == "", describe(proc)
    assert QImage(str(plots["out"] / "x.png")).width() == 800


def test_svg_holds_both_curves(plots: dict) -> None:
    assert plots["svg"].returncode == 0, describe(plots["svg"])
    root = ET.parse(plots["out"] / "x.svg").getroot()
    strokes = {group.get("stroke") for group in root.iter() if group.find(
        "{http://www.w3.org/2000/svg}path") is not None}
    assert {"#1f77b4", "#ff7f0e"} <= strokes


def test_csv_has_a_column_per_run_in_the_order_asked(plots: dict) -> None:
    assert plots["csv"].returncode == 0, describe(plots["csv"])
    with open(plots["out"] / "x.csv", newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["epoch", "run 2", "run 1"]
    assert len(rows) == 1 + 300  # run 1 records every epoch; run 2 every third
    assert rows[1][1:] == ["1.0", "1.0"] and rows[2][1] == ""


@pytest.mark.parametrize(("job", "words"), [
    ("unknown", "no run 99"), ("gif", ".png, .svg or .csv"), ("no-dir", "missing"),
    ("dir", "a-directory.png"), ("narrow", "200 to 10000"),
])
def test_bad_input_is_one_line_and_exit_2(plots: dict, job: str, words: str) -> None:
    assert words in one_line_error(plots[job])


def test_nothing_is_written_on_an_error(plots: dict) -> None:
    names = {path.name for path in Path(plots["out"]).iterdir()}
    assert names == {"x.png", "x.svg", "x.csv", "a-directory.png"}
