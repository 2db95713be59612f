"""``persistent``: the whole training loop in one Triton program, many epochs per launch.

See kernels/persistent_mlp.py for the kernel. On CUDA it needs Triton (CUDA builds of torch on
Linux ship it); on the CPU it runs only under Triton's interpreter (``TRITON_INTERPRET=1``,
which the kernel tests use: correct, and far too slow to time). The program implements SGD
(with momentum) for one hidden layer and holds bounded shapes (``LIMITS``); anything else is
refused in one line before the run starts, never trained wrong. ``build`` compiles the one
variant every launch of the run uses, checks it fits the device (shared memory per block) and
loads it with a one-epoch launch on scratch copies, all timed as ``compile_seconds``; the run's
own weights are untouched until the loop.
"""

from __future__ import annotations

import logging
import os
import sys

import torch

from iris_gui.engine.rungs.base import Prepared, Rung, Stepper
from iris_gui.engine.rungs.compiled import TRITON_ON_WINDOWS
from iris_gui.engine.rungs.manual import linear_layers
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.train.recording import device_buffer

log = logging.getLogger(__name__)

# What one program holds. The weights are padded to powers of two of at least 16; at 64 x 64 x 32
# the variant needs 32 KB of shared memory, 255 registers a thread and at most 40 bytes of stack
# on sm_80 and sm_90 (tests/kernels/test_kernel_fits.py compiles every padded shape for both).
# The rows are walked in tiles, so they cost time, not registers: 65,536 rows of 64 float32
# features are 16 MiB, which stays in an A100's or H100's L2 between epochs.
LIMITS = {"rows": 65_536, "features": 64, "hidden units": 64, "classes": 32}
EPOCHS_PER_LAUNCH = 1024  # the loop asks for fewer when a launch would overrun a chunk


def interpreted() -> bool:
    return os.environ.get("TRITON_INTERPRET") == "1"


