"""iris-gui: a desktop lab for timing PyTorch training on the CPU and on accelerators."""

import logging as _logging

__version__ = "0.1.0"
APP_NAME = "iris-gui"

# A library stays quiet unless its application configures logging (engine/workers/logs.py): without
# this, a logged traceback would reach the terminal through logging's last-resort handler.
_logging.getLogger("iris_gui").addHandler(_logging.NullHandler())
