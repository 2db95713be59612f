"""``iris-gui sweep`` and ``iris-gui sweeps``, in this process."""

from __future__ import annotations

import itertools

import pytest
from support.cli import describe, ok_json, one_line_error, run_cli, run_many

from iris_gui.cli.parser import build_parser
from iris_gui.cli.sweep_cmd import spec_from_args
from iris_gui.engine.records.sweep_model import SweepSpec

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow


ROWS = [120, 1_000, 10_000, 100_000]


def test_sweep_with_no_options_asks_for_the_default_grid() -> None:
    """Every device here, eager and manual, one thread and all, rows 120 to 1,000,000, hidden
    10: SweepSpec's defaults (benchmarks/sweep_check.py times that grid whole)."""
    args = build_parser().parse_args(["sweep"])
    assert spec_from_args(args) == SweepSpec()
    assert SweepSpec().rows == (*ROWS, 1_000_000) and SweepSpec().hidden == (10,)


@pytest.fixture(scope="module")
def default_sweep(tmp_path_factory):
    """The default sweep's series as a user would type it, on the default rows but the
    million (a million rows is a data set of its own to make: the defaults are checked above);
    each point's timed window the shortest the sweep allows (the figures are not what is
    tested)."""
    data = tmp_path_factory.mktemp("sweep")
    return data, ok_json(run_cli(["sweep", "--rows", ",".join(map(str, ROWS)), "--min-seconds",
                                  "0.01", "--min-epochs", "2", "--json"], data, timeout=300))


def test_the_default_sweep_returns_every_point_the_fits_and_a_verdict_per_pair(default_sweep):
    _, record = default_sweep
    spec = record["spec"]
    assert spec["rows"] == ROWS and spec["hidden"] == [10]
    series = list(dict.fromkeys(p["series"] for p in record["points"]))
    assert len(record["points"]) == len(ROWS) * len(series)
    assert {"cpu/eager/1 thread", "cpu/manual/1 thread"} <= set(series)
    for point in record["points"]:
        assert point["status"] == "completed", point
        assert point["epoch_us"] > 0 and point["gflops"] > 0 and point["flops_per_epoch"] > 0
        assert set(point) >= {"device", "engine", "threads", "rows", "hidden", "epoch_us",
                              "epoch_us_iqr", "flops_per_epoch", "gflops", "status"}
    assert [f["series"] for f in record["fits"]] == series
    for fit in record["fits"]:
        # A point measured while the CPU was busy is left out of its fit (and counted). A fit
        # whose times do not grow with the work is a floor alone: its throughput is infinite,
        # null in JSON (which measured times give is the machine's to say, not the test's).
        assert fit["floor_us"] >= 0 and len(fit["errors"]) == fit["points"]
        assert fit["gflops"] is None or fit["gflops"] > 0
        assert fit["points"] + fit["busy_left_out"] == len(ROWS)
        assert fit["max_rel_error"] == max(abs(e) for e in fit["errors"])
    verdicts = {frozenset((c["a"], c["b"])) for c in record["crossovers"] if c["axis"] == "rows"}
    assert verdicts == {frozenset(pair) for pair in itertools.combinations(series, 2)}
    assert all(c["sentence"] for c in record["crossovers"])


def test_a_saved_sweep_is_listed_shown_and_deleted(default_sweep, tmp_path):
    data, record = default_sweep
    listed, shown, text = run_many([(["sweeps", "list", "--json"], data),
                                    (["sweeps", "show", str(record["id"]), "--json"], data),
                                    (["sweeps", "show", str(record["id"])], data)])
    assert [s["id"] for s in ok_json(listed)] == [record["id"]]
    assert ok_json(shown)["points"] == record["points"]
    assert text.returncode == 0, describe(text)
    assert "fits: us/epoch = floor + FLOPs / throughput" in text.stdout
    assert "crossovers:" in text.stdout
    png, csv = tmp_path / "sweep.png", tmp_path / "sweep.csv"
    plots = run_many([(["plot", "--sweep", str(record["id"]), "--out", str(png), "--width",
                        "900"], data),
                      (["plot", "--sweep", str(record["id"]), "--out", str(csv)], data)])
    assert all(p.returncode == 0 for p in plots), describe(plots[0])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    assert len(csv.read_text().splitlines()) == len(record["points"]) + 1
    deleted = run_cli(["sweeps", "delete", str(record["id"])], data)
    assert deleted.stdout.strip() == f"deleted sweep {record['id']}", describe(deleted)
    assert ok_json(run_cli(["sweeps", "list", "--json"], data)) == []


@pytest.mark.parametrize("args, fragment", [
    (["sweep", "--rows", "0,5"], "rows [0, 5] is not allowed"),
    (["sweep", "--rows", "ten"], "'ten' is not a list of whole numbers"),
    (["sweep", "--engines", "warp"], "engine 'warp' is not allowed"),
    (["sweep", "--threads", "many"], "threads 'many' is not allowed"),
    (["sweep", "--devices", "cuda:7"], "device 'cuda:7' is not available"),
    (["sweeps", "show", "99"], "no sweep 99 in the store"),
    (["sweep", "--rows", ",".join(map(str, range(2, 1003))), "--devices", "cpu", "--engines",
      "eager,manual", "--threads", "1"], ("asks for up to 2,002 points (sizes x series); "
                                          "at most 2,000 are allowed")),
    (["plot", "--sweep", "3", "--runs", "1", "--out", "x.csv"], "give --runs"),
])
def test_bad_input_is_one_line(tmp_path, args, fragment):
    line = one_line_error(run_cli(args, tmp_path))
    assert fragment in line


def test_a_sigterm_during_a_sweep_stops_it_named_as_itself(data_dir) -> None:
    """The sweep stops at SIGTERM as at Ctrl+C, and says which it was: the same one line as
    train's, never "Ctrl+C again" for a signal a scheduler sent."""
    import os
    import signal

    def terminate_once_measuring(text: str) -> None:
        if "measuring point 1 of" in text:
            os.kill(os.getpid(), signal.SIGTERM)

    done = run_cli(["sweep", "--rows", "100,200,400,800", "--devices", "cpu", "--engines",
                    "eager", "--threads", "1", "--min-seconds", "1"], data_dir, timeout=300,
                   on_stderr=terminate_once_measuring)
    assert done.returncode == 143, describe(done)
    assert ("iris-gui: SIGTERM: stopping at the next chunk; what was measured is kept "
            "(SIGTERM again to abort it)") in done.stderr
    assert done.stdout.startswith("sweep 1: stopped")
