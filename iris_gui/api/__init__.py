"""The Python API, for notebooks and scripts: ``import iris_gui as lab``.

``lab.train``, ``lab.compare``, ``lab.ladder``, ``lab.sweep``, ``lab.explain`` and
``lab.ceilings`` take the
command line's options as keyword arguments, checked by the same rules (a bad one raises
``lab.OptionError``, one line), train in the calling process, save to the same store as the
window and the command line (``save=False`` to skip), and return the product's records, each
with ``to_dict()``, ``to_frame()`` (pandas) and a notebook view; ``lab.runs()`` reads the
store. docs/python.md lists every call and option.
"""

from iris_gui.api.calls import ceilings, compare, explain, ladder, runs, sweep, train
from iris_gui.api.options import OptionError
from iris_gui.api.records import Explanation, Ladder, Measured, Run, Runs, Sweep

__all__ = ["Explanation", "Ladder", "Measured", "OptionError", "Run", "Runs", "Sweep",
           "ceilings", "compare", "explain", "ladder", "runs", "sweep", "train"]
