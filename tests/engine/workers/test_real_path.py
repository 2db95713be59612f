"""The window's own path, for real: one warm worker process (ProcessRunner, as the window
holds it) trains every loss-recording choice on every engine this CPU runs, with the full
batch, mini-batches and the loader, on the MLP, a CNN, a transformer and a model file; every
chunk it streams passes the runner's check (messages.py) as it arrives and is held to the
chunk's rules (records/chunk.py), from the real producer. A run after a refused message, or
after any other, starts clean.

The window's tests mostly stand the worker in with the in-process runner, for speed; this file
is what checks what that stand-in forgave."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from iris_gui.engine.records.chunk import Chunk, chunk_fault
from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.engines import ENGINE_INFO
from iris_gui.engine.workers.runner import ProcessRunner

pytestmark = pytest.mark.slow

RECORDINGS = ("every-epoch", "every:7", "device", "none")
DATA_PATHS = {"full batch": {}, "mini-batches": {"batch": 32},
              "loader": {"batch": 32, "data_path": "loader"}}
# Each model on data it takes, small enough that a run of EPOCHS lasts a few chunks.
MODELS = {"mlp": {},
          "cnn": {"model": "cnn", "dataset": "images", "synthetic_rows": 120, "image_size": 6,
                  "width": 4, "depth": 1},
          "transformer": {"model": "transformer", "dataset": "sequences",
                          "synthetic_rows": 120, "seq_len": 4, "synthetic_features": 4,
                          "width": 8, "depth": 1},
          "file": {}}
EPOCHS = {"full batch": 120, "mini-batches": 30, "loader": 12}
MODEL_FILE = """from torch import nn


def Net(input_shape, classes):
    return nn.Sequential(nn.Flatten(), nn.Linear(input_shape[0], 8), nn.Tanh(),
                         nn.Linear(8, classes))
"""


@pytest.fixture(scope="module")
def model_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("model") / "net.py"
    path.write_text(MODEL_FILE)
    return f"{path}:Net"


def cases(engines: list[str]) -> list[tuple[str, str, str, str]]:
    """Every (engine, recording, data path, model) that the engine's rules allow; the
    compiled rung on the MLP alone. Its chunks come from the same loop and recorders whatever
    it compiles, and inductor's compile of each further model costs 3 to 20 s here:
    tests/engine/rungs/test_compiled_any_model.py compiles those."""
    chosen = []
    for engine, record, path, model in itertools.product(engines, RECORDINGS, DATA_PATHS,
                                                         MODELS):
        info = ENGINE_INFO[engine]
        mode = record.partition(":")[0]
        if (mode not in info.recordings or (path != "full batch" and not info.minibatch)
                or (path == "loader" and "loader" not in info.data_paths)
                or (model != "mlp" and (not info.any_model or engine == "compiled"))):
            continue
        chosen.append((engine, record, path, model))
    return chosen


def cpu_engines(runner: ProcessRunner) -> list[str]:
    """The engines this machine's CPU runs, as the worker itself reports them."""
    cpu = next(d for d in runner.devices if d.id == "cpu")
    return [name for name, reason in cpu.engines.items() if reason is None]


def config_of(engine: str, record: str, path: str, model: str, model_file: str) -> RunConfig:
    shape = {**MODELS[model], "model": model_file} if model == "file" else MODELS[model]
    return RunConfig(engine=engine, record=record, epochs=EPOCHS[path],
                     **DATA_PATHS[path], **shape)


