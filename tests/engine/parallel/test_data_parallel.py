"""Data-parallel training on two CPU processes (gloo, DDP) through the project's trainer: the
curve equals a one-process run's within float tolerance (full-batch SGD, uneven shards and
every recording choice included), it streams as chunks, the record keeps the world, backend,
devices and each rank's timings; a stop ends every rank together; a failing or dying rank ends
the run as failed with the rank named; a world this machine or this run cannot take is one
line; no rank process is left behind. No test asserts which world is faster."""

from __future__ import annotations

import math
import multiprocessing
import re

import numpy as np
import pytest

from iris_gui.engine.parallel.launch import train_world
from iris_gui.engine.parallel.rank import shard
from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.spec.world import check_world
from iris_gui.engine.train.faults import FAULT_ENV, FAULT_EXIT_CODE
from iris_gui.engine.train.trainer import train

pytestmark = pytest.mark.slow


def same_curve(a: np.ndarray, b: np.ndarray) -> float:
    assert len(a) == len(b) > 0
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-12)))


def test_shards_are_contiguous_and_the_first_ranks_take_the_extra_rows():
    assert [shard(120, 2, r) for r in range(2)] == [(0, 60), (60, 120)]
    assert [shard(121, 3, r) for r in range(3)] == [(0, 41), (41, 81), (81, 121)]


def test_two_ranks_train_the_notes_run_to_the_one_process_curve_and_keep_every_ranks_timings():
    config = RunConfig(epochs=300)
    alone = train(config)
    chunks = []
    together = train_world(config.replace(world=2), chunks.append)
    assert together.status is RunStatus.COMPLETED, together.message
    assert same_curve(together.losses, alone.losses) < 1e-4
    assert np.array_equal(np.concatenate([c.losses for c in chunks]), together.losses)
    assert together.epochs_completed == 300 and chunks[-1].epochs_done == 300
    assert math.isclose(together.final_loss, alone.final_loss, rel_tol=1e-4)
    assert together.test_accuracy == alone.test_accuracy
    record = together.parallel
    assert (record.world, record.backend, record.devices) == (2, "gloo", ["cpu", "cpu"])
    assert [r.rows for r in record.ranks] == [60, 60] and [r.rank for r in record.ranks] == [0, 1]
    for rank in record.ranks:
        assert rank.buckets >= 1 and rank.bucket_bytes == 83 * 4  # the MLP's 83 floats
        assert 0 < rank.allreduce_us and 0 < rank.epoch_us and 0 < rank.train_seconds
        assert 0 < rank.allreduce_share <= 1 and rank.wait_us >= 0 and rank.cpu_seconds > 0
    assert min(r.wait_us for r in record.ranks) == 0
    assert together.timings.epoch_us_method == "chunk-median"
    again = RunResult.from_dict(together.to_dict())
    assert again.parallel.to_dict() == record.to_dict()
    assert together.to_dict()["parallel"]["allreduce_share"] == record.allreduce_share
    assert multiprocessing.active_children() == []


def test_a_one_process_record_has_no_parallel_part():
    assert RunResult.from_dict(train(RunConfig(epochs=5)).to_dict()).parallel is None


@pytest.mark.parametrize("record", ["device", "every:7"])
def test_every_recording_choice_and_uneven_shards_give_the_one_process_curve(record):
    config = RunConfig(epochs=60, record=record, test_size=0.3)  # 105 training rows
    alone, together = train(config), train_world(config.replace(world=2))
    assert together.status is RunStatus.COMPLETED, together.message
    assert [r.rows for r in together.parallel.ranks] == [53, 52]
    assert len(together.losses) == len(alone.losses) == {"device": 60, "every:7": 9}[record]
    assert same_curve(together.losses, alone.losses) < 1e-4
    assert math.isclose(together.final_loss, alone.final_loss, rel_tol=1e-4)


