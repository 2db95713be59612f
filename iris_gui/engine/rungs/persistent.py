"""``persistent``: the whole training loop in one Triton program, many epochs per launch.

See kernels/persistent_mlp.py for the kernel. On CUDA it needs Triton (CUDA builds of torch on
Linux ship it); on the CPU it runs only under Triton's interpreter (``TRITON_INTERPRET=1``,
which the kernel tests use: correct, and far too slow to time). One program holds the whole
problem, so the shapes are bounded (``LIMITS``), and it implements SGD (with momentum) for one
hidden layer; anything else is refused in one line before the run starts, never trained
wrong. ``build`` compiles the kernel with a one-epoch launch on scratch copies (timed as
``compile_seconds``); the run's own weights are untouched until the loop.
"""

from __future__ import annotations

import os

import torch

from iris_gui.engine.errors import ConfigError
from iris_gui.engine.recording import DeviceRecorder
from iris_gui.engine.rungs.base import Prepared, Rung, Stepper
from iris_gui.engine.rungs.manual import linear_layers

# What one program can hold: every dimension padded to a power of two of at least 16.
LIMITS = {"rows": 1024, "features": 64, "hidden units": 64, "classes": 32}
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
            return ("the persistent engine needs Triton, which is not installed (CUDA builds of "
                    "torch on Linux include it; else pip install triton)")
        return None

    def build(self, prepared: Prepared) -> Stepper:
        from iris_gui.engine.kernels.persistent_mlp import block, train_epochs

        p = prepared
        first_layer, second_layer = self._check(p)
        rows, features = p.x.shape
        hidden, classes = first_layer.out_features, second_layer.out_features
        originals = [first_layer.weight, first_layer.bias, second_layer.weight,
                     second_layer.bias]
        working = [t.detach().clone().contiguous() for t in originals]
        velocity = [torch.zeros_like(t) for t in working]
        keep = p.config.recording.mode == "device"
        recorder = DeviceRecorder(p.config.epochs, p.device) if keep else p.recorder
        losses = recorder.buffer if keep else torch.zeros(1, device=p.device)
        x, y = p.x.contiguous(), p.y.contiguous()
        sizes = {"BR": block(rows), "BF": block(features), "BH": block(hidden),
                 "BC": block(classes)}
        use_momentum = p.config.momentum != 0

        def launch(weights: list[torch.Tensor], buffers: list[torch.Tensor], loss_out,
                   first: int, count: int, keep_loss: bool) -> None:
            train_epochs[(1,)](x, y, *weights, *buffers, loss_out, rows, features, hidden,
                               classes, first, count, p.config.lr, p.config.momentum,
                               USE_MOMENTUM=use_momentum, KEEP_LOSS=keep_loss, **sizes)

        # Compile (the first launch JIT-compiles) on scratch copies: the run's weights wait.
        scratch = [t.clone() for t in working]
        launch(scratch, [torch.zeros_like(t) for t in working], torch.zeros(1, device=p.device),
               0, 1, keep)

        def run(first: int, count: int) -> None:
            launch(working, velocity, losses, first, count, keep)
            if keep:
                recorder.written(first + count)

        def finish() -> None:
            with torch.no_grad():
                for target, trained in zip(originals, working):
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
