"""The report names each run's model with its parameters and FLOPs per step in the run's
section, and the model file it loaded, escaped as the rest of the page; the Settings column
names a model that is not the note's MLP. Made-up runs with fixed figures."""

from __future__ import annotations

from support.made_runs import made_run

from iris_gui.report.content import build_report
from iris_gui.report.html_page import html_page
from iris_gui.report.markdown_page import markdown_page
from iris_gui.report.table import HEADERS
from iris_gui.store.runs import RunStore

PATH = "/home/me/<i>net*co.py"
SHA = "0123456789ab" + "cd" * 26


def _runs():
    cnn = made_run(100.0, model="cnn", dataset="digits")
    cnn.parameters, cnn.flops_per_step = 3130, 16_760_832.0
    own = made_run(120.0, model=f"{PATH}:Net")
    own.parameters, own.flops_per_step = 83, 40_800.0
    own.model_file = {"path": PATH, "size": 4321, "sha256": SHA, "name": "Net"}
    return [cnn, own, made_run(90.0)]


def report_of(tmp_path):
    with RunStore.open(tmp_path / "runs.sqlite3") as store:
        runs = [store.get(store.save(result)) for result in _runs()]
        return build_report(runs, lambda config: "iris-gui train")


def test_each_section_names_the_model_and_what_it_costs(tmp_path) -> None:
    report = report_of(tmp_path)
    said = [dict(section.environment) for section in report.sections]
    assert [s["model"] for s in said] == [
        "cnn 16×2, 3,130 parameters, 16.8 MFLOP a step",
        "<i>net*co.py:Net, 83 parameters, 40.8 kFLOP a step", "MLP 10"]
    assert said[1]["model file"] == f"{PATH}, 4,321 bytes, SHA-256 0123456789ab"
    assert "model file" not in said[0] and "model file" not in said[2]
    settings = [row[HEADERS.index("Settings")] for row in report.rows]
    assert settings[0].startswith("cnn 16×2")


def test_the_pages_escape_the_model_file_path(tmp_path) -> None:
    report = report_of(tmp_path)
    page = html_page(report, [])
    assert "<dt>model</dt><dd>cnn 16×2, 3,130 parameters, 16.8 MFLOP a step</dd>" in page
    assert "/home/me/&lt;i&gt;net*co.py, 4,321 bytes" in page and "<i>net" not in page
    text = markdown_page(report, [])
    assert "- **model**: cnn 16×2, 3,130 parameters, 16.8 MFLOP a step" in text
    assert ("- **model file**: /home/me/\\<i\\>net\\*co.py, 4,321 bytes, SHA-256 "
            "0123456789ab") in text.splitlines()


def test_the_title_names_a_sweep_only_when_the_report_holds_it(tmp_path) -> None:
    from iris_gui.engine.records.sweep_model import SweepResult, SweepSpec

    with RunStore.open(tmp_path / "runs.sqlite3") as store:
        runs = [store.get(store.save(made_run(90.0)))]
    empty = SweepResult(SweepSpec(rows=(150,), hidden=(10,)), status="failed")
    report = build_report(runs, lambda config: "iris-gui train", sweep=empty, sweep_label="sweep 4")
    assert report.title == f"iris-gui report: run {runs[0].id}" and report.sweep is None
    assert "sweep 4" not in html_page(report, [])
