"""The persistent rung (one Triton program, many epochs per launch) against eager's curve:
several shapes, padding edge cases, momentum, no recording, and the limits it refuses.

Under the interpreter an epoch costs about 20 ms per 32-row tile, so the epochs are few and the
shapes at most a few hundred rows; there the rows limit itself is trained in tiles of 4,096 (the
tile's size is a compile-time constant, not the maths). On a device every case launches the
rung's own tile: the compiled variants' resources are tests/kernels/test_kernel_fits.py's
subject, and the cases are data in support/kernel_runs.py, which both read."""

from __future__ import annotations

import pytest
from support.kernel_runs import CASES, INTERPRETER_BLOCK_ROWS, ROWS_LIMIT

from iris_gui.engine.records.ladder import curve_deviation
from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.spec.config import ConfigError, RunConfig
from iris_gui.engine.train.trainer import train

pytestmark = [pytest.mark.kernels, pytest.mark.cuda]
EPOCHS = 60


def _pair(device: str, **changes) -> tuple:
    config = RunConfig(epochs=EPOCHS, record="device", device=device, **changes)
    return train(config), train(config.replace(engine="persistent"))


@pytest.mark.parametrize("changes", list(CASES.values()), ids=list(CASES))
def test_the_kernel_trains_the_same_model_as_eager(device, changes):
    eager, kernel = _pair(device, **changes)
    assert kernel.status is RunStatus.COMPLETED, kernel.message
    assert len(kernel.losses) == EPOCHS
    # Measured in the interpreter: at most 3e-7 (float32 sums in another order).
    assert curve_deviation(kernel.losses, 1, eager.losses, 1) < 1e-5
    assert kernel.confusion_matrix == eager.confusion_matrix
    assert kernel.timings.compile_seconds > 0


def test_the_rows_limit_trains_the_same_model_as_eager(device, monkeypatch):
    from iris_gui.engine.kernels import persistent_mlp
    from iris_gui.engine.rungs.persistent import interpreted

    if interpreted():  # larger tiles only where nothing is compiled (support/kernel_runs.py says why)
        monkeypatch.setattr(persistent_mlp, "BLOCK_ROWS", INTERPRETER_BLOCK_ROWS)
    config = RunConfig(epochs=4, record="device", device=device, **ROWS_LIMIT)
    eager, kernel = train(config), train(config.replace(engine="persistent"))
    assert kernel.status is RunStatus.COMPLETED, kernel.message
    assert curve_deviation(kernel.losses, 1, eager.losses, 1) < 1e-5


def test_without_recording_it_trains_the_same_weights(device):
    eager, kernel = _pair(device)
    quiet = train(RunConfig(epochs=EPOCHS, record="none", device=device, engine="persistent"))
    assert len(quiet.losses) == 0
    assert quiet.final_loss == pytest.approx(kernel.final_loss, rel=1e-6)
    assert quiet.final_loss == pytest.approx(eager.final_loss, rel=1e-5)


@pytest.mark.parametrize("changes, fragment", [
    ({"dataset": "synthetic", "synthetic_rows": 81_925, "synthetic_features": 2},
     "at most 65,536 rows in one program; this run has 65,540"),
    ({"hidden": (10, 10)}, "trains one hidden layer; this model has 2"),
    ({"hidden": (128,)}, "at most 64 hidden units"),
])
def test_shapes_one_program_cannot_hold_are_refused_in_one_line(device, changes, fragment):
    with pytest.raises(ConfigError, match=fragment) as error:
        train(RunConfig(epochs=10, record="device", device=device, engine="persistent",
                        **changes))
    assert "\n" not in str(error.value)


def test_choices_it_does_not_implement_are_refused_before_anything_runs():
    with pytest.raises(ConfigError, match="implements sgd only"):
        RunConfig(engine="persistent", record="device", optimizer="adam")
    with pytest.raises(ConfigError, match="cannot record the loss 'every-epoch'"):
        RunConfig(engine="persistent")
