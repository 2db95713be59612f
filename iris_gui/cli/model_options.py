"""The model family's options (spec/models.py): ``--model`` and the shape of a CNN, a
transformer and the synthetic images and sequences they train on."""

from __future__ import annotations

import argparse
import os
from typing import Any

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.models import FAMILIES, is_model_file, model_file_parts

DEFAULTS = RunConfig()
# The RunConfig fields these options fill, by their argparse names.
MODEL_FIELDS = ("model", "width", "depth", "heads", "seq_len", "image_size", "channels")


def add_model_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--model", default=DEFAULTS.model, metavar="|".join(FAMILIES) + "|FILE.py:NAME",
                       help="the model: the note's mlp (--hidden), a cnn on images (digits, "
                            "images), a transformer on sequences, or your own nn.Module in a "
                            "Python file (called as NAME(input_shape, classes))")
    group.add_argument("--width", type=int, default=DEFAULTS.width,
                       help="a cnn's channels or a transformer's features")
    _add_shape_options(group, DEFAULTS)


def _add_shape_options(parser: Any, defaults: Any) -> None:
    """The options of a model's and its synthetic data's shape, as ``train`` and ``sweep``
    both take them (``defaults``: a RunConfig's or a SweepSpec's)."""
    parser.add_argument("--depth", type=int, default=defaults.depth,
                        help="a cnn's conv blocks or a transformer's encoder layers")
    parser.add_argument("--heads", type=int, default=defaults.heads, help="a transformer's heads")
    parser.add_argument("--seq-len", type=int, default=defaults.seq_len,
                        help="the sequences' steps (each of --features values)")
    parser.add_argument("--image-size", type=int, default=defaults.image_size,
                        help="the images' side in pixels")
    parser.add_argument("--channels", type=int, default=defaults.channels,
                        help="the images' channels")


def model_values(args: argparse.Namespace) -> dict[str, object]:
    """The model fields the options name; a model file's path made absolute, as a data file's
    is (the run is kept with the file it was built from, wherever it was started)."""
    values = {name: getattr(args, name) for name in MODEL_FIELDS if hasattr(args, name)}
    model = values.get("model")
    if isinstance(model, str) and is_model_file(model):
        path, name = model_file_parts(model)
        values["model"] = f"{os.path.abspath(os.path.expanduser(path))}:{name}"
    return values


# The SweepSpec fields that ``sweep``'s model options fill (its widths are ``--hidden``).
SWEEP_MODEL_FIELDS = ("model", "depth", "heads", "seq_len", "image_size", "channels")


def add_sweep_model_options(sweep: argparse.ArgumentParser, spec: Any) -> None:
    sweep.add_argument("--model", choices=FAMILIES, default=spec.model,
                       help="the family swept along --hidden (--width): mlp, or a cnn on "
                            "synthetic images, a transformer on synthetic sequences")
    _add_shape_options(sweep, spec)
