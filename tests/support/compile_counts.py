"""How many graphs torch.compile's dynamo traced during the ``compiled`` rung's build and during
its timed loop: a count, where comparing compile seconds with a first epoch's would ask the
machine's load. ``count_compiles(monkeypatch)`` returns the counts, kept up to date as runs
build and run.

``stand_in_backend(monkeypatch)`` has the rung compile with dynamo's ``aot_eager`` backend in
place of inductor, for tests of the rung's own logic: dynamo's tracing, guards, recompile
limits and ``is_compiling()`` stay real, as does AOT autograd's functionalization of the step's
in-place writes; only inductor's C++ code generation, tens of seconds a graph on a small
machine, is left out. The tests of what inductor's code computes compile with inductor."""

from __future__ import annotations

import pytest
import torch
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


STAND_IN = "aot_eager"


def stand_in_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on torch.compile traces with dynamo as the rung asks (fullgraph, dynamic=False,
    its own region per size) but hands the graph to ``aot_eager``, not inductor. A wrapper
    installed after this one wraps the stand-in."""
    compile_ = torch.compile

    def stand_in(fn, **options):
        # On the CPU the rung asks for no mode; a CUDA mode would be inductor's alone.
        assert options.get("mode") is None, options
        return compile_(fn, **options, backend=STAND_IN)

    monkeypatch.setattr(torch, "compile", stand_in)
