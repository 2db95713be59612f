"""The ``iris-gui train ...`` line that repeats a run headless.

It names every setting that differs from ``RunConfig()``'s defaults (persistent workers: from
the default for the run's number of workers), in the option names of
``iris-gui train`` (iris_gui/cli/parser.py, which reads it back to the same RunConfig; a test
holds the two together). It lives beside RunConfig rather than in cli/ because the window
copies it, and the window imports nothing from cli/.
"""

from __future__ import annotations

import sys

from iris_gui.engine.spec.batch_settings import default_persistent
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.words.shell_text import joined

# RunConfig field -> the train option that sets it, in the order a reader expects them.
OPTIONS: tuple[tuple[str, str], ...] = (
    ("dataset", "--dataset"), ("synthetic_rows", "--rows"),
    ("synthetic_features", "--features"), ("synthetic_classes", "--classes"),
    ("device", "--device"), ("engine", "--engine"), ("epochs", "--epochs"), ("lr", "--lr"),
    ("hidden", "--hidden"), ("optimizer", "--optimizer"), ("momentum", "--momentum"),
    ("record", "--record"), ("call", "--call"), ("threads", "--threads"), ("world", "--world"),
    ("scaler", "--scaler"), ("test_size", "--test-size"), ("seed", "--seed"),
    ("split_seed", "--split-seed"), ("data_file", "--data"), ("target", "--target"),
    ("batch", "--batch"), ("drop_last", "--drop-last"), ("data_path", "--data-path"),
    ("workers", "--workers"), ("pin_memory", "--pin-memory"), ("non_blocking", "--non-blocking"),
    ("persistent_workers", "--persistent-workers"), ("prefetch_factor", "--prefetch-factor"),
    ("precision", "--precision"), ("tf32", "--tf32"), ("model", "--model"),
    ("width", "--width"), ("depth", "--depth"), ("heads", "--heads"), ("seq_len", "--seq-len"),
    ("image_size", "--image-size"), ("channels", "--channels"),
)
SYNTHETIC_SIZES = ("synthetic_rows", "synthetic_features", "synthetic_classes")
SYNTHETIC_DATA = ("synthetic", "images", "sequences")


def command_for(config: RunConfig, program: str = "iris-gui", platform: str = sys.platform
                ) -> str:
    """``iris-gui train --device cuda:0 --record device``: the shell line that trains
    ``config`` again. ``program`` is shell text already (words/program.py quotes a path and
    keeps ``python -m iris_gui`` three words), put first as it is. The synthetic sizes are
    named only for synthetic data, where they mean something; the other data sets ignore
    them."""
    defaults = RunConfig()
    words = ["train"]
    for name, option in OPTIONS:
        if name in SYNTHETIC_SIZES and config.dataset not in SYNTHETIC_DATA:
            continue
        value = getattr(config, name)
        if name == "dataset" and value == "csv":
            continue  # --data says it
        if name == "persistent_workers":
            if value != default_persistent(config.workers):
                words.append(option if value else "--no-" + option[2:])
            continue
        if value != getattr(defaults, name):
            # A switch (--pin-memory) is its own word; --batch full is the default.
            words += [option] if isinstance(value, bool) else [option, _text(value)]
    return f"{program} {joined(words, platform)}"


def _text(value: object) -> str:
    if isinstance(value, tuple):
        return ",".join(str(width) for width in value)
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back as the same float
    return str(value)
