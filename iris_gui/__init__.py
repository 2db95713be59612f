"""iris-gui: a desktop lab for timing PyTorch training on the CPU and on accelerators."""

__version__ = "0.1.0"
APP_NAME = "iris-gui"
