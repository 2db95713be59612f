"""How many graphs torch.compile's dynamo traced during the ``compiled`` rung's build and during
its timed loop: a count, where comparing compile seconds with a first epoch's would ask the
machine's load. ``count_compiles(monkeypatch)`` returns the counts, kept up to date as runs
build and run."""

from __future__ import annotations

import pytest
from torch._dynamo.utils import counters

from iris_gui.engine.rungs.compiled import CompiledRung


def graphs_compiled() -> int:
    return counters["stats"]["unique_graphs"]  # one per graph dynamo traces, recompiles too


def count_compiles(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts, from now on, of the graphs compiled in the rung's build and in its loop."""
    counts = {"build": 0, "loop": 0}
    build = CompiledRung.build

    def counted_build(self, prepared):
        before = graphs_compiled()
        stepper = build(self, prepared)
        counts["build"] += graphs_compiled() - before
        run = stepper.run

        def counted_run(first: int, count: int) -> None:
            before = graphs_compiled()
            run(first, count)
            counts["loop"] += graphs_compiled() - before

        stepper.run = counted_run
        return stepper

    monkeypatch.setattr(CompiledRung, "build", counted_build)
    return counts
