"""The persistent kernel compiled ahead of time for an A100 (sm_80) and an H100/H200 (sm_90),
no GPU needed: every padded shape the rung's LIMITS allow must fit the target's shared memory
per block and keep its weights in registers (a local-memory stack within STACK_BOUND).

Rows are not part of the compiled variant (the kernel walks them in tiles at run time: see
test_single_variant.py), so the padded features x hidden x classes are the whole space: 16, 32,
64 x 16, 32, 64 x 16, 32. Iris (120 x 4 x 10 x 3) pads to 16 x 16 x 16, the smallest corner.

Every variant the kernel tests launch on a device (tests/support/kernel_runs.py) is compiled here
too, with its own momentum and recording flags.

Triton's compiler does not work under its interpreter, so ``make test-kernels`` runs this file
in a second pytest without TRITON_INTERPRET. A compile is about a second (Triton caches it)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.kernels
ARCHS = (80, 90)
PADDED = list(itertools.product((16, 32, 64), (16, 32, 64), (16, 32)))
REGISTERS_PER_BLOCK = 65_536  # sm_80 and sm_90 alike


@pytest.fixture(scope="module")
def aot():
    if os.environ.get("TRITON_INTERPRET") == "1":
        pytest.skip("Triton cannot compile under its interpreter (TRITON_INTERPRET=1); "
                    "make test-kernels runs this file in a pytest of its own")
    pytest.importorskip("triton", reason="Triton is not installed (make test-kernels installs it)")
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend

    from iris_gui.engine.kernels import persistent_aot

    try:
        make_backend(GPUTarget("cuda", 80, 32))
        ptxas = Path(triton.knobs.nvidia.ptxas.path)
    except RuntimeError as error:  # a Triton built without its NVIDIA backend or tools
        pytest.skip(f"Triton cannot compile for NVIDIA GPUs here: {error}")
    if not ptxas.with_name("cuobjdump").exists():
        pytest.skip(f"no cuobjdump beside {ptxas} to read the compiled kernel's resources")
    return persistent_aot


def _check(aot, arch: int, bf: int, bh: int, bc: int, **flags) -> None:
    from iris_gui.engine.kernels import persistent_mlp

    use = aot.usage(aot.compile_for(arch, bf, bh, bc, **flags), arch)
    shape = f"sm_{arch} {bf}x{bh}x{bc} {flags or ''}"
    assert use.shared <= aot.SHARED_OPTIN[arch], f"{shape}: {use}"
    assert use.stack <= aot.STACK_BOUND, f"{shape}: spills, {use}"
    assert use.registers * persistent_mlp.NUM_WARPS * 32 <= REGISTERS_PER_BLOCK, f"{shape}: {use}"


@pytest.mark.parametrize("arch", ARCHS, ids=lambda arch: f"sm{arch}")
@pytest.mark.parametrize("bf, bh, bc", PADDED, ids=["x".join(map(str, s)) for s in PADDED])
def test_every_padded_shape_fits_with_momentum_and_the_loss(aot, arch, bf, bh, bc):
    _check(aot, arch, bf, bh, bc)


@pytest.mark.parametrize("arch", ARCHS, ids=lambda arch: f"sm{arch}")
@pytest.mark.parametrize("use_momentum, keep_loss", [(False, False), (False, True),
                                                     (True, False)])
def test_the_largest_shape_fits_with_every_choice(aot, arch, use_momentum, keep_loss):
    _check(aot, arch, 64, 64, 32, use_momentum=use_momentum, keep_loss=keep_loss)


def _launched() -> list[tuple[int, int, int, bool, bool]]:
    from support.kernel_runs import device_variants

    return device_variants()


@pytest.mark.parametrize("arch", ARCHS, ids=lambda arch: f"sm{arch}")
def test_every_variant_the_kernel_tests_launch_on_a_device_fits(aot, arch):
    # support/kernel_runs.py lists the runs of test_persistent_kernel.py; on a device they launch the
    # rung's own tile (persistent_mlp.BLOCK_ROWS), which compile_for builds.
    variants = _launched()
    assert (16, 16, 16, False, False) in variants and (64, 64, 32, False, True) in variants
    for bf, bh, bc, use_momentum, keep_loss in variants:
        _check(aot, arch, bf, bh, bc, use_momentum=use_momentum, keep_loss=keep_loss)


def test_the_limits_pad_to_the_shapes_checked_here():
    pytest.importorskip("triton", reason="Triton is not installed (make test-kernels installs it)")
    from iris_gui.engine.kernels.persistent_mlp import block
    from iris_gui.engine.rungs.persistent import LIMITS

    assert (block(LIMITS["features"]), block(LIMITS["hidden units"]),
            block(LIMITS["classes"])) == max(PADDED)
    assert (block(4), block(10), block(3)) == (16, 16, 16)  # Iris
