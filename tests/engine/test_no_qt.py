"""The engine and the store must import and train with Qt unavailable (ARCHITECTURE.md)."""

import subprocess
import sys
import textwrap

import pytest

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow

SCRIPT = textwrap.dedent("""
    import importlib, importlib.abc, pkgutil, sys

    class NoQt(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6"):
                raise ImportError(f"{name} is blocked in this test")
            return None

    sys.meta_path.insert(0, NoQt())
    import iris_gui.engine, iris_gui.store
    for package in (iris_gui.engine, iris_gui.store):
        for module in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)
    from iris_gui.engine.spec.config import RunConfig
    from iris_gui.engine.train.trainer import train
    result = train(RunConfig(epochs=20))
    assert result.status.value == "completed", result.message
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph"))
    print("qt modules:", loaded)
""")


def test_engine_and_store_import_and_train_without_qt():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "qt modules: []" in done.stdout
