"""The compiled rung for a model other than the MLP (rungs/compiled_module.py): the module's own
forward and backward compiled in build, never in the timed loop, its curve eager's, and a model
dynamo cannot trace whole refused in one line.

Dynamo hands its graphs to ``aot_eager`` here (support.compile_counts.stand_in_backend): its
tracing, guards and recompiles are real; inductor's C++ code generation is left to the one test
that compiles with it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.compile_counts import count_compiles, stand_in_backend

from iris_gui.engine.rungs import availability
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.train.trainer import train

pytestmark = pytest.mark.slow
CNN = {"model": "cnn", "dataset": "digits", "width": 4, "depth": 1, "lr": 0.1,
       "record": "device"}


@pytest.fixture
def compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    reason = availability("compiled", torch.device("cpu"))
    if reason is not None:
        pytest.skip(reason)


@pytest.mark.parametrize("batch", [0, 500])
def test_a_cnn_compiles_in_build_only_and_trains_eagers_curve(
        compiler: None, monkeypatch: pytest.MonkeyPatch, batch: int) -> None:
    stand_in_backend(monkeypatch)
    counts = count_compiles(monkeypatch)
    config = RunConfig(engine="compiled", epochs=6, batch=batch, **CNN)
    compiled = train(config)
    assert compiled.status.value == "completed", compiled.message
    assert counts["build"] >= 1 and counts["loop"] == 0, counts
    eager = train(config.replace(engine="eager"))
    assert np.allclose(compiled.losses, eager.losses, rtol=1e-4, atol=1e-6)


def test_a_model_dynamo_cannot_trace_whole_is_one_line(
        compiler: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    stand_in_backend(monkeypatch)
    path = tmp_path / "breaks.py"
    path.write_text("import torch\nfrom torch import nn\n\n"
                    "class Net(nn.Module):\n"
                    "    def __init__(self, shape, classes):\n"
                    "        super().__init__()\n"
                    "        self.layer = nn.Linear(shape[0], classes)\n\n"
                    "    def forward(self, x):\n"
                    "        torch._dynamo.graph_break()\n"
                    "        return self.layer(x)\n")
    with pytest.raises(ConfigError) as caught:
        train(RunConfig(model=f"{path}:Net", engine="compiled", record="device", epochs=3))
    line = str(caught.value)
    assert line.startswith("torch.compile cannot trace the ") and "\n" not in line, line
    assert line.endswith("train it with the eager or lean engine")


def test_inductor_compiles_a_cnn_and_it_trains(compiler: None) -> None:
    """The real compiler, once: the C++ it generates for a convolution's forward and backward."""
    result = train(RunConfig(engine="compiled", epochs=4, **{**CNN, "width": 2}))
    assert result.status.value == "completed", result.message
    assert result.timings.compile_seconds > 0 and np.all(np.isfinite(result.losses))
