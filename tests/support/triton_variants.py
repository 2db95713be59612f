"""Which compiled variant of the persistent kernel a launch runs, by Triton's own binder: the
key Triton caches a variant under, and the types and specialised attributes (alignment, the
constant 1) it derives from a launch's arguments. Computed without a GPU, so the kernel tests
check under the interpreter (which compiles nothing) that every launch reuses the one variant
the rung compiled ahead of time (engine/kernels/persistent_aot.py). Imports Triton: import it
only where Triton is installed."""

from __future__ import annotations

from collections.abc import Callable

from triton.backends.compiler import GPUTarget
from triton.compiler import make_backend
from triton.runtime.jit import JITFunction, create_function_from_signature

from iris_gui.engine.kernels.persistent_aot import jit_function


def _binder(jit: JITFunction, arch: int) -> Callable:
    return create_function_from_signature(jit.signature, jit.params,
                                          make_backend(GPUTarget("cuda", arch, 32)))


def variant_keyer(jit: JITFunction | None = None, arch: int = 90
                  ) -> Callable[[tuple, dict], str]:
    """A function of a launch's ``(args, kwargs)`` giving the key under which Triton caches its
    compiled variant: two launches with the same key run the same binary."""
    binder = _binder(jit or jit_function(), arch)

    def key(args: tuple, kwargs: dict) -> str:
        _, specialization, options = binder(*args, **kwargs)
        return str(specialization) + str(options)

    return key


def launch_signature(args: tuple, kwargs: dict) -> tuple[dict[str, str], dict]:
    """The types and the specialised attributes Triton derives from a launch's arguments: what
    ``persistent_aot.compile_for`` must match to build the variant a launch runs."""
    jit = jit_function()
    _, specialization, _ = _binder(jit, 90)(*args, **kwargs)
    # One (kind, attribute) per parameter, constexprs included.
    named = list(zip(jit.arg_names, specialization, strict=True))
    types = {name: kind for name, (kind, _) in named if kind != "constexpr"}
    attributes = {name: attr for name, (kind, attr) in named if kind != "constexpr" and attr}
    return types, attributes