def test_mini_batches_split_each_global_batch_and_give_the_one_process_curve():
    config = RunConfig(epochs=30, batch=16, test_size=0.3)  # 105 rows: the last batch 9
    alone, together = train(config), train_world(config.replace(world=2))
    assert together.status is RunStatus.COMPLETED, together.message
    assert together.timings.steps_per_epoch == alone.timings.steps_per_epoch == 7
    assert [r.rows for r in together.parallel.ranks] == [53, 52]  # 6 x 8 + 5, 6 x 8 + 4
    assert same_curve(together.losses, alone.losses) < 1e-4
    assert math.isclose(together.final_loss, alone.final_loss, rel_tol=1e-4)
    with pytest.raises(ConfigError, match=r"^a batch of 1 rows is fewer than the 2 processes"):
        train_world(config.replace(batch=13, world=2))  # 105 = 8 x 13 + 1
    assert multiprocessing.active_children() == []


def test_a_stop_ends_every_rank_at_the_same_boundary():
    heard = []
    ended = train_world(RunConfig(epochs=2_000_000, world=2), heard.append,
                        stop=lambda: len(heard) >= 3)
    assert ended.status is RunStatus.STOPPED
    assert ended.epochs_completed == heard[-1].epochs_done < 2_000_000
    assert [r.rank for r in ended.parallel.ranks] == [0, 1]  # both ranks reported
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize(("fault", "words"), [
    ("raise-at-epoch:40", r"^rank [01]: InjectedFault"),
    ("exit-at-epoch:40", rf"^rank [01]: died \(exit code {FAULT_EXIT_CODE}\)$"),
])
def test_a_rank_that_fails_or_dies_ends_the_run_as_failed_with_the_rank_named(
        monkeypatch, fault, words):
    monkeypatch.setenv(FAULT_ENV, fault)
    ended = train_world(RunConfig(epochs=400, world=2))
    assert ended.status is RunStatus.FAILED
    assert "\n" not in ended.message and re.match(words, ended.message), ended.message
    assert multiprocessing.active_children() == []


def test_a_file_a_rank_cannot_read_is_refused_as_for_one_process(tmp_path):
    config = RunConfig(dataset="csv", data_file=str(tmp_path / "gone.csv"), epochs=5)
    with pytest.raises(ConfigError, match="gone.csv does not exist") as alone:
        train(config)
    with pytest.raises(ConfigError) as together:
        train_world(config.replace(world=2))
    assert str(together.value) == str(alone.value)
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize(("config", "words"), [
    (RunConfig(world=3), ("3 processes of 1 thread need 3 cores; this machine has 2: choose "
                         "--world 2 or fewer$")),
    (RunConfig(world=2, threads=2), ("2 processes of 2 threads need 4 cores; this machine has 2: "
                                    "choose --world 1 or fewer --threads$")),
    (RunConfig(world=2, device="cuda:0"), "2 processes on cuda:0: data-parallel runs train on"),
    (RunConfig(world=2, device="lab:cuda:1"), "2 processes on lab:cuda:1: data-parallel runs"),
])
def test_a_world_this_machine_cannot_take_is_one_line(config, words):
    with pytest.raises(ConfigError, match="^" + words.replace("(", r"\(").replace(")", r"\)")):
        check_world(config, cores=2)


def test_a_hosts_cpu_is_checked_by_the_host_and_one_process_is_always_allowed():
    check_world(RunConfig(world=2, device="lab:cpu"), cores=None)
    check_world(RunConfig(threads=8), cores=2)


@pytest.mark.parametrize("changes", [{"batch": 1}, {"engine": "graph", "record": "device"}, {"world": 0},
                                     {"world": 65}, {"data_path": "loader"},
                                     {"precision": "bfloat16"}])
def test_settings_a_data_parallel_run_cannot_take_are_refused_in_one_line(changes):
    with pytest.raises(ConfigError) as refused:
        RunConfig(**{"world": 2, **changes})
    said = str(refused.value)
    assert "\n" not in said and "world" in said
