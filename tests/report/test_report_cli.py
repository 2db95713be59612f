"""``iris-gui report``: stored runs as one self-contained HTML file (parsed here: no network
reference, the runs' table, embedded images) or Markdown with its images beside it; bad input
is one line and exit status 2. The runs (and a sweep) are hand-built and saved straight into
the test's store: no training."""

from __future__ import annotations

import base64
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from support.cli import DB_NAME, TIMEOUT_S, cli_env, describe, one_line_error, run_many

from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.samples.breakdowns import cpu_breakdown
from iris_gui.ui.panels.samples.sweep import sample_sweep

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
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
EPOCHS = 2000


def hand_made(engine: str, record: str, epoch_us: float, end_loss: float) -> RunResult:
    epochs = np.arange(EPOCHS)
    losses = (end_loss + (1.1 - end_loss) * np.exp(-epochs / 300)).astype(np.float32)
    return RunResult(
        RunConfig(epochs=EPOCHS, engine=engine, record=record, lr=0.05), RunStatus.COMPLETED,
        epochs_completed=EPOCHS, losses=losses, final_loss=float(losses[-1]),
        train_accuracy=0.95, test_accuracy=0.9667,
        timings=Timings(train_seconds=EPOCHS * epoch_us / 1e6, epoch_us=epoch_us,
                        epoch_us_iqr=epoch_us / 50, epoch_us_method="chunk-median",
                        epoch_us_chunks=12, cpu_wait_share=0.01),
        env=EnvRecord(torch_version="2.13.0", device="cpu", device_name="Test CPU @ 3 GHz",
                      threads=1, cpu_model="Test CPU @ 3 GHz", os="Linux-6", python="3.11.7",
                      execution="worker"),
        started_at="2026-12-01T10:00:00+01:00",
    )


