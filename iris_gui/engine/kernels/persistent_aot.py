"""The persistent kernel compiled ahead of time for a GPU this machine need not have: what the
checks ``make test-kernels`` runs on a CPU-only machine compile and measure.

Triton compiles for any ``GPUTarget`` without the device (its ``ptxas`` and ``cuobjdump`` ship in
the wheel), so the shared memory, registers and local-memory stack of each padded shape on an
A100 (sm_80) or H100/H200 (sm_90) are known before any of them runs it. And the key Triton
computes from a launch's arguments (the value 1 made a constant, divisibility by 16, pointer
alignment) is what decides whether a call reuses a compiled variant: the kernel tests compute it
with Triton's own binder (tests/support/triton_variants.py), so that it is checked under the
interpreter, which compiles nothing.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.runtime.jit import JITFunction

from iris_gui.engine.kernels import persistent_mlp

# Shared memory a block may opt into (cudaDevAttrMaxSharedMemoryPerBlockOptin): A100 163 KB,
# H100/H200 227 KB. Triton's launch refuses a kernel whose ``metadata.shared`` exceeds it.
SHARED_OPTIN = {80: 166_912, 90: 232_448}
# Local-memory stack per thread we accept: 128 bytes is 32 registers' worth, room for ptxas to
# park a few addresses and counters (0-40 bytes measured). A spilled weight tile is more: 64 x 64
# float32 over 256 threads is 64 bytes a thread for each of the weights, their momentum and
# their gradient sums, and the untiled kernel spilled 13-29 KB, turning every epoch's
# products into local-memory traffic.
STACK_BOUND = 128

_SCALAR_TYPES = {"rows": "i32", "features": "i32", "hidden": "i32", "classes": "i32",
                 "first": "i32", "epochs": "i32", "lr": "fp32", "momentum": "fp32"}


@dataclass(frozen=True)
class Usage:
    """What one compiled variant needs per block (shared, bytes) and per thread."""

    arch: int
    shared: int
    registers: int
    stack: int


def signature(jit_function: JITFunction) -> dict[str, str]:
    """Triton's types for the kernel's arguments: float32 data and weights, int64 labels (what
    torch's cross-entropy takes), 32-bit scalars, the rest constexpr."""
    types = {}
    for name in jit_function.arg_names:
        if name == "y_ptr":
            types[name] = "*i64"
        elif name.endswith("_ptr"):
            types[name] = "*fp32"
        else:
            types[name] = _SCALAR_TYPES.get(name, "constexpr")
    return types


def compile_for(arch: int, bf: int, bh: int, bc: int, *, use_momentum: bool = True,
                keep_loss: bool = True) -> triton.compiler.CompiledKernel:
    """The variant the rung launches for padded sizes ``bf, bh, bc``, built for ``sm_<arch>``."""
    fn = jit_function()
    constants = {"USE_MOMENTUM": use_momentum, "KEEP_LOSS": keep_loss,
                 "BLOCK_ROWS": persistent_mlp.BLOCK_ROWS, "BF": bf, "BH": bh, "BC": bc}
    source = ASTSource(fn=fn, signature=signature(fn), constexprs=constants)
    return triton.compile(source, target=GPUTarget("cuda", arch, 32),
                          options={"num_warps": persistent_mlp.NUM_WARPS})


def usage(kernel: triton.compiler.CompiledKernel, arch: int) -> Usage:
    """Shared bytes from Triton's metadata; registers and stack from the cubin, as ptxas left
    them (``cuobjdump -res-usage``: what a launch would get, without a device)."""
    tool = Path(triton.knobs.nvidia.ptxas.path).with_name("cuobjdump")
    with tempfile.TemporaryDirectory() as folder:
        cubin = Path(folder) / "kernel.cubin"
        cubin.write_bytes(kernel.asm["cubin"])
        report = subprocess.run([str(tool), "-res-usage", str(cubin)], check=True,
                                capture_output=True, text=True).stdout
    found = re.search(r"REG:(\d+) STACK:(\d+)", report)
    if found is None:
        raise RuntimeError(f"cuobjdump reported no resource usage: {report!r}")
    return Usage(arch, kernel.metadata.shared, int(found[1]), int(found[2]))


def jit_function() -> JITFunction:
    """The kernel as a JITFunction even under the interpreter (which wraps it in an
    InterpretedFunction that neither compiles nor keys): same function, same specialisation."""
    kernel = persistent_mlp.train_epochs
    if isinstance(kernel, JITFunction):
        return kernel
    options = getattr(kernel, "kwargs", {})
    return JITFunction(kernel.fn, do_not_specialize=options.get("do_not_specialize"),
                       do_not_specialize_on_alignment=options.get(
                           "do_not_specialize_on_alignment"))


def main() -> None:
    """Print the resource table for every padded shape on both targets (the README's)."""
    import itertools

    print("target  features x hidden x classes  shared B  registers  stack B")
    for arch, bf, bh, bc in itertools.product(SHARED_OPTIN, (16, 32, 64), (16, 32, 64),
                                              (16, 32)):
        use = usage(compile_for(arch, bf, bh, bc), arch)
        print(f"sm_{arch}   {bf:>3} x {bh:>3} x {bc:>3}"
              f"{use.shared:>22,}{use.registers:>11}{use.stack:>9}")


if __name__ == "__main__":
    main()
