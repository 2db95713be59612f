"""The note's experiment from the command line: ``iris-gui train`` with every default trains
exactly the engine's default run, the one tests/engine/train/test_trainer.py trains (20,000
epochs) to the note's accuracy. What the command line adds to it is the configuration it asks
the engine for, so that is what is checked here, without training the run a second time.

What only a trainer process shows, a Ctrl+C that stops and keeps the run and the store read
while the trainer runs, is tests/reliability/test_signals.py's: a trainer process is signalled
there already.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import run_cli

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train import trainer


class Asked(Exception):
    """Raised in place of training: the command asked the engine for a run (which the job
    service keeps as a failed row naming it)."""


def test_train_with_every_default_asks_the_engine_for_the_notes_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = []

    def train(config: RunConfig, *args: object, **kwargs: object) -> None:
        asked.append(config)
        raise Asked

    monkeypatch.setattr(trainer, "train", train)
    done = run_cli(["train", "--json", "--no-save"], tmp_path / "data")
    assert done.returncode == 1 and "failed: Asked" in done.stderr, done.stderr
    assert asked == [RunConfig()]
    config = asked[0]
    assert (config.epochs, config.lr, config.hidden) == (20_000, 0.01, (10,))
    assert (config.dataset, config.device, config.engine) == ("iris", "cpu", "eager")
