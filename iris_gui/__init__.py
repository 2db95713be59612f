"""iris-gui: a desktop lab for timing PyTorch training on the CPU and on accelerators.

From Python (a notebook, a script): ``import iris_gui as lab`` then ``lab.train(epochs=300)``,
``lab.compare(...)``, ``lab.ladder(...)``, ``lab.sweep(...)``, ``lab.explain(...)``,
``lab.ceilings(...)``, ``lab.runs()``; a bad option raises ``lab.OptionError`` (docs/python.md). They are loaded on
first use: importing the package alone loads neither torch nor Qt.
"""

import logging as _logging

from iris_gui.version import APP_NAME, __version__

API = ("train", "compare", "ladder", "sweep", "explain", "ceilings", "runs", "OptionError", "Run",
       "Runs", "Sweep", "Explanation", "Ladder", "Measured")

# A library stays quiet unless its application configures logging (engine/workers/logs.py): without
# this, a logged traceback would reach the terminal through logging's last-resort handler.
_logging.getLogger("iris_gui").addHandler(_logging.NullHandler())


def __getattr__(name: str):
    if name in API:
        from iris_gui import api

        return getattr(api, name)
    raise AttributeError(f"module 'iris_gui' has no attribute {name!r}")


__all__ = [
    "APP_NAME",
    "Explanation",
    "Ladder",
    "Measured",
    "OptionError",
    "Run",
    "Runs",
    "Sweep",
    "__version__",
    "ceilings",
    "compare",
    "explain",
    "ladder",
    "runs",
    "sweep",
    "train",
]
