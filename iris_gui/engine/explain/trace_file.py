"""The profiled window's trace, kept in a file of the user's choosing (``explain --trace``):
whole or not at all, and never a scrap left behind."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from torch.profiler import profile

from iris_gui.engine.spec.errors import EngineError

# Below this many bytes free, a trace that was not written is put down to a full disk.
FULL_BELOW_BYTES = 1 << 20


def keep_trace(prof: profile, trace: Path) -> None:
    """The trace written whole or not at all: beside its target, then renamed over it.

    torch's profiler writes ``<name>.tmp`` and renames it, and says nothing when that write
    fails (a full disk): the trace is then simply not there, and the ``.tmp`` stays. Both are
    removed, and the line names the reason."""
    part = trace.with_name(f".{trace.name}.part")
    scraps = (part, part.with_name(part.name + ".tmp"))
    try:
        prof.export_chrome_trace(str(part))
        if not part.exists():
            raise OSError(0, _unwritten(trace.parent))
        os.replace(part, trace)
    except (OSError, RuntimeError) as error:
        for scrap in scraps:
            _remove(scrap)
        said = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise EngineError(f"cannot write the trace to {trace}: {said}") from None


def _unwritten(folder: Path) -> str:
    """Why torch's profiler left no trace in ``folder``, as far as can be told."""
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return "torch's profiler could not write it"
    if free < FULL_BELOW_BYTES:
        return f"no space left on the device ({free:,} bytes free)"
    return "torch's profiler could not write it"


def _remove(scrap: Path) -> None:
    """Emptied, then unlinked: torch keeps its file open after a failed write, and a file
    only unlinked would hold its bytes (the full disk) until this process ends."""
    try:
        os.truncate(scrap, 0)
    except OSError:
        pass  # not there, or not ours to empty: the unlink says the rest
    scrap.unlink(missing_ok=True)
