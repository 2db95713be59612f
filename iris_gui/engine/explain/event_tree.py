"""The profiler's host events as a tree: whether an event runs inside another of some name
(an op inside an aten op, a read inside the loader's range, a call inside the loop's phases)."""

from __future__ import annotations

from collections.abc import Callable


def has_ancestor(event, wanted: Callable[[str], bool]) -> bool:
    """Whether any of ``event``'s parents (``cpu_parent``, up to the root) has a wanted name."""
    parent = event.cpu_parent
    while parent is not None:
        if wanted(parent.name):
            return True
        parent = parent.cpu_parent
    return False
