"""``iris-gui plot --ladder``: stored runs of several engines drawn as the engine ladder to PNG,
SVG and CSV in a subprocess; bad input is one line and exit status 2. The runs are hand-built
and saved straight into the test's store (no training)."""

from __future__ import annotations

import csv
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage
from support.cli import DB_NAME, TIMEOUT_S, cli_env, describe, one_line_error, run_many

from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.figures.ladder.ladder import PYTORCH_COLOUR, REFERENCE_FILL
from iris_gui.store.ladder_csv import LADDER_COLUMNS
from iris_gui.store.runs import RunStore

SVG = "{http://www.w3.org/2000/svg}"
EPOCHS = 300
# ``python -m iris_gui`` with every Qt import refused, as on a GPU server without PySide6.
NO_QT = """
import importlib.abc, runpy, sys

class NoQt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph"):
            raise ImportError(f"{name} is blocked in this test")

sys.meta_path.insert(0, NoQt())
sys.argv = ["iris-gui", *sys.argv[1:]]
runpy.run_module("iris_gui", run_name="__main__", alter_sys=True)
"""


def hand_made(engine: str, record: str, epoch_us: float, iqr_us: float,
              status: RunStatus = RunStatus.COMPLETED) -> RunResult:
    """A 300-epoch CPU run of ``engine`` with the given steady state; a failed one has none."""
    done = status is RunStatus.COMPLETED
    losses = np.geomspace(1.0, 0.05, EPOCHS).astype(np.float32) if done else np.zeros(0, "f4")
    return RunResult(
        RunConfig(epochs=EPOCHS, engine=engine, record=record), status,
        message="" if done else "the graph engine needs a CUDA device",
        epochs_completed=EPOCHS if done else 0, losses=losses,
        final_loss=float(losses[-1]) if done else float("nan"),
        timings=Timings(epoch_us=epoch_us, epoch_us_iqr=iqr_us, epoch_us_method="chunk-median",
                        epoch_us_chunks=8, compile_seconds=3.5 if engine == "compiled" else 0.0,
                        cpu_wait_share=0.01)
        if done else Timings(),
        env=EnvRecord(device="cpu", device_name="Test CPU @ 3 GHz"),
    )


# Saved in this order: ids 1 to 4.
RUNS = (("native", "device", 5.0, 0.1), ("eager", "every-epoch", 100.0, 2.0),
        ("compiled", "device", 25.0, 4.0), ("graph", "device", float("nan"), float("nan")))


@pytest.fixture(scope="module")
def plots(tmp_path_factory: pytest.TempPathFactory) -> dict:
    data = tmp_path_factory.mktemp("ladder-data")
    out = tmp_path_factory.mktemp("ladder-out")
    with RunStore.open(data / DB_NAME) as store:
        for engine, record, epoch_us, iqr_us in RUNS:
            failed = engine == "graph"
            store.save(hand_made(engine, record, epoch_us, iqr_us,
                                 RunStatus.FAILED if failed else RunStatus.COMPLETED))
    jobs = {
        "png": ["--runs", "1,2,3,4", "--out", str(out / "ladder.png"), "--width", "900"],
        "svg": ["--runs", "1,2,3,4", "--out", str(out / "ladder.svg")],
        "csv": ["--runs", "4,3,2,1", "--out", str(out / "ladder.csv")],
        "unknown": ["--runs", "1,99", "--out", str(out / "y.png")],
        "unknown-csv": ["--runs", "99", "--out", str(out / "y.csv")],
        "log-y": ["--runs", "1", "--out", str(out / "y.svg"), "--log-y"],
        "gif": ["--runs", "1", "--out", str(out / "y.gif")],
    }
    done = run_many([(["plot", "--ladder", *args], data) for args in jobs.values()])
    no_qt = subprocess.run(
        [sys.executable, "-c", NO_QT, "plot", "--ladder", "--runs", "1,2",
         "--out", str(out / "no-qt.csv")],
        capture_output=True, text=True, check=False, env=cli_env(data), timeout=TIMEOUT_S)
    return {"out": out, "no-qt": no_qt, **dict(zip(jobs, done, strict=True))}


