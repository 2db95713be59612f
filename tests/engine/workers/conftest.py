"""The warm worker process a module's tests share, as the window holds one."""

from __future__ import annotations

import pytest

from iris_gui.engine.workers.runner import ProcessRunner


@pytest.fixture(scope="module")
def runner():
    made = ProcessRunner()
    made.start()
    yield made
    made.close()
