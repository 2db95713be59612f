"""A run's batches, data path, precision and data file in words (engine/words/batch_words.py), and
the report's run section and "repeat it" command that carry them."""

from __future__ import annotations

import numpy as np

from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.words.batch_words import batch_summary, data_file_summary
from iris_gui.engine.words.command_line import command_for
from iris_gui.report.content import build_report
from iris_gui.store.runs import StoredRun

FILE = {"path": "/data/flowers.csv", "size": 4551, "sha256": "1a2b3c4d5e6f" + "0" * 52,
        "rows": 150, "columns": 4, "target": "species"}


def result(config: RunConfig, **changes) -> RunResult:
    timings = Timings(epoch_us=708.0, steps_per_epoch=4, step_us=177.0, data_wait_share=0.36,
                      data_wait_seconds=0.1)
    return RunResult(config, RunStatus.COMPLETED, losses=np.ones(3, np.float32),
                     timings=timings, **changes)


def test_the_notes_loop_has_no_batches_line():
    assert batch_summary(result(RunConfig())) == ""
    assert data_file_summary(result(RunConfig())) == ""


def test_a_loader_run_says_its_steps_workers_wait_and_precision():
    config = RunConfig(batch=32, data_path="loader", workers=2, pin_memory=True,
                       persistent_workers=True, precision="bfloat16")
    assert batch_summary(result(config)) == (
        "batch 32; 4 steps per epoch, 177.0 us/step; loader with 2 workers (pinned, "
        "persistent); 36% of the loop waited for data; bfloat16")
    # The report writes µs, as every view does; the command line keeps to ASCII.
    assert "177.0 µs/step" in batch_summary(result(config), ascii=False)


def test_resident_data_has_no_wait_and_a_dropped_last_batch_is_said():
    config = RunConfig(batch=32, drop_last=True, precision="float64")
    assert batch_summary(result(config)) == (
        "batch 32 (last partial dropped); 4 steps per epoch, 177.0 us/step; resident data; "
        "float64")


def test_a_csv_run_names_its_file_shape_target_size_and_hash():
    config = RunConfig(dataset="csv", data_file=FILE["path"], target="species")
    assert data_file_summary(result(config, data_file=FILE)) == (
        "/data/flowers.csv (150 rows x 4 features, target species, 4,551 bytes, sha256 "
        "1a2b3c4d5e6f...)")


def test_the_report_section_carries_the_settings_and_the_command_repeats_them():
    config = RunConfig(dataset="csv", data_file=FILE["path"], target="species", batch=16,
                       data_path="loader", workers=2, precision="float16", epochs=50)
    run = StoredRun(7, "2026-12-01T20:00:00", result(
        config, data_file=FILE, data_changed="the data file changed since run 3 read it"))
    section = build_report([run], command_for).sections[0]
    assert section.heading == ("Run 7: csv on cpu, eager, record every-epoch, forward, "
                               "batch 16, loader with 2 workers (persistent), float16")
    rows = dict(section.environment)
    assert rows["batches"].startswith("batch 16; 4 steps per epoch")
    assert rows["data file"].startswith("/data/flowers.csv (150 rows")
    assert rows["data changed"] == "the data file changed since run 3 read it"
    assert section.command == ("iris-gui train --epochs 50 --data /data/flowers.csv --target "
                               "species --batch 16 --data-path loader --workers 2 "
                               "--precision float16")


def test_csv_data_is_not_sent_to_a_host_and_nothing_is_started():
    import pytest

    from iris_gui.engine.remote.hosts import Host
    from iris_gui.engine.remote.runner import RemoteRunner
    from iris_gui.engine.spec.errors import ConfigError

    runner = RemoteRunner(Host("cluster", "me@cluster.example"))
    config = RunConfig(dataset="csv", data_file="/data/flowers.csv", device="cluster:cuda:0")
    with pytest.raises(ConfigError) as error:
        runner.run(config)
    assert "not sent over ssh" in str(error.value) and "cluster" in str(error.value)
    assert runner._process is None  # refused before any connection
