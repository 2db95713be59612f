"""Data-parallel training on two CPU processes (gloo, DDP): the curve rank 0 keeps equals a
one-process run's within float tolerance (full-batch SGD, uneven shards included), every
rank reports its rows, its all-reduce and its buckets; a world this machine or this run
cannot take is one line; no rank process is left behind. No test asserts which is faster."""

from __future__ import annotations

import multiprocessing

import pytest

from iris_gui.engine.parallel.data_parallel import (
    check_world,
    same_curve,
    shard,
    train_data_parallel,
)
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.train.trainer import train

pytestmark = pytest.mark.slow


def test_shards_are_contiguous_and_the_first_ranks_take_the_extra_rows():
    assert [shard(120, 2, r) for r in range(2)] == [(0, 60), (60, 120)]
    assert [shard(121, 3, r) for r in range(3)] == [(0, 41), (41, 81), (81, 121)]


def test_two_ranks_train_the_notes_run_to_the_one_process_curve():
    config = RunConfig(epochs=200)
    alone = train(config)
    together = train_data_parallel(config, 2)
    assert together.status == "completed", together.message
    assert same_curve(together.losses, alone.losses) < 1e-4
    assert [r.rows for r in together.ranks] == [60, 60]
    for report in together.ranks:
        assert len(report.epoch_seconds) == len(report.allreduce_seconds) == 200
        assert report.buckets >= 1 and report.bucket_bytes == 83 * 4  # the MLP's 83 floats
        assert 0 <= report.allreduce_us <= report.epoch_us
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize(("config", "world", "words"), [
    (RunConfig(), 9, "--world 9 is not allowed here: give 1 to 2, this machine's cores"),
    (RunConfig(device="cuda:0"), 2, "--world 2 on cuda:0: data-parallel runs train on the CPU"),
    (RunConfig(batch=16), 2, "--world 2: data-parallel runs take the eager engine and the full"),
])
def test_a_world_that_cannot_run_is_one_line(config, world, words):
    with pytest.raises(ConfigError, match="^" + words.replace("(", r"\(")):
        check_world(config, world, cores=2)


def test_a_rank_that_fails_ends_the_run_as_failed_with_the_rank_named(tmp_path):
    missing = RunConfig(dataset="csv", data_file=str(tmp_path / "gone.csv"), epochs=5)
    ended = train_data_parallel(missing, 2)
    assert ended.status == "failed" and ended.message.startswith("rank 0: ")
    assert "gone.csv" in ended.message and "\n" not in ended.message
    assert multiprocessing.active_children() == []
