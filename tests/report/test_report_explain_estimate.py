"""The report's explain parts without a GPU: a CPU run's estimate for a GPU under a heading of
its own, after and apart from its measured sentences, marked "estimate, not a measurement";
a busy breakdown's costs "not measured"; the explain figure's caption names the hatching. Built
in this process from a store of hand-made runs with stand-in breakdowns: no training."""

from __future__ import annotations

import re

import numpy as np
import pytest

from iris_gui.engine.records.gpu_estimate import ESTIMATE_MARK, GpuEstimate
from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.report.content import ESTIMATE_HEADING, build_report
from iris_gui.report.html_page import html_page
from iris_gui.report.markdown_page import markdown_page
from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.samples.breakdowns import cpu_breakdown

BUSY = ("not measured: the CPU was busy with other work (38% of the time); re-run it when the "
        "machine is quieter")
NEGATIVE = re.compile(r"(?<![\w.#])-\d")


def run_result() -> RunResult:
    losses = np.linspace(1.1, 0.3, 200).astype(np.float32)
    return RunResult(RunConfig(epochs=200), RunStatus.COMPLETED, epochs_completed=200,
                     losses=losses, final_loss=float(losses[-1]), train_accuracy=0.9,
                     test_accuracy=0.9, timings=Timings(train_seconds=0.02, epoch_us=100.0),
                     env=EnvRecord(torch_version="2.13.0", device="cpu", threads=1),
                     started_at="2026-12-01T10:00:00+01:00")


@pytest.fixture
def report(tmp_path):
    quiet, busy = cpu_breakdown(), cpu_breakdown()
    for b, share in ((quiet, 0.01), (busy, 0.38)):
        b.gpu_estimate = GpuEstimate(15.0, 1.0, cpu_epoch_us=b.epoch_us_unprofiled)
        b.cpu_wait_share = share
    busy.profiler_overhead_pct = -8.0
    with RunStore.open(tmp_path / "runs.sqlite3") as store:
        ids = [store.save(run_result()) for _ in range(2)]
        for run_id, b in zip(ids, (quiet, busy), strict=True):
            store.save_breakdown(run_id, b.to_dict())
        runs = [store.get(run_id) for run_id in ids]
    return build_report(runs, lambda config: "iris-gui train"), quiet, busy


def test_each_cpu_section_has_its_estimate_apart_from_its_measured_sentences(report) -> None:
    built, quiet, busy = report
    for section, b in zip(built.sections, (quiet, busy), strict=True):
        assert section.sentences == [b.answer(), *b.sentences()]
        assert section.estimate == b.estimate_sentences()
        assert not any(ESTIMATE_MARK in s for s in section.sentences[1:])
        assert section.estimate[1].endswith(f"— an {ESTIMATE_MARK}.")
    busy_section = built.sections[1]
    assert busy_section.sentences[1].startswith(f"Syncing the loss every epoch: {BUSY}")
    assert f"this CPU's own epoch is {BUSY}" in busy_section.estimate[1]


@pytest.mark.parametrize("page", ["html", "md"])
def test_the_pages_put_the_estimate_under_its_heading(report, page) -> None:
    built = report[0]
    text = html_page(built, []) if page == "html" else markdown_page(built, [])
    for section in built.sections:
        run_part = text.split(f"Run {section.run_id}: ")[1].split("Repeat it:")[0]
        measured, estimate = run_part.split(ESTIMATE_HEADING)
        assert "Where an epoch's time goes (explain):" in measured
        assert "On a GPU this epoch would launch about 15 kernels" in estimate
        assert "Measure it: add a GPU host" in estimate
        assert ESTIMATE_MARK not in measured.replace(ESTIMATE_HEADING, "")
        assert not NEGATIVE.search(run_part), run_part
    if page == "html":
        assert '<div class="estimate">' in text


def test_the_explain_figures_caption_names_the_hatching(report, tmp_path, qapp) -> None:
    from iris_gui.report.figures import render_figures

    figures = render_figures(report[0], tmp_path, "r")
    caption = next(f.caption for f in figures if f.name == "explain")
    assert f"hatched: a GPU's launches and syncs, {ESTIMATE_MARK}" in caption
