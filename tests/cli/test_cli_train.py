"""``devices``, ``--version``, ``train`` (keys, determinism, recording choices, --call,
--no-save, --repeat) and ``compare``, each driven through a subprocess."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import (
    ENV_KEYS,
    RECORD_KEYS,
    TIMING_KEYS,
    cli_env,
    describe,
    ok_json,
    run_cli,
    run_many,
)

import iris_gui

EPOCHS = 300


# --------------------------------------------------------------------------- devices, version


@pytest.fixture(scope="module")
def devices_runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    data = tmp_path_factory.mktemp("devices")
    jobs = {"json": ["devices", "--json"], "text": ["devices"], "version": ["--version"]}
    return dict(zip(jobs, run_many([(args, data) for args in jobs.values()]), strict=True))


def test_devices_json_lists_cpu_first(devices_runs: dict) -> None:
    found = ok_json(devices_runs["json"])["devices"]
    assert isinstance(found, list) and found
    assert found[0]["id"] == "cpu"
    assert found[0]["kind"] == "cpu"
    assert all({"id", "kind", "name"} <= set(d) for d in found)
    assert len({d["id"] for d in found}) == len(found)


def test_devices_text_lists_cpu(devices_runs: dict) -> None:
    proc = devices_runs["text"]
    assert proc.returncode == 0, describe(proc)
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:2] == ["device", "kind"]
    assert any(line.split()[:2] == ["cpu", "cpu"] for line in lines[2:]), proc.stdout


def test_version(devices_runs: dict, data_dir: Path) -> None:
    proc = devices_runs["version"]
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.strip() == f"iris-gui {iris_gui.__version__}"
    # The console script is the same entry point.
    script = Path(sys.executable).with_name("iris-gui")
    if not script.exists():
        pytest.skip(f"no console script beside {sys.executable}")
    proc = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=False,
                          env=cli_env(data_dir), timeout=60)
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.strip() == f"iris-gui {iris_gui.__version__}"


# --------------------------------------------------------------------------- single runs

RECORD_CASES = {  # --record: (curve_points, loss_stride) after 300 epochs
    "every-epoch": (300, 1),
    "every:50": (6, 50),  # epochs 0, 50, ..., 250
    "device": (300, 1),
    "none": (0, 1),
}


@pytest.fixture(scope="module")
def singles(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The single 300-epoch trainings this module needs, all with seed 7, run a few at a time
    into one store (so saves also overlap). Each process costs seconds of imports, so the
    recording choices share runs with the other checks: ``seed7`` records every epoch,
    ``device`` also calls model(x), ``none`` is not saved and has a store of its own."""
    shared = tmp_path_factory.mktemp("singles")
    nosave = tmp_path_factory.mktemp("nosave")
    base = ["train", "--epochs", str(EPOCHS), "--json", "--seed", "7"]
    jobs = {
        "seed7": (base, shared),
        "seed7 again": (base, shared),
        "every:50": (base + ["--record", "every:50"], shared),
        "device": (base + ["--record", "device", "--call", "call"], shared),
        "none": (base + ["--record", "none", "--no-save"], nosave),
    }
    results = dict(zip(jobs, run_many(list(jobs.values())), strict=True))
    results["every-epoch"] = results["seed7"]
    results["shared_dir"], results["nosave_dir"] = shared, nosave
    return results


@pytest.fixture(scope="module")
def curves(singles: dict) -> dict:
    """``runs show ID --json --curve`` for each saved single run."""
    names = ["seed7", "seed7 again", "every:50", "device"]
    ids = [ok_json(singles[name])["id"] for name in names]
    shown = run_many([(["runs", "show", str(i), "--json", "--curve"], singles["shared_dir"])
                      for i in ids])
    out = {}
    for name, run_id, proc in zip(names, ids, shown, strict=True):
        record = ok_json(proc)
        assert record["id"] == run_id
        out[name] = record
    out["every-epoch"] = out["seed7"]
    return out


