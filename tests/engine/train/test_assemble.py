"""A run is assembled in one seam (engine/train/assemble.py): the trainer, a sweep's points and
explain's sessions get their Prepared and their rung's Stepper there, and read one steady state
of their loop the same way."""

from __future__ import annotations

import math
import re
from pathlib import Path

import torch

from iris_gui.engine.explain import explain, sessions
from iris_gui.engine.records.sweep_model import SweepSpec
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.sweep import sweep
from iris_gui.engine.train import assemble, trainer
from iris_gui.engine.train.loop import LoopState

ENGINE = Path(__file__).resolve().parents[3] / "iris_gui" / "engine"
assert ENGINE.is_dir(), ENGINE  # a moved test must not search nothing


def test_only_the_seam_makes_a_prepared_run_or_builds_a_rung():
    making = re.compile(r"\bPrepared\(|\.build\(")
    places = sorted({path.relative_to(ENGINE).as_posix()
                     for path in ENGINE.rglob("*.py")
                     for line in path.read_text().splitlines()
                     if making.search(line) and not line.lstrip().startswith(("def ", "class "))})
    assert places == ["train/assemble.py"]


def test_the_trainer_the_sweep_and_explain_assemble_through_the_seam(monkeypatch):
    built = []
    build_run = assemble.build_run

    def recorded(prepared, fault=None, phase=None):
        built.append(prepared.config.engine)
        return build_run(prepared, fault, phase)

    for module in (trainer, sweep, sessions):
        monkeypatch.setattr(module, "build_run", recorded)
    trainer.train(RunConfig(epochs=20, engine="manual", record="device"))
    spec = SweepSpec(rows=(120,), hidden=(8,), devices=("cpu",), engines=("manual",),
                     threads=("1",), min_seconds=0.0, min_epochs=20)
    sweep.measure_point(spec, "cpu", "manual", 1, 120, 8)
    explain.explain(RunConfig(engine="manual", record="device"), epochs=10, warmup=2,
                    replicates=1)
    assert built[:2] == ["manual", "manual"] and len(built) >= 4  # explain: its variants


def test_only_the_seam_moves_a_runs_data_to_its_device():
    moving = re.compile(r"from_numpy\(.*\)\.to\(")
    places = sorted({path.relative_to(ENGINE).as_posix()
                     for path in ENGINE.rglob("*.py")
                     if moving.search(path.read_text())})
    assert places == ["train/assemble.py"]


def test_the_trainer_the_sweep_and_explain_train_on_data_in_the_storage_dtype(monkeypatch):
    # float64 and the loader path: explain once trained float32 rows cast on the device.
    config = RunConfig(engine="eager", precision="float64", data_path="loader", batch=40)
    seen = []
    build_run = assemble.build_run

    def recorded(prepared, fault=None, phase=None):
        seen.append((prepared.x.dtype, prepared.x_host.dtype,
                     {p.dtype for p in prepared.model.parameters()}))
        return build_run(prepared, fault, phase)

    for module in (trainer, sweep, sessions):
        monkeypatch.setattr(module, "build_run", recorded)
    trainer.train(config.replace(epochs=4))
    explain.explain(config, epochs=10, warmup=2, replicates=1)
    float64 = (torch.float64, torch.float64, {torch.float64})
    assert seen and all(one == float64 for one in seen), seen


def test_a_loops_steady_state_covers_every_epoch_its_clocks_ran():
    # A run that diverged at epoch 3 ran 10 epochs: the mean is over the 9 after the first,
    # as the trainer always said, and now a sweep's point says the same.
    state = LoopState(epochs_done=3, epochs_run=10, first_epoch_seconds=0.001,
                      train_seconds=0.010, chunk_epochs=[10], chunk_seconds=[0.010])
    steady = state.steady()
    assert steady.method == "mean"
    assert math.isclose(steady.epoch_us, 0.009 / 9 * 1e6)
