"""Each run's section in the report says where the run stands against its device's latest
kept ceilings, in the words ``runs show`` and Details use, and both pages carry it; a noisy
run's placement is no finding. Made-up runs and ceilings with fixed figures."""

from __future__ import annotations

from support.made_ceilings import note_run, roofs

from iris_gui.report.content import build_report
from iris_gui.report.html_page import html_page
from iris_gui.report.markdown_page import markdown_page
from iris_gui.store.runs import RunStore


def test_each_section_places_its_run(tmp_path) -> None:
    with RunStore.open(tmp_path / "runs.sqlite3") as store:
        ids = [store.save(note_run()), store.save(note_run(iqr=30.0))]
        store.save_ceilings(roofs())
        report = build_report([store.get(run_id) for run_id in ids], lambda config: "iris-gui")
    quiet, noisy = (dict(section.environment) for section in report.sections)
    assert quiet["regime"].startswith("overhead-bound: 0.38% of Test CPU's measured 90 GFLOP/s")
    assert quiet["intensity"].startswith("1.57 FLOPs per byte")
    assert quiet["roofs"] == "90 GFLOP/s, 27 GB/s, 2.8 µs an op (measured)"
    assert quiet["work"] == "40.8 kFLOP, 26 kB and 37 ops a step"
    assert noisy["regime"].startswith("not a finding (noisy): overhead-bound: ")
    html, markdown = html_page(report, []), markdown_page(report, [])
    assert "<dt>regime</dt><dd>overhead-bound: 0.38% of Test CPU&#x27;s measured" in html
    assert "overhead-bound: 0.38% of Test CPU's measured 90 GFLOP/s" in markdown
