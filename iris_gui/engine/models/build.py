"""A run's model, built from its config: the family it names, shaped for its data, seeded from
its seed, and checked before a step is timed.

The MLP is built exactly as the note's (its weights drawn first from the seed), so the default
run is the note's, bit for bit. Every other model takes the data's rows as the batch of shapes
its family sees (``AsShape``), and is refused in one line when it is too large for the memory
here (from its parameter count, counted on the meta device before anything is allocated), has
no parameters, or does not return ``(batch, classes)`` logits.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from iris_gui.engine.models.cnn import ConvNet
from iris_gui.engine.models.mlp import build_mlp
from iris_gui.engine.models.transformer import SequenceEncoder
from iris_gui.engine.models.user_file import load_user_model
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.spec.models import family, input_shape
from iris_gui.engine.timing.memory import available_memory

# Bytes a parameter takes while training: its weight, its gradient and Adam's two moments.
BYTES_PER_PARAMETER = 4 * 4
MEMORY_SHARE = 0.5  # of the memory available: the data and the activations need the rest


class AsShape(nn.Module):
    """``inner`` fed rows of numbers as the batch of shapes it takes; ``source`` the record of
    the file it was built from (path, size, SHA-256), empty for a family of the product's."""

    def __init__(self, inner: nn.Module, shape: tuple[int, ...],
                 source: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.inner, self.shape, self.source = inner, shape, dict(source or {})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x.reshape(x.shape[0], *self.shape))


def build_model(config: RunConfig, features: int, classes: int) -> nn.Module:
    """The config's model for rows of ``features`` values and ``classes`` classes, on the host."""
    if config.model == "mlp":
        return build_mlp(features, config.hidden, classes, config.seed)
    shape = input_shape(config, features)
    if family(config.model) != "file":
        with torch.device("meta"):
            _check_memory(_made(config, shape, classes)[0], config.model)
    else:
        _check_file_memory(config, shape, classes)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed)
        model = AsShape(*_made(config, shape, classes))
    _check_model(model, features, classes, config.model)
    return model


def _made(config: RunConfig, shape: tuple[int, ...],
          classes: int) -> tuple[nn.Module, tuple[int, ...], dict[str, Any]]:
    if config.model == "cnn":
        return ConvNet(shape, config.width, config.depth, classes), shape, {}
    if config.model == "transformer":
        return SequenceEncoder(shape, config.width, config.depth, config.heads, classes), shape, {}
    built, record = load_user_model(config.model, shape, classes)
    return built, shape, record


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def _check_memory(model: nn.Module, name: str) -> None:
    need = parameter_count(model) * BYTES_PER_PARAMETER
    available = available_memory()
    if available and need > MEMORY_SHARE * available:
        raise ConfigError(f"the {name} model has {parameter_count(model):,} parameters "
                          f"({need / 2**30:.1f} GiB to train) and this machine has "
                          f"{available / 2**30:.1f} GiB available; make it narrower or shallower")


def _check_file_memory(config: RunConfig, shape: tuple[int, ...], classes: int) -> None:
    """A model file's size checked as a family's is, its constructor run once on the meta
    device (no memory taken); one the meta device cannot run is checked by building it."""
    try:
        with torch.device("meta"):
            built = _made(config, shape, classes)[0]
    except ConfigError:
        return  # the real build says why, if it fails there too
    _check_memory(built, config.model)


def _check_model(model: AsShape, features: int, classes: int, name: str) -> None:
    if parameter_count(model) == 0:
        raise ConfigError(f"the {name} model has no parameters to train")
    try:
        with torch.no_grad():
            logits = model(torch.zeros(2, features))
    except Exception as error:  # noqa: BLE001 - a model of the user's: whatever it raises is one line
        raise ConfigError(f"the {name} model cannot take a batch of {model.shape}: "
                          f"{type(error).__name__}: {' '.join(str(error).split())[:200]}") from None
    if not isinstance(logits, torch.Tensor) or tuple(logits.shape) != (2, classes):
        got = tuple(logits.shape) if isinstance(logits, torch.Tensor) else type(logits).__name__
        raise ConfigError(f"the {name} model returns {got} for a batch of 2; it must return "
                          f"(batch, {classes}) logits, one per class")
