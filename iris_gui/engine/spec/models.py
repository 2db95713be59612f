"""The model families a run can train, without torch: their names, the data each takes, the
shape that data has for them, their limits, and the refusals in one line.

- ``mlp``: the note's Linear -> ReLU stack (``hidden``) on any data set, the default.
- ``cnn``: convolution blocks (``depth`` of them, ``width`` channels: conv 3x3 -> ReLU ->
  max-pool 2) and a linear head, on images: ``digits`` (8x8, one channel) or the synthetic
  ``images`` (``image_size`` square, ``channels``, ``synthetic_classes`` classes).
- ``transformer``: ``depth`` encoder layers of ``width`` features and ``heads`` heads, the
  sequence's mean, and a linear head, on the synthetic ``sequences`` (``seq_len`` steps of
  ``synthetic_features`` values each).
- ``FILE.py:NAME``: your own ``nn.Module`` subclass or factory in a Python file; it is called
  with the data's input shape and class count (engine/models/user_file.py), on any data set.

Every data set reaches a model as rows of numbers (the split, the scaling and the batches are
the same for every family); ``input_shape`` says how a family sees one row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from iris_gui.engine.spec.errors import ConfigError

FAMILIES = ("mlp", "cnn", "transformer")
IMAGE_DATASETS = ("digits", "images")
SEQUENCE_DATASETS = ("sequences",)
# The data sets each family trains on; a model file takes any.
FAMILY_DATA = {"cnn": IMAGE_DATASETS, "transformer": SEQUENCE_DATASETS}
# The synthetic data a sweep grows each family on.
SWEPT_DATA = {"cnn": "images", "transformer": "sequences"}
LIMITS = {"width": (1, 1024), "depth": (1, 8), "heads": (1, 16), "seq_len": (2, 1024),
          "image_size": (4, 256), "channels": (1, 4)}
DIGITS_SHAPE = (1, 8, 8)


def model_file_parts(model: str) -> tuple[str, str]:
    """``FILE.py:NAME``'s path and name, split at the last colon (a path may hold colons of
    its own, as a Windows drive's does); ("", model) where there is none."""
    path, _, name = model.rpartition(":")
    return path, name


def model_file_path(model: str) -> Path:
    """``FILE.py:NAME``'s file, there to be read; ConfigError in one line where it is not
    (checked before any worker starts for it, and again as it is read)."""
    path = Path(model_file_parts(model)[0]).expanduser()
    try:
        exists = path.is_file()
    except OSError as error:  # a name too long for the file system, a loop of links
        raise ConfigError(f"model file {path} cannot be read ({error.strerror or error}); give "
                          "--model FILE.py:NAME with the path of a Python file") from None
    if not exists:
        raise ConfigError(f"model file {path} does not exist; give --model FILE.py:NAME with "
                          "the path of a Python file")
    return path


def is_model_file(model: str) -> bool:
    """Whether ``model`` names your own model (``FILE.py:NAME``) rather than a family."""
    path, name = model_file_parts(model)
    return bool(path.endswith(".py") and name)


def family(model: str) -> str:
    """``mlp``, ``cnn``, ``transformer``, or ``file`` for your own model."""
    return "file" if is_model_file(model) else model


def input_shape(config: Any, features: int) -> tuple[int, ...]:
    """How the model sees one row of ``features`` values: ``(channels, size, size)`` for an
    image, ``(steps, values)`` for a sequence, ``(features,)`` for a row of a table."""
    if config.dataset == "digits" and family(config.model) == "cnn":
        return DIGITS_SHAPE
    if config.dataset == "images":
        return (config.channels, config.image_size, config.image_size)
    if config.dataset == "sequences":
        return (config.seq_len, config.synthetic_features)
    return (features,)


def check_model(config: Any) -> None:
    """ConfigError in one line for a model the config cannot train."""
    model = config.model
    if not isinstance(model, str) or not (model in FAMILIES or is_model_file(model)):
        raise ConfigError(f"model {model!r} is not allowed; choose one of: "
                          f"{', '.join(FAMILIES)}, or FILE.py:NAME for your own")
    for name, (low, high) in LIMITS.items():
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ConfigError(f"{name.replace('_', ' ')} {value!r} is not allowed; it must be "
                              f"a whole number from {low:,} to {high:,}")
    wanted = FAMILY_DATA.get(model)
    if wanted is not None and config.dataset not in wanted:
        raise ConfigError(f"a {model} needs {' or '.join(wanted)} data, not {config.dataset}; "
                          f"give --dataset {' or '.join(wanted)}")
    if model == "transformer" and config.width % config.heads:
        raise ConfigError(f"a transformer's width {config.width} must divide into its "
                          f"{config.heads} heads; give a width that is a multiple of the heads")


def unused_fields(config: Any) -> frozenset[str]:
    """The model and data shape fields that ``config``'s run does not use (a CNN's width on an
    MLP run, an MLP's hidden widths on a CNN's), which a display of the run leaves out."""
    used_by = {"hidden": family(config.model) == "mlp",
               "width": config.model in ("cnn", "transformer"),
               "depth": config.model in ("cnn", "transformer"),
               "heads": config.model == "transformer",
               "image_size": config.dataset == "images", "channels": config.dataset == "images",
               "seq_len": config.dataset == "sequences"}
    return frozenset(name for name, used in used_by.items() if not used)