def assert_chunks_make_the_curve(chunks: list[Chunk], config: RunConfig, result) -> None:
    """The rules every chunk keeps (chunk_fault), and the chunks, joined, are the curve."""
    stride = config.recording.stride
    kept = 0
    for chunk in chunks:
        assert chunk_fault(chunk, config.epochs, stride) is None
        assert chunk.first_epoch == (kept * stride if config.record != "none" else 0)
        kept += len(chunk.losses)
    assert chunks[-1].epochs_done == config.epochs == result.epochs_completed
    assert result.loss_stride == stride
    joined = np.concatenate([c.losses for c in chunks])
    assert np.array_equal(joined, result.losses)
    assert len(joined) == (0 if config.record == "none" else -(-config.epochs // stride))


def test_every_recording_engine_data_path_and_model_trains_through_the_worker(
        runner, model_file):
    engines = cpu_engines(runner)
    assert {"eager", "lean", "manual", "compiled", "native"} <= set(engines), engines
    chosen = cases(engines)
    seen = set()
    for engine, record, path, model in chosen:
        config = config_of(engine, record, path, model, model_file)
        chunks: list[Chunk] = []
        result = runner.run(config, chunks.append)
        where = f"{engine}, {record}, {path}, {model}"
        assert result.status is RunStatus.COMPLETED, f"{where}: {result.message}"
        assert_chunks_make_the_curve(chunks, config, result)
        seen.add((engine, record.partition(":")[0], path, model))
    # Every choice the window offers was crossed with every other its engine allows.
    assert {s[1] for s in seen} == {"every-epoch", "every", "device", "none"}
    assert {s[2] for s in seen} == set(DATA_PATHS) and {s[3] for s in seen} == set(MODELS)
    assert len(seen) == len(chosen)
    assert {s[2] for s in seen if s[0] == "compiled"} == set(DATA_PATHS)


def test_the_notes_four_recordings_in_turn_and_again_all_complete(runner):
    """The window's Run on every device, on one worker: a stale message of one run is never
    read as the next run's."""
    pid = runner._process.pid
    for record in ("every-epoch", "every:200", "device", "none", "every-epoch"):
        chunks: list[Chunk] = []
        result = runner.run(RunConfig(epochs=3000, record=record), chunks.append)
        assert result.status is RunStatus.COMPLETED, f"{record}: {result.message}"
        assert_chunks_make_the_curve(chunks, result.config, result)
    assert runner._process.pid == pid, "no run needed a new worker"


def test_a_refused_message_fails_its_run_alone_and_the_next_jobs_start_clean(
        runner, monkeypatch):
    """A worker that sends what no run sends (IRIS_GUI_FAULT garbles a chunk): its run is a
    failed result naming the message, with what came before kept; the worker is replaced, and
    the next run, explain and sweep read only their own messages."""
    from iris_gui.engine.records.sweep_model import SweepSpec

    runner.close()
    monkeypatch.setenv("IRIS_GUI_FAULT", "garble-chunk-at-epoch:300")
    chunks: list[Chunk] = []
    failed = runner.run(RunConfig(epochs=3000, record="every:200"), chunks.append)
    assert failed.status is RunStatus.FAILED
    assert failed.message == ("the worker process sent what this end cannot use: its 'chunk' "
                              "message has chunk.epochs_done 3,001, outside 0..3,000; it was "
                              "ended")
    assert failed.epochs_completed == chunks[-1].epochs_done < 3000 and not runner.alive
    monkeypatch.delenv("IRIS_GUI_FAULT")
    assert runner.run(RunConfig(epochs=3000, record="device")).status is RunStatus.COMPLETED
    assert runner.explain(RunConfig(record="every:200"), 20)["epochs_profiled"] == 20
    spec = SweepSpec(rows=(60, 120), hidden=(4,), devices=("cpu",), engines=("eager",),
                     threads=("1",), min_seconds=0.05)
    assert runner.sweep(spec).status == "completed"


def test_a_model_file_is_checked_in_the_worker_as_its_run_would_build_it(runner, model_file):
    """What the window asks when a file is chosen: built and counted there, never here."""
    import sys

    from iris_gui.engine.spec.errors import ConfigError

    parameters, flops = runner.check_model(RunConfig(model=model_file))
    assert parameters == 4 * 8 + 8 + 8 * 3 + 3 and flops > 0
    path = model_file.rpartition(":")[0]  # imported there, not here (other tests' may be)
    assert not [m for m in list(sys.modules.values()) if getattr(m, "__file__", "") == path]
    bad = model_file.rpartition(":")[0].replace("net.py", "bad.py")
    with open(bad, "w") as file:
        file.write("from torch import nn\n\n\ndef Net(shape, classes):\n"
                   "    return nn.Linear(3, classes)\n")
    with pytest.raises(ConfigError, match=r"the .*bad.py:Net model cannot take a batch of \(4,\)"):
        runner.check_model(RunConfig(model=f"{bad}:Net"))
    assert runner.run(RunConfig(epochs=50)).status is RunStatus.COMPLETED


def test_a_csv_and_a_model_file_read_in_the_worker_pass_the_check_of_what_was_asked(
        runner, model_file, tmp_path, monkeypatch):
    """The records of the files a real worker read (records/provenance.py), a relative CSV
    path among them, are the ones asked."""
    from sklearn import datasets

    bunch = datasets.load_iris()
    rows = [",".join(f"{v:g}" for v in x) + f",{y}" for x, y in zip(bunch.data, bunch.target,
                                                                     strict=True)]
    (tmp_path / "iris.csv").write_text("a,b,c,d,species\n" + "\n".join(rows) + "\n")
    monkeypatch.chdir(tmp_path)
    runner.close()  # the next worker starts here, as the caller's own would
    config = RunConfig(dataset="csv", data_file="iris.csv", model=model_file, epochs=50)
    result = runner.run(config)
    assert result.status is RunStatus.COMPLETED, result.message
    assert result.data_file["path"] == str(tmp_path / "iris.csv")
    assert result.model_file["path"] == model_file.rpartition(":")[0]
