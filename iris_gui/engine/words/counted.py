"""``counted(3, "run")`` -> "3 runs": counts in messages read as English, never "1 run(s)"."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` with ``noun``, its plural (``noun + "s"`` unless given) for any count but 1;
    thousands are grouped as the rest of the output groups them."""
    return f"{count:,} {noun if count == 1 else (plural or noun + 's')}"