class PersistentRung(Rung):
    name = "persistent"
    prepares = True  # build compiles the kernel

    def availability(self, device: torch.device) -> str | None:
        if device.type == "cpu" and not interpreted():
            return ("the persistent engine runs on CUDA GPUs (on the CPU only in Triton's "
                    "interpreter, for tests: TRITON_INTERPRET=1)")
        if device.type not in ("cpu", "cuda"):
            return "the persistent engine runs on CUDA GPUs only"
        try:
            import triton  # noqa: F401
        except ImportError:
            if getattr(sys, "frozen", False):
                return ("the persistent engine needs Triton, which the bundle leaves out (about "
                        "640 MB): run iris-gui from a Python install with triton for it")
            if sys.platform == "win32":
                return ("the persistent engine needs Triton, which is not installed (it has no "
                        f"official Windows build; {TRITON_ON_WINDOWS})")
            return ("the persistent engine needs Triton, which is not installed (CUDA builds of "
                    "torch on Linux include it; else pip install triton)")
        return None

    def build(self, prepared: Prepared) -> Stepper:
        from triton.runtime.errors import OutOfResources

        from iris_gui.engine.kernels import persistent_mlp

        p = prepared
        first_layer, second_layer = self._check(p)
        rows, features = p.x.shape
        hidden, classes = first_layer.out_features, second_layer.out_features
        originals = [first_layer.weight, first_layer.bias, second_layer.weight,
                     second_layer.bias]
        working = [t.detach().clone().contiguous() for t in originals]
        velocity = [torch.zeros_like(t) for t in working]
        recorder = p.recorder
        kept = device_buffer(recorder)
        keep = kept is not None
        losses = kept.buffer if kept is not None else torch.zeros(1, device=p.device)
        x, y = p.x.contiguous(), p.y.contiguous()
        block = persistent_mlp.block
        constants = {"USE_MOMENTUM": p.config.momentum != 0, "KEEP_LOSS": keep,
                     "BLOCK_ROWS": persistent_mlp.BLOCK_ROWS, "BF": block(features),
                     "BH": block(hidden), "BC": block(classes),
                     "num_warps": persistent_mlp.NUM_WARPS}
        # Looked up at build, not import: the tests put a recorder of launches in its place.
        kernel = persistent_mlp.train_epochs

        def arguments(weights, buffers, loss_out, first: int, count: int) -> tuple:
            return (x, y, *weights, *buffers, loss_out, rows, features, hidden, classes, first,
                    count, p.config.lr, p.config.momentum)

        if not interpreted():  # the interpreter compiles nothing
            compiled = kernel.warmup(*arguments(working, velocity, losses, 0, 1), grid=(1,),
                                     **constants)
            _require_fit(compiled, p.device, (rows, features, hidden, classes))
        # Load the variant on the device, outside every clock, on scratch copies.
        scratch = [t.clone() for t in working]
        try:
            kernel[(1,)](*arguments(scratch, [torch.zeros_like(t) for t in working],
                                    torch.zeros(1, device=p.device), 0, 1), **constants)
        except OutOfResources as error:  # registers or threads: what the check above cannot see
            message = " ".join(str(error).split())
            raise ConfigError(f"the persistent engine's kernel does not fit this GPU: "
                              f"{message}") from None
        spills = 0 if interpreted() else getattr(compiled, "n_spills", 0)  # known once loaded
        if spills:
            log.warning("the persistent kernel spills %d registers to local memory on %s",
                        spills, torch.cuda.get_device_name(p.device))

        def run(first: int, count: int) -> None:
            kernel[(1,)](*arguments(working, velocity, losses, first, count), **constants)
            if kept is not None:
                kept.written(first + count)

        def finish() -> None:
            with torch.no_grad():
                for target, trained in zip(originals, working, strict=True):
                    target.copy_(trained)

        return Stepper(run, recorder, block=EPOCHS_PER_LAUNCH, finish=finish, adaptive=True)

    @staticmethod
    def _check(p: Prepared) -> tuple[torch.nn.Linear, torch.nn.Linear]:
        """The shapes and choices one program implements, or ConfigError saying what is out."""
        layers = linear_layers(p.model)
        if len(layers) != 2:
            raise ConfigError(f"the persistent engine trains one hidden layer; this model has "
                              f"{len(layers) - 1} (use --hidden with one width)")
        sizes = {"rows": p.x.shape[0], "features": p.x.shape[1],
                 "hidden units": layers[0].out_features, "classes": layers[1].out_features}
        for name, size in sizes.items():
            if size > LIMITS[name]:
                raise ConfigError(f"the persistent engine holds at most {LIMITS[name]:,} "
                                  f"{name} in one program; this run has {size:,}")
        return layers[0], layers[1]


def _require_fit(compiled, device: torch.device, shape: tuple[int, int, int, int]) -> None:
    """ConfigError, in one line, when the compiled variant needs more shared memory per block
    than ``device`` grants; Triton's launch would raise OutOfResources with a traceback."""
    granted = shared_memory_per_block(device)
    needed = compiled.metadata.shared
    if granted is not None and needed > granted:
        raise ConfigError(
            f"the persistent engine's kernel for {'x'.join(map(str, shape))} (rows x features x "
            f"hidden x classes) needs {needed:,} bytes of shared memory per block; "
            f"{torch.cuda.get_device_name(device)} grants {granted:,}")


def shared_memory_per_block(device: torch.device) -> int | None:
    """The shared memory a block may opt into on ``device`` (what Triton launches with), or
    None when neither torch nor Triton's driver says."""
    properties = torch.cuda.get_device_properties(device)
    granted = getattr(properties, "shared_memory_per_block_optin", None)
    if granted is not None:
        return int(granted)
    try:
        from triton.runtime import driver

        return int(driver.active.utils.get_device_properties(device.index or 0)["max_shared_mem"])
    except Exception:  # an older driver API: the launch itself is then the check
        log.debug("no opt-in shared memory size for %s", device, exc_info=True)
        return None
