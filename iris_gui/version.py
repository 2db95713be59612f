"""The product's name and version, in one place: the package's top re-exports them, and every
module that says them imports them from here (the top also opens the Python API, which
imports much of the package)."""

__version__ = "0.1.0"
APP_NAME = "iris-gui"
