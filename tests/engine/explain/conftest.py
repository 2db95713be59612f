"""Explain's tests read their wall-clock words on a quiet CPU: the machine running them may be
busy, and a busy measurement's costs read "not measured" (breakdown_text.py). The busy words
are tested with a busy stand-in (test_explain_busy.py), the real meter's share by its shape."""

from __future__ import annotations

import pytest
from support.wait_share import FixedWait


@pytest.fixture(scope="module", autouse=True)
def quiet_cpu(request):
    if request.path.parent.name != "explain":  # data/ holds the data sets' tests
        yield
        return
    from iris_gui.engine.explain import explain as explain_module

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(explain_module, "WaitMeter", FixedWait(0.0))
        yield
