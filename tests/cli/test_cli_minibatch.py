"""``train`` with mini-batches, both data paths and your own CSV, through a subprocess: the runs
are stored, the loader and resident curves agree, the loader says how long it waited, and each
bad setting or file is one line with exit status 2."""

from __future__ import annotations

import numpy as np
import pytest
from support.cli import DB_NAME, describe, ok_json, one_line_error, run_many

from iris_gui.store.runs import RunStore

EPOCHS = "20"
FLOWERS = """sepal length,sepal width,petal length,petal width,species
5.1,3.5,1.4,0.2,setosa
4.9,3.0,1.4,0.2,setosa
4.7,3.2,1.3,0.2,setosa
4.6,3.1,1.5,0.2,setosa
5.0,3.6,1.4,0.2,setosa
5.4,3.9,1.7,0.4,setosa
7.0,3.2,4.7,1.4,versicolor
6.4,3.2,4.5,1.5,versicolor
6.9,3.1,4.9,1.5,versicolor
5.5,2.3,4.0,1.3,versicolor
6.5,2.8,4.6,1.5,versicolor
5.7,2.8,4.5,1.3,versicolor
6.3,3.3,6.0,2.5,virginica
5.8,2.7,5.1,1.9,virginica
7.1,3.0,5.9,2.1,virginica
6.3,2.9,5.6,1.8,virginica
6.5,3.0,5.8,2.2,virginica
7.6,3.0,6.6,2.1,virginica
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    data = tmp_path_factory.mktemp("minibatch")
    flowers = data / "flowers.csv"
    flowers.write_text(FLOWERS, encoding="utf-8")
    broken = data / "broken.csv"
    broken.write_text(FLOWERS.replace("6.4,3.2,4.5", "6.4,,4.5"), encoding="utf-8")
    base = ["train", "--epochs", EPOCHS, "--batch", "32"]
    jobs = {
        "loader": [*base, "--data-path", "loader", "--workers", "2", "--json"],
        "resident": [*base, "--data-path", "resident", "--json"],
        # Text, not JSON: its summary is checked, and its record read from the store.
        "csv": ["train", "--epochs", EPOCHS, "--data", str(flowers), "--target", "species",
                "--batch", "4", "--data-path", "loader"],
        "bad_batch": ["train", "--batch", "0x"],
        "resident_workers": ["train", "--workers", "2"],
        "missing_file": ["train", "--data", str(data / "absent.csv")],
        "broken_file": ["train", "--data", str(broken), "--epochs", "5"],
        "bad_target": ["train", "--data", str(flowers), "--target", "colour", "--epochs", "5"],
        "native_batch": ["train", "--engine", "native", "--batch", "8"],
    }
    done = dict(zip(jobs, run_many([(args, data) for args in jobs.values()]), strict=True))
    done["store"] = data / DB_NAME
    return done


def test_loader_and_resident_runs_are_stored_with_the_same_curve(runs: dict) -> None:
    loader, resident = ok_json(runs["loader"]), ok_json(runs["resident"])
    assert loader["config"]["data_path"] == "loader" and loader["config"]["workers"] == 2
    assert resident["config"]["batch"] == loader["config"]["batch"] == 32
    assert loader["timings"]["steps_per_epoch"] == 4
    assert 0 < loader["timings"]["data_wait_share"] <= 1
    assert resident["timings"]["data_wait_share"] is None
    with RunStore.open(runs["store"]) as store:
        curves = store.curves([loader["id"], resident["id"]])
    loader_curve, resident_curve = curves[loader["id"]][0], curves[resident["id"]][0]
    assert len(loader_curve) == int(EPOCHS)
    assert np.array_equal(loader_curve, resident_curve)


def test_a_csv_with_string_labels_trains_says_its_batches_and_keeps_its_file(runs) -> None:
    proc = runs["csv"]
    assert proc.returncode == 0, describe(proc)
    lines = {line.split()[0]: line for line in proc.stdout.splitlines() if line.startswith("  ")}
    assert "batch 4" in lines["batches"] and "steps per epoch" in lines["batches"]
    assert "loader with 0 workers" in lines["batches"] and "waited for data" in lines["batches"]
    assert "flowers.csv" in lines["data"] and "target species" in lines["data"]
    with RunStore.open(runs["store"]) as store:
        result = next(run.result for run in store.list_runs() if run.result.config.dataset
                      == "csv")
    assert result.status.value == "completed"
    assert result.class_names == ["setosa", "versicolor", "virginica"]
    data_file = result.data_file
    assert data_file["path"].endswith("flowers.csv") and len(data_file["sha256"]) == 64
    assert (data_file["rows"], data_file["columns"], data_file["target"]) == (18, 4, "species")
    assert result.config.target == "species"


@pytest.mark.parametrize(("job", "words"), [
    ("bad_batch", "batch '0x' is not allowed"),
    ("resident_workers", "apply only to --data-path loader"),
    ("missing_file", "absent.csv"),
    ("broken_file", "empty"),
    ("bad_target", "colour"),
    ("native_batch", "full batch only"),
])
def test_bad_settings_and_files_are_one_line(runs: dict, job: str, words: str) -> None:
    assert words in one_line_error(runs[job])
