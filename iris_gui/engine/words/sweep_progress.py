"""Where a sweep is, in words, as the Crossover view's bar and the command line both say it: the
point being measured and the time left. No Qt, no torch."""

from __future__ import annotations

import math


def progress_text(done: int, total: int, eta_seconds: float | None) -> str:
    """``point 3 of 30 · about 2 min left``: ``done`` points measured."""
    text = f"point {done} of {total}"
    if done >= total:
        return text
    return text + _left(eta_seconds)


def measuring_text(done: int, total: int, eta_seconds: float | None) -> str:
    """``measuring point 4 of 30 · about 2 min left``: ``done`` measured, the next begun; the
    time left is not guessed before two points have set a pace."""
    return f"measuring point {done + 1} of {total}" + _left(eta_seconds)


def span(seconds: float) -> str:
    """``45 s``, ``2 min 30 s``, ``14 min``, ``1.5 h``."""
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    if seconds < 3600:
        minutes, rest = divmod(round(seconds), 60)
        return f"{minutes} min {rest} s" if minutes < 10 and rest else f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def _left(eta_seconds: float | None) -> str:
    if eta_seconds is not None and math.isfinite(eta_seconds) and eta_seconds >= 0:
        return f" · about {span(eta_seconds)} left"
    return ""
