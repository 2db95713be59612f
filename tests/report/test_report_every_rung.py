"""Explain and the report over real runs of every CPU rung (eager,
lean, manual, compiled, native), trained and explained through the command line, the
breakdowns stored with their runs and read back from the store, then reported as HTML and
Markdown with every run's section, and never a traceback.

Short runs and a small explain window: the figures are not looked at, only that each stage
takes every rung's record shape (a rung that calls no module stores its call cost as null)."""

from __future__ import annotations

import pytest
from support.cli import DB_NAME, describe, ok_json, run_many

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.store.runs import RunStore

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow

# Each CPU rung with a recording it supports (compiled and native keep the losses on the
# device; manual is asked the same so that its call and sync pairs are the only difference).
RUNGS = {"eager": "every-epoch", "lean": "every-epoch", "manual": "device",
         "compiled": "device", "native": "device"}
EPOCHS = "200"
WINDOW = ["--window", "20", "--repeat", "1"]


@pytest.fixture(scope="module")
def every_rung(tmp_path_factory: pytest.TempPathFactory) -> dict:
    data = tmp_path_factory.mktemp("every-rung-data")
    out = tmp_path_factory.mktemp("every-rung-out")
    trained = run_many([(["train", "--engine", engine, "--record", record, "--epochs", EPOCHS,
                          "--json"], data) for engine, record in RUNGS.items()])
    explained = run_many([(["explain", "--engine", engine, "--record", record, *WINDOW,
                            "--json"], data) for engine, record in RUNGS.items()])
    ids = {}
    with RunStore.open(data / DB_NAME) as store:
        for engine, train, explain in zip(RUNGS, trained, explained, strict=True):
            run = ok_json(train)
            record = ok_json(explain)
            record.pop("sentences")
            record.pop("estimate_sentences")
            store.save_breakdown(run["id"], record)
            ids[engine] = run["id"]
    order = ",".join(str(ids[engine]) for engine in RUNGS)
    reports = run_many([(["report", "--runs", order, "--out", str(out / f"every.{suffix}")], data)
                        for suffix in ("html", "md")])
    return {"data": data, "out": out, "ids": ids, "trained": trained, "explained": explained,
            "reports": dict(zip(("html", "md"), reports, strict=True))}


def test_every_rung_trains_and_explains_without_an_error(every_rung: dict) -> None:
    for proc in every_rung["trained"] + every_rung["explained"]:
        assert proc.returncode == 0, describe(proc)
        assert "Traceback" not in proc.stderr, describe(proc)


def test_every_stored_breakdown_reads_back_and_speaks(every_rung: dict) -> None:
    with RunStore.open_for_reading(every_rung["data"] / DB_NAME) as store:
        for engine, run_id in every_rung["ids"].items():
            breakdown = Breakdown.from_dict(store.get(run_id).breakdown)
            assert breakdown.engine == engine
            sentences = breakdown.sentences()
            # On the CPU: the sync and the call; the launches and idleness are said with the
            # estimate for a GPU, which every rung has (estimated, or why it cannot be).
            assert len(sentences) == 2 and all(s.endswith(".") for s in sentences)
            assert breakdown.gpu_estimate is not None
            assert breakdown.gpu_estimate.estimated == (engine in ("eager", "lean", "manual"))
            if engine in ("manual", "compiled", "native"):
                assert f"does not apply to the {engine} engine" in sentences[-1]
            assert not any(note.endswith(" is") for note in breakdown.notes)


@pytest.mark.parametrize("suffix", ["html", "md"])
def test_the_report_opens_with_every_runs_section(every_rung: dict, suffix: str) -> None:
    proc = every_rung["reports"][suffix]
    assert proc.returncode == 0, describe(proc)
    assert "Traceback" not in proc.stderr + proc.stdout
    assert f"wrote the report of {len(RUNGS)} runs" in proc.stdout
    text = (every_rung["out"] / f"every.{suffix}").read_text(encoding="utf-8")
    for engine, run_id in every_rung["ids"].items():
        heading = f"Run {run_id}: iris on cpu, {engine}, record {RUNGS[engine]}"
        assert heading in text, heading
        if suffix == "html":
            assert f'<section id="run-{run_id}">' in text
        section = text.split(heading, 1)[1]
        assert "Where an epoch" in section.split("Repeat it:")[0]  # its explain sentences
    assert "does not apply to the native engine" in text
    # The explain chart of the explained runs, beside the loss plot and the ladder.
    assert "time goes in each explained run" in text
    if suffix == "md":
        assert (every_rung["out"] / "every-explain.png").stat().st_size > 1000
