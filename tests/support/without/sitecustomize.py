"""Put on PYTHONPATH, this makes the modules named in IRIS_GUI_TEST_WITHOUT (commas between)
unimportable in that process and its children, as on a machine where they are not installed:
the GPU server's system Python has no Qt, pytest-qt or platformdirs."""

import os
import sys

_WITHOUT = {name for name in os.environ.get("IRIS_GUI_TEST_WITHOUT", "").split(",") if name}


class _Absent:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.split(".")[0] in _WITHOUT:
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)


if _WITHOUT:
    sys.meta_path.insert(0, _Absent())