def test_train_json_keys_and_values(singles: dict, curves: dict) -> None:
    record = ok_json(singles["seed7"])
    assert RECORD_KEYS <= set(record), RECORD_KEYS - set(record)
    assert isinstance(record["id"], int) and record["id"] >= 1
    assert record["status"] == "completed" and record["message"] == ""
    assert record["device"] == "cpu"
    assert record["epochs"] == record["epochs_completed"] == EPOCHS
    assert record["config"]["epochs"] == EPOCHS and record["config"]["seed"] == 7
    assert record["config"]["device"] == "cpu"
    # The final loss is the trained model's: below the first epoch's, one step past the last.
    losses = curves["seed7"]["losses"]
    assert record["final_loss"] < losses[0]
    assert record["final_loss"] == pytest.approx(losses[-1], rel=1e-2)
    # Accuracies are counts over the 120 training and 30 test rows, better than chance (1/3)
    # after 300 epochs of seed 7 (0.66 and 0.70).
    assert record["train_accuracy"] * 120 == pytest.approx(round(record["train_accuracy"] * 120))
    assert record["train_accuracy"] > 0.5 and record["test_accuracy"] > 0.5
    matrix = record["confusion_matrix"]
    assert len(matrix) == 3 and all(len(row) == 3 for row in matrix)
    assert sum(map(sum, matrix)) == 30  # iris: 150 rows, 20% held out
    assert record["test_accuracy"] == pytest.approx(sum(matrix[i][i] for i in range(3)) / 30)

    timings = record["timings"]
    assert TIMING_KEYS <= set(timings), TIMING_KEYS - set(timings)
    for key in TIMING_KEYS:  # every phase was timed: none is left at its default of 0
        assert isinstance(timings[key], float) and timings[key] > 0, (key, timings)
    assert timings["first_epoch_seconds"] < timings["train_seconds"]

    env = record["env"]
    assert ENV_KEYS <= set(env), ENV_KEYS - set(env)
    assert env["threads"] == 1 and env["torch_version"] and env["python"] and env["os"]


def test_same_seed_same_curve_other_seed_other_curve(
    singles: dict, curves: dict, repeated: tuple[Path, dict]
) -> None:
    a, b = curves["seed7"], curves["seed7 again"]
    assert a["id"] != b["id"]
    assert len(a["losses"]) == len(b["losses"]) == EPOCHS
    assert a["losses"] == b["losses"]
    assert a["final_loss"] == b["final_loss"] and a["test_accuracy"] == b["test_accuracy"]
    # What train --json printed is what the store gives back.
    assert ok_json(singles["seed7"])["final_loss"] == a["final_loss"]

    data, record = repeated  # three seed-8 runs
    shown = [ok_json(p) for p in run_many(
        [(["runs", "show", str(i), "--json", "--curve"], data) for i in record["repeat"]["ids"]])]
    other = shown[0]["losses"]
    assert len(other) == EPOCHS
    assert all(s["losses"] == other for s in shown[1:])  # same seed again, within one process
    assert other != a["losses"]
    assert other[0] != a["losses"][0]  # different initial weights


@pytest.mark.parametrize("record", list(RECORD_CASES))
def test_record_choice(record: str, singles: dict, curves: dict) -> None:
    points, stride = RECORD_CASES[record]
    printed = ok_json(singles[record])
    assert printed["status"] == "completed" and printed["epochs_completed"] == EPOCHS
    assert printed["record"] == printed["config"]["record"] == record
    assert (printed["curve_points"], printed["loss_stride"]) == (points, stride)
    # Recording (and the call style) changes what is brought back, never the training.
    full = curves["every-epoch"]
    assert printed["final_loss"] == full["final_loss"]
    if record in curves:
        stored = curves[record]
        assert (stored["curve_points"], stored["loss_stride"]) == (points, stride)
        # every:N keeps epochs 0, N, 2N, ... of the every-epoch curve.
        assert stored["losses"] == full["losses"][::stride]
        assert len(stored["losses"]) == points


def test_call_style_call(singles: dict, curves: dict) -> None:
    record = ok_json(singles["device"])
    assert record["call"] == record["config"]["call"] == "call"
    assert ok_json(singles["seed7"])["call"] == "forward"  # the default, as the note writes it
    # model(x) and model.forward(x) compute the same thing.
    assert curves["device"]["losses"] == curves["seed7"]["losses"]


def test_no_save_leaves_the_store_empty(singles: dict) -> None:
    record = ok_json(singles["none"])
    assert record["status"] == "completed"
    assert "id" not in record
    assert ok_json(run_cli(["runs", "list", "--json"], singles["nosave_dir"])) == []


# --------------------------------------------------------------------------- --repeat


def test_repeat_summarises_three_runs(repeated: tuple[Path, dict]) -> None:
    data, record = repeated
    assert RECORD_KEYS <= set(record)
    rep = record["repeat"]
    assert len(rep["ids"]) == 3 and len(set(rep["ids"])) == 3
    assert record["id"] in rep["ids"]  # the representative is one of the three
    listed = ok_json(run_cli(["runs", "list", "--json"], data))
    assert [run["id"] for run in listed] == rep["ids"]
    assert all(run["status"] == "completed" and run["epochs_completed"] == EPOCHS for run in listed)
    # Each summary is of the three stored runs' own figures: their median, extremes and IQR
    # (numpy's percentiles of three values a <= b <= c: q1 = (a+b)/2, q3 = (b+c)/2).
    for key in ("train_seconds", "epoch_us"):
        low, mid, high = sorted(run["timings"][key] for run in listed)
        want = {"median": pytest.approx(mid), "iqr": pytest.approx((high - low) / 2), "n": 3,
                "min": pytest.approx(low), "max": pytest.approx(high),
                "noisy": (high - low) / 2 > 0.10 * mid}
        assert {name: rep[key].get(name) for name in want} == want, (key, rep[key])
    # The representative is the replicate whose loop time is closest to the median.
    times = {run["id"]: run["timings"]["train_seconds"] for run in listed}
    assert times[record["id"]] == pytest.approx(rep["train_seconds"]["median"])