def test_png_is_drawn_at_the_width_asked_with_both_kinds_of_bar(plots: dict) -> None:
    proc = plots["png"]
    assert proc.returncode == 0 and proc.stderr == "", describe(proc)
    assert proc.stdout.strip().endswith("wrote the ladder of 4 runs to " + str(
        plots["out"] / "ladder.png"))
    image = QImage(str(plots["out"] / "ladder.png"))
    assert image.width() == 900
    colours = {image.pixelColor(x, y).name() for x in range(0, image.width(), 2)
               for y in range(0, image.height(), 2)}
    assert QColor(PYTORCH_COLOUR).name() in colours and QColor(REFERENCE_FILL).name() in colours


def test_svg_has_a_rect_per_timed_run_and_the_speedups(plots: dict) -> None:
    assert plots["svg"].returncode == 0, describe(plots["svg"])
    root = ET.parse(plots["out"] / "ladder.svg").getroot()
    # The bars, in the figure's pixels (the legend's samples keep their group's translation).
    fills = [group.get("fill") for group in root.iter(f"{SVG}g") if "transform" not in group.attrib
             for _ in group.findall(f"{SVG}rect")]
    assert fills.count(PYTORCH_COLOUR) == 2  # eager and compiled; graph failed: no bar
    assert fills.count(REFERENCE_FILL) == 1  # native
    words = " ".join(text.text or "" for text in root.iter(f"{SVG}text"))
    # The noisy compiled rung's ratio is no result, and its bar says so.
    for fragment in ("the note's loop", "not a result", "20.0×", "no framework", "cpu — Test CPU",
                     "failed: the graph engine needs a CUDA device"):
        assert fragment in words


def test_csv_is_one_row_per_run_in_ladder_order(plots: dict) -> None:
    assert plots["csv"].returncode == 0, describe(plots["csv"])
    with open(plots["out"] / "ladder.csv", newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert tuple(reader.fieldnames) == LADDER_COLUMNS
    assert [(row["engine"], row["run_id"]) for row in rows] == [
        ("eager", "2"), ("compiled", "3"), ("graph", "4"), ("native", "1")]
    assert [row["speedup"] for row in rows] == ["1.0", "4.0", "", "20.0"]
    assert rows[1]["noisy"] == "True" and rows[1]["compile_seconds"] == "3.5"
    # The CSV keeps the measured ratio beside its standing, which says it is no result.
    assert [row["standing"] for row in rows] == ["result", "noisy", "partial", "result"]
    assert rows[2]["status"] == "failed" and rows[2]["epoch_us"] == ""
    assert rows[3]["framework"] == "False" and float(rows[3]["curve_deviation"]) == 0.0


def test_csv_needs_no_qt(plots: dict) -> None:
    proc = plots["no-qt"]
    assert proc.returncode == 0 and proc.stderr == "", describe(proc)
    with open(plots["out"] / "no-qt.csv", newline="", encoding="utf-8-sig") as handle:
        assert [row["engine"] for row in csv.DictReader(handle)] == ["eager", "native"]


@pytest.mark.parametrize(("job", "words"), [
    ("unknown", "no run 99"), ("unknown-csv", "no run 99"), ("log-y", "--log-y"),
    ("gif", ".png, .svg or .csv"),
])
def test_bad_input_is_one_line_and_exit_2(plots: dict, job: str, words: str) -> None:
    assert words in one_line_error(plots[job])


def test_nothing_is_written_on_an_error(plots: dict) -> None:
    names = {path.name for path in Path(plots["out"]).iterdir()}
    assert names == {"ladder.png", "ladder.svg", "ladder.csv", "no-qt.csv"}
