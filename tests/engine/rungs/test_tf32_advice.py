"""inductor's advice to turn TF32 on, given where the suite's warnings are errors.

On a GPU with TF32 (compute capability 8.0 and up) and TF32 off, inductor warns once per
process when it compiles a float32 CUDA matmul (torch/_inductor/compile_fx.py). Runs keep TF32
off on purpose (eager's float32 numerics) unless they ask for it, so the compiled rung expects
the advice; raised as an error inside the compile, it would fail every CUDA compile of the tests
on such a GPU. Here inductor is made to believe it is on sm_90 (its capability probe patched),
and a stand-in backend gives its real advice from inside the compile, where inductor gives it."""

from __future__ import annotations

from unittest import mock

import pytest
import torch
from torch._inductor import compile_fx

from iris_gui.engine.rungs import availability, compiled_step
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.precision import TF32_ADVICE
from iris_gui.engine.train.trainer import train

pytestmark = pytest.mark.slow


def advise_as_on_sm90() -> None:
    """inductor's own check and warning, on a process that believes it has an sm_90 GPU."""
    compile_fx._warn_tf32_disabled.cache_clear()  # it advises once per process
    with mock.patch.object(torch.cuda, "is_available", return_value=True), \
            mock.patch.object(torch.cuda, "get_device_capability", return_value=(9, 0)):
        compile_fx._warn_tf32_disabled()


@pytest.fixture
def advising(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From now on torch.compile hands its graphs to aot_eager after inductor's advice; the
    list grows by one each time the advice is given."""
    if availability("compiled", torch.device("cpu")) is not None:
        pytest.skip(availability("compiled", torch.device("cpu")))
    given: list[int] = []
    compile_, aot_eager = torch.compile, torch._dynamo.lookup_backend("aot_eager")

    def backend(graph, example_inputs):
        given.append(1)
        advise_as_on_sm90()
        return aot_eager(graph, example_inputs)

    def stand_in(fn, **options):
        options.pop("mode", None)  # a CUDA mode is inductor's alone
        return compile_(fn, **options, backend=backend)

    monkeypatch.setattr(torch, "compile", stand_in)
    compiled_step.reset_compiled()  # an entry an earlier test compiled would be reused
    yield given
    compiled_step.reset_compiled()
    compile_fx._warn_tf32_disabled.cache_clear()


def test_inductor_on_sm90_with_tf32_off_gives_the_advice_the_rung_expects() -> None:
    with pytest.warns(UserWarning, match=TF32_ADVICE):
        advise_as_on_sm90()
    compile_fx._warn_tf32_disabled.cache_clear()


@pytest.mark.parametrize("model", [{}, {"model": "cnn", "dataset": "digits", "width": 4,
                                        "depth": 1, "lr": 0.1}], ids=["mlp", "cnn"])
def test_a_compiled_run_given_the_advice_completes(advising: list[int], model: dict) -> None:
    result = train(RunConfig(engine="compiled", epochs=6, record="device", **model))
    assert result.status.value == "completed", result.message
    assert advising, "the stand-in backend was never asked to compile"
