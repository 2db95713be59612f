"""Every launch of a run reuses the one variant ``build`` compiled: none compiles inside the
timed loop. Triton caches a compiled variant under a key computed from the launch's arguments
(an int equal to 1 becomes a constant, divisibility by 16 and pointer alignment are keyed), so
two launches share a binary exactly when their keys are equal; the keys here come from
Triton's own binder (tests/support/triton_variants.py), so the check runs under the interpreter,
which compiles nothing, as well as on a GPU."""

from __future__ import annotations

import os

import pytest
import torch

from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.trainer import train

pytestmark = pytest.mark.kernels


@pytest.fixture
def persistent_aot():
    pytest.importorskip("triton", reason="Triton is not installed (make test-kernels installs it)")
    from iris_gui.engine.kernels import persistent_aot

    return persistent_aot


@pytest.fixture
def variants():
    pytest.importorskip("triton", reason="Triton is not installed (make test-kernels installs it)")
    from support import triton_variants

    return triton_variants


def _launch(rows: int, first: int, count: int, lr: float = 0.1) -> tuple[tuple, dict]:
    """A launch's arguments as the rung passes them (Iris's widths, any rows)."""
    tensors = [torch.zeros(n) for n in (rows * 4, rows, 40, 10, 30, 3, 40, 10, 30, 3, 300)]
    tensors[1] = torch.zeros(rows, dtype=torch.int64)
    constants = {"USE_MOMENTUM": True, "KEEP_LOSS": True, "BLOCK_ROWS": 32, "BF": 16, "BH": 16,
                 "BC": 16, "num_warps": 8}
    return (*tensors, rows, 4, 10, 3, first, count, lr, 0.9), constants


CALLS = [(rows, first, count) for rows in (1, 16, 120, 65_536) for first in (0, 1, 16, 17)
         for count in (1, 2, 16, 1024)]


def test_the_values_the_loop_passes_do_not_make_variants(variants):
    key = variants.variant_keyer()
    keys = {key(*_launch(*call)) for call in CALLS}
    keys |= {key(*_launch(120, 0, 1, lr)) for lr in (1.0, 0.5, 1e-3)}
    assert len(keys) == 1, keys


def test_every_launch_is_the_variant_compiled_ahead_of_time(persistent_aot, variants):
    # test_kernel_fits.py compiles this signature with no specialised attribute; one row, the
    # case whose constant 1 did not compile, launches exactly that.
    for call in [(1, 1, 1), (120, 16, 1024), (65_536, 0, 17)]:
        types, attributes = variants.launch_signature(*_launch(*call))
        assert attributes == {}, call
        expected = persistent_aot.signature(persistent_aot.jit_function())
        assert types == {k: v for k, v in expected.items() if v != "constexpr"}, call


def test_the_check_sees_the_variants_of_a_specialising_kernel(persistent_aot, variants):
    # The same function jitted as Triton does by default: the check must tell them apart.
    from triton.runtime.jit import JITFunction

    plain = JITFunction(persistent_aot.jit_function().fn)
    key = variants.variant_keyer(plain)
    assert len({key(*_launch(*call)) for call in CALLS}) > 3


class _LaunchRecorder:
    """Stands in for the kernel: records each launch's variant key (and warmup's), runs it."""

    def __init__(self, kernel, key):
        self.kernel, self.key = kernel, key
        self.launches: list[tuple[str, int, int]] = []

    def _note(self, args, kwargs):
        first, count = args[-4], args[-3]
        self.launches.append((self.key(args, kwargs), first, count))

    def warmup(self, *args, grid, **kwargs):
        self._note(args, kwargs)
        return self.kernel.warmup(*args, grid=grid, **kwargs)

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self._note(args, kwargs)
            return self.kernel[grid](*args, **kwargs)

        return launch


def test_a_run_launches_only_the_variant_its_build_compiled(device, variants, monkeypatch):
    from iris_gui.engine.kernels import persistent_mlp

    recorder = _LaunchRecorder(persistent_mlp.train_epochs, variants.variant_keyer())
    monkeypatch.setattr(persistent_mlp, "train_epochs", recorder)
    caches = getattr(recorder.kernel, "device_caches", None)
    before = _compiled_count(caches)
    result = train(RunConfig(epochs=40, record="device", device=device, engine="persistent",
                             momentum=0.9))
    assert result.status is RunStatus.COMPLETED, result.message
    keys = [key for key, _, _ in recorder.launches]
    assert len(set(keys)) == 1, recorder.launches
    # Among them the values that used to make variants: the loop's first call is (0, 1), its
    # second starts at 1 (the interpreter's slow epochs then make every call one epoch).
    firsts = {first for _, first, _ in recorder.launches}
    assert {0, 1} <= firsts, sorted(firsts)
    if os.environ.get("TRITON_INTERPRET") != "1":  # on a GPU: Triton's own cache agrees
        assert _compiled_count(caches) - before <= 1


def _compiled_count(caches) -> int:
    if caches is None:
        return 0
    return sum(len(entry[0]) for entry in caches.values())
