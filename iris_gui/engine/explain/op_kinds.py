"""The profiled epoch's host time by the kind of op the model runs: convolution, attention,
matrix products, copies, and the elementwise rest (activations, the loss, the optimizer's
update). What a CNN or a transformer spends its epoch on, beside the phases (forward,
backward, ...) that explain reads from the loop's own ranges.

Each top-level aten op (one whose parents hold no other aten op: its inner ops are inside its
time) is put in the first kind whose words its name holds; its time is its whole span on the
host. On an accelerator that is the time to issue the op (the device's kernels run apart, and
explain's device figures say how long); on the CPU it is the op's work.
"""

from __future__ import annotations

from collections.abc import Sequence

from iris_gui.engine.explain.event_tree import has_ancestor

# (kind, words in an op's name), first match wins: a convolution's backward is a convolution.
KINDS = (
    ("convolution", ("conv",)),
    ("attention", ("attention",)),
    ("matmul", ("aten::mm", "aten::addmm", "aten::bmm", "aten::matmul", "aten::linear",
                "aten::baddbmm", "aten::addmv", "aten::mv", "aten::dot")),
    # A loss read with .item() is a copy of the device's value to the host.
    ("copies", ("copy", "aten::to", "aten::contiguous", "aten::clone", "aten::item")),
)
OTHER = "elementwise & other"
ATEN = "aten::"


def op_kinds(host_events: Sequence, epochs: int) -> dict[str, float]:
    """µs per epoch of each kind of op among ``host_events`` (the window's host events), in
    ``KINDS`` order then the rest; a kind the model does not run is left out."""
    totals = dict.fromkeys([name for name, _ in KINDS] + [OTHER], 0.0)
    for event in host_events:
        if not event.name.startswith(ATEN) or _inside_aten(event):
            continue
        totals[kind_of(event.name)] += event.time_range.end - event.time_range.start
    return {kind: total / epochs for kind, total in totals.items() if total > 0}


def kind_of(name: str) -> str:
    for kind, words in KINDS:
        if any(word == name or (not word.startswith(ATEN) and word in name) for word in words):
            return kind
    return OTHER


def _inside_aten(event) -> bool:
    return has_ancestor(event, lambda name: name.startswith(ATEN))
