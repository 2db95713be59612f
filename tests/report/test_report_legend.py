"""The report's loss figure names each curve's run and what it was (a six-run report's
legend said only "run 3" ... "run 8")."""

from __future__ import annotations

from iris_gui.engine.words.labels import table_label
from iris_gui.report.content import build_report
from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.samples.runs import sample_store


def test_each_curve_is_labelled_with_its_device_engine_and_recording(tmp_path, monkeypatch):
    monkeypatch.setenv("IRIS_GUI_DATA_DIR", str(tmp_path))
    with sample_store(tmp_path / "runs.sqlite3") as store:
        assert isinstance(store, RunStore)
        runs = [store.get(run_id) for run_id in (1, 3)]  # two runs with a curve
        report = build_report(runs, lambda config: "iris-gui train")
    labels = [curve.label for curve in report.curves]
    assert labels == [f"run {run.id}: {table_label(run.result.config)}" for run in runs]
    assert all("/" in label.split(": ", 1)[1] for label in labels)
