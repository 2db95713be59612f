"""The measuring engine: pure Python, torch and scikit-learn, no Qt (tests/cli/test_no_qt_cli.py).

Submodules are imported directly (``from iris_gui.engine.spec.config import RunConfig``) so that
importing the package stays cheap: torch loads only when a module that needs it is imported.
"""