class Page(HTMLParser):
    """What the report's HTML holds: every tag's attributes, the results table's rows, text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.rows: list[list[str]] = []
        self.text: list[str] = []
        self._in_results = self._in_body = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        self.tags.append((tag, found))
        if tag == "table" and found.get("id") == "results":
            self._in_results = True
        elif tag == "tbody" and self._in_results:
            self._in_body = True
        elif tag == "tr" and self._in_body:
            self.rows.append([])
        elif tag == "td" and self._in_body:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._in_results = self._in_body = False

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict:
    data = tmp_path_factory.mktemp("report-data")
    out = tmp_path_factory.mktemp("report-out")
    with RunStore.open(data / DB_NAME) as store:
        first = store.save(hand_made("eager", "every-epoch", 100.0, 0.30))  # id 1
        store.save(hand_made("manual", "device", 25.0, 0.25))  # id 2
        store.save_breakdown(first, cpu_breakdown().to_dict())
        sweep = store.save_sweep(sample_sweep())
        # A manual run's breakdown as explain stores it, its call cost null.
        nulls = store.save(hand_made("manual", "device", 25.0, 0.25))  # id 3
        manual = cpu_breakdown()
        manual.config = {**manual.config, "engine": "manual", "record": "device"}
        manual.call_cost_us = manual.call_cost_pct = float("nan")
        store.save_breakdown(nulls, manual.to_dict())
    jobs = {
        "html": ["report", "--runs", "1,2", "--out", str(out / "r.html")],
        "md": ["report", "--runs", "2,1", "--sweep", str(sweep), "--out",
               str(out / "notes" / "r.md"), "--log-y"],
        "unknown": ["report", "--runs", "1,99", "--out", str(out / "x.html")],
        "suffix": ["report", "--runs", "1", "--out", str(out / "x.pdf")],
        "no-dir": ["report", "--runs", "1", "--out", str(out / "missing" / "x.html")],
        "no-sweep": ["report", "--runs", "1", "--sweep", "42", "--out", str(out / "y.html")],
        "no-runs": ["report", "--out", str(out / "z.html")],
        "nulls": ["report", "--runs", "3,1", "--out", str(out / "nulls.md")],
    }
    (out / "notes").mkdir()
    done = run_many([(args, data) for args in jobs.values()])
    no_qt = subprocess.run(
        [sys.executable, "-c", NO_QT, "report", "--runs", "1", "--out", str(out / "x.html")],
        capture_output=True, text=True, check=False, env=cli_env(data), timeout=TIMEOUT_S)
    return {"out": out, "no-qt": no_qt, **dict(zip(jobs, done, strict=True))}


def test_html_is_one_file_with_the_table_and_embedded_images(reports: dict) -> None:
    proc = reports["html"]
    assert proc.returncode == 0, describe(proc)
    assert "wrote the report of 2 runs" in proc.stdout
    text = (reports["out"] / "r.html").read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text
    page = Page()
    page.feed(text)
    for tag, attrs in page.tags:
        for name in ("src", "href", "srcset", "data", "poster", "action"):
            value = attrs.get(name, "")
            assert not value or value.startswith("data:"), (tag, name, value[:80])
        assert tag not in {"script", "link", "iframe", "object", "embed"}, tag
    images = [attrs["src"] for tag, attrs in page.tags if tag == "img"]
    # The loss plot, for runs of two engines the ladder, and run 1's explain chart.
    assert len(images) == 3
    for src in images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1]).startswith(PNG_MAGIC)
    assert [row[:4] for row in page.rows] == [["1", "iris", "cpu", "eager"],
                                              ["2", "iris", "cpu", "manual"]]
    assert page.rows[0][6] == page.rows[1][6] == "the note's"  # the settings
    assert page.rows[0][11] == "baseline" and page.rows[1][11] == "4.00x"
    assert page.rows[0][10] == "100.0 ± 2.0" and page.rows[1][12] == "0.2511"
    words = " ".join(page.text)
    assert "iris-gui train --epochs 2000 --lr 0.05" in words  # the command that repeats run 1
    assert "--engine manual --epochs 2000" in words
    assert "Test CPU @ 3 GHz" in words and "2.13.0" in words
    assert any(s in words for s in cpu_breakdown().sentences())  # run 1 was explained
    from iris_gui import __version__

    assert f"iris-gui {__version__}" in words


def test_markdown_writes_its_images_beside_it_and_refers_to_them_relatively(reports) -> None:
    proc = reports["md"]
    assert proc.returncode == 0, describe(proc)
    folder = reports["out"] / "notes"
    text = (folder / "r.md").read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text
    names = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert names == ["r-loss.png", "r-ladder.png", "r-explain.png", "r-crossover.png"]
    for name in names:
        assert (folder / name).read_bytes().startswith(PNG_MAGIC)
    table = [line for line in text.splitlines() if line.startswith("| ")]
    assert table[0].startswith("| ID | Data set | Device | Engine |")
    assert [line.split(" | ")[0] for line in table[2:]] == ["| 2", "| 1"]
    assert "baseline" in table[2] and "0.25x" in table[3]
    assert "```sh\niris-gui train --engine manual" in text


def test_a_stored_breakdown_with_nulls_is_reported(reports: dict) -> None:
    proc = reports["nulls"]
    assert proc.returncode == 0, describe(proc)
    assert "Traceback" not in proc.stderr + proc.stdout
    text = (reports["out"] / "nulls.md").read_text(encoding="utf-8")
    assert "### Run 3: iris on cpu, manual" in text and "### Run 1: iris on cpu, eager" in text
    assert "does not apply to the manual engine: it does not call the module." in text


@pytest.mark.parametrize(("job", "words"), [
    ("unknown", "no run 99 in the store"),
    ("suffix", "the suffix picks the format: .html or .md"),
    ("no-dir", "no directory"),
    ("no-sweep", "no sweep 42 in the store"),
    ("no-runs", "--runs"),
    ("no-qt", "a report's figures needs PySide6 and pyqtgraph"),
])
def test_bad_input_is_one_line_and_exit_status_2(reports: dict, job: str, words: str) -> None:
    assert words in one_line_error(reports[job])
    assert not list(Path(reports["out"]).glob("[xyz].*"))
