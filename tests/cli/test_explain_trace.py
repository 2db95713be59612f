"""``iris-gui explain --trace FILE.json`` (and ``lab.explain(trace=...)``): the profiled
window's trace kept as the profiler writes it, for Perfetto or chrome://tracing, in-process."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from support.cli import describe, one_line_error, run_cli
from support.small_disk import small_disk

# Profiles runs (and loads HTA): make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow

SHORT = ["explain", "--epochs", "20", "--repeat", "1"]
PHASES = {"iris::forward", "iris::loss", "iris::zero_grad", "iris::backward", "iris::optimizer",
          "iris::recording"}


def _phases(path) -> set[str]:
    trace = json.loads(path.read_text(encoding="utf-8"))  # valid JSON, whole
    names = {event.get("name", "") for event in trace["traceEvents"]}
    return {name for name in names if name.startswith("iris::")}


def test_the_trace_holds_the_profiled_window_with_every_annotated_phase(data_dir, tmp_path):
    trace = tmp_path / "window.json"
    proc = run_cli([*SHORT, "--trace", str(trace)], data_dir, timeout=300)
    assert proc.returncode == 0, describe(proc)
    assert _phases(trace) >= PHASES
    assert proc.stderr.strip() == (f"kept the profiled window's trace in {trace}: open it in "
                                   "https://ui.perfetto.dev or chrome://tracing")
    assert [p.name for p in tmp_path.iterdir()] == ["window.json"]  # no part file left


def test_the_api_keeps_the_same_trace(data_dir, tmp_path, monkeypatch):
    import iris_gui as lab

    monkeypatch.setenv("IRIS_GUI_DATA_DIR", str(data_dir))
    trace = tmp_path / "api.json"
    explained = lab.explain(epochs=20, repeat=1, trace=trace)
    assert _phases(trace) >= PHASES and explained.epochs_profiled == 20


@pytest.mark.parametrize(("target", "words"), [
    ("trace.txt", "--trace trace.txt: a trace is a .json file"),
    ("nowhere/trace.json", "--trace nowhere/trace.json: no directory nowhere"),
])
def test_a_bad_trace_file_is_one_line_before_anything_is_profiled(
        target, words, data_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert words in one_line_error(run_cli([*SHORT, "--trace", target], data_dir))


def test_a_trace_onto_a_full_disk_is_one_line_and_leaves_nothing_there(data_dir, tmp_path):
    # torch's profiler writes <name>.tmp and says nothing when the disk fills: the line names
    # the full disk, and the scrap it wrote is gone.
    with small_disk(tmp_path / "disk", "64k") as disk:
        line = one_line_error(run_cli([*SHORT, "--trace", str(disk / "t.json")], data_dir))
        assert re.search(rf"cannot write the trace to {re.escape(str(disk / 't.json'))}: no "
                         r"space left on the device \([\d,]+ bytes free\)$", line), line
        assert list(disk.iterdir()) == []
        # The scrap torch still holds open was emptied before it was unlinked: the space is
        # free again while this process lives on.
        assert shutil.disk_usage(disk).free > 48 * 1024


def test_the_trace_never_overwrites_the_runs_store(data_dir, tmp_path):
    run_cli(["train", "--epochs", "5"], data_dir)  # the store exists
    store = data_dir / "runs.sqlite3"
    before = store.read_bytes()
    disguised = tmp_path / "trace.json"
    disguised.symlink_to(store)  # a .json name that leads to the store
    line = one_line_error(run_cli([*SHORT, "--trace", str(disguised)], data_dir))
    assert "it is the runs store's file" in line
    assert store.read_bytes() == before


# HTA's own code calls pandas' reset_index(inplace=True), deprecated in pandas 3.1: its warning,
# not ours, and only here.
@pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")
def test_holistic_trace_analysis_reads_each_profiled_epoch_as_an_iteration(data_dir, tmp_path):
    from hta.trace_analysis import TraceAnalysis

    folder = tmp_path / "traces"
    folder.mkdir()
    trace = folder / "rank0.json"
    proc = run_cli([*SHORT, "--trace", str(trace)], data_dir, timeout=300)
    assert proc.returncode == 0, describe(proc)
    written = json.loads(trace.read_text(encoding="utf-8"))
    # Named by its own file, and rank 0 of a world of one, as a training run's trace says.
    assert written["traceName"] == str(trace)
    assert written["distributedInfo"] == {"backend": "", "rank": 0, "world_size": 1}
    steps = {e["name"] for e in written["traceEvents"] if e.get("name", "").startswith(
        "ProfilerStep#")}
    assert len(steps) == 20  # one a profiled epoch
    analysis = TraceAnalysis(trace_dir=str(folder))
    assert list(analysis.t.traces) == [0]
    # HTA reads the iterations (it leaves out the last, which it cannot tell is whole), each
    # holding every phase of the note's step once.
    iterations = analysis.get_profiler_steps()
    assert len(iterations) >= 19 and iterations == list(range(iterations[0],
                                                              iterations[0] + len(iterations)))
    frame = analysis.t.get_trace(0)
    names = analysis.t.symbol_table.get_sym_table()
    frame = frame.assign(label=frame["name"].map(lambda index: names[index]))
    phases = frame[frame["label"].str.startswith("iris::")]
    per_iteration = phases.groupby("iteration")["label"].apply(lambda s: tuple(sorted(s)))
    assert set(per_iteration.loc[iterations]) == {tuple(sorted(PHASES))}
    # Its kernel breakdown runs, and finds no kernel on a CPU; its temporal and idle
    # breakdowns are of a GPU's kernels, which a CPU trace has none of.
    kernels, _ = analysis.get_gpu_kernel_breakdown(visualize=False)
    assert kernels.empty