# --------------------------------------------------------------------------- compare

COMPARE = ["compare", "--devices", "cpu", "--records", "every-epoch,device,none",
           "--epochs", "200"]


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> dict:
    jobs = {
        "text": COMPARE,
        "json": COMPARE + ["--json"],
        # --repeat 3 as well: each row then stands for three replicates.
        "baseline2": COMPARE + ["--json", "--baseline", "2", "--repeat", "3", "--no-save"],
    }
    dirs = {name: tmp_path_factory.mktemp(f"compare-{name}") for name in jobs}
    results = dict(zip(jobs, run_many([(jobs[n], dirs[n]) for n in jobs]), strict=True))
    results["dirs"] = dirs
    return results


def test_compare_text_table(compared: dict) -> None:
    proc = compared["text"]
    assert proc.returncode == 0, describe(proc)
    rows = [line for line in proc.stdout.splitlines() if re.match(r"\s*\d+\s+cpu\s", line)]
    assert len(rows) == 3, proc.stdout
    assert [row.split()[2] for row in rows] == ["every-epoch", "device", "none"]
    assert all(row.split()[4] == "completed" for row in rows)
    assert "baseline" in rows[0] and "baseline" not in rows[1] + rows[2]
    # A ratio where it is a result, else the reason (the machine's load decides which).
    for row in rows[1:]:
        assert re.search(r"\d\.\d\dx|CPU busy|noisy", row), row
    verdicts = [line for line in proc.stdout.splitlines() if line.startswith("Verdict: ")]
    assert len(verdicts) == 1 and verdicts[0].endswith("."), proc.stdout


def test_compare_json(compared: dict) -> None:
    rows = ok_json(compared["json"])
    assert isinstance(rows, list) and len(rows) == 3
    assert [r["record"] for r in rows] == ["every-epoch", "device", "none"]
    # One replicate per row: the speedup is the baseline's steady-state µs/epoch over the row's;
    # total_speedup compares the whole loop's seconds per epoch.
    steady = [row["timings"]["epoch_us"] for row in rows]
    total = [row["timings"]["train_seconds"] / row["epochs_completed"] for row in rows]
    for row, epoch_us, seconds in zip(rows, steady, total, strict=True):
        assert RECORD_KEYS <= set(row), RECORD_KEYS - set(row)
        assert row["status"] == "completed" and row["epochs_completed"] == 200
        assert row["measured_speedup"] == pytest.approx(steady[0] / epoch_us), (row, steady)
        # A speedup only where it is a result (records/standing.py; the load decides).
        fit = row["standing"]["kind"] in ("result", "within-noise")
        assert (row["speedup"] is not None) == fit, row["standing"]
        if fit:
            assert row["speedup"] == row["measured_speedup"]
            assert row["total_speedup"] == pytest.approx(total[0] / seconds), (row, total)
    assert rows[0]["measured_speedup"] == 1.0
    listed = ok_json(run_cli(["runs", "list", "--json"], compared["dirs"]["json"]))
    assert sorted(run["id"] for run in listed) == sorted(row["id"] for row in rows)


def test_compare_baseline_row_number_with_replicates(compared: dict) -> None:
    rows = ok_json(compared["baseline2"])
    assert len(rows) == 3
    assert rows[1]["measured_speedup"] == 1.0
    # Against row 2, from the medians of the replicates (every run has 200 epochs).
    steady = [row["repeat"]["epoch_us"]["median"] for row in rows]
    assert [r["measured_speedup"] for r in rows] == [pytest.approx(steady[1] / m) for m in steady]
    loops = [row["repeat"]["train_seconds"]["median"] for row in rows]
    for row, loop in zip(rows, loops, strict=True):
        if row["total_speedup"] is not None:
            assert row["total_speedup"] == pytest.approx(loops[1] / loop)
    assert all("id" not in r for r in rows)  # --no-save
    for row in rows:
        assert row["repeat"]["ids"] == []  # --no-save
        assert row["repeat"]["train_seconds"]["n"] == row["repeat"]["epoch_us"]["n"] == 3

