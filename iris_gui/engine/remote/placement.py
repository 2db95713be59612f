"""Where a host's scheduler put the worker: its Slurm job, its node and the GPUs it may see.

The worker reads these from its own environment and sends them in its greeting, so `hosts
test` can say which job and which GPU a connection got, and each run's record keeps it beside
the host's name. Only these names travel, each value a short printable string: the greeting
is the far end's word, and it is shown in a terminal and the window.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

NAMES = ("SLURM_JOB_ID", "SLURMD_NODENAME", "CUDA_VISIBLE_DEVICES")
LONGEST = 200


def placement(environ: Mapping[str, str]) -> dict[str, str]:
    """The scheduler's names set in ``environ`` (the worker's own environment)."""
    return {name: environ[name] for name in NAMES if name in environ}


def read_placement(value: Any) -> dict[str, str]:
    """A greeting's placement (an object of the known names and short strings), or TypeError or
    ValueError naming what is wrong."""
    if not isinstance(value, dict):
        raise TypeError(f"placement is {type(value).__name__}, not an object")
    unknown = sorted(set(value) - set(NAMES))
    if unknown:
        raise ValueError(f"placement names {unknown[0]!r}; it may name {', '.join(NAMES)}")
    for name, text in value.items():
        if not isinstance(text, str) or len(text) > LONGEST or not text.isprintable():
            raise ValueError(f"placement's {name} is not a printable string of up to "
                             f"{LONGEST} characters")
    return dict(value)


def placement_words(found: Mapping[str, str]) -> str:
    """``Slurm job 12 on node1, CUDA_VISIBLE_DEVICES=0``; empty where nothing placed it."""
    words = []
    if "SLURM_JOB_ID" in found:
        node = found.get("SLURMD_NODENAME")
        words.append(f"Slurm job {found['SLURM_JOB_ID']}" + (f" on {node}" if node else ""))
    if "CUDA_VISIBLE_DEVICES" in found:
        words.append(f"CUDA_VISIBLE_DEVICES={found['CUDA_VISIBLE_DEVICES'] or '(none)'}")
    return ", ".join(words)
