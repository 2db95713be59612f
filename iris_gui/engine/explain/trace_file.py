"""The profiled window's trace, kept in a file of the user's choosing (``explain --trace``):
whole or not at all, and never a scrap left behind; named by its own file, and saying it is
rank 0 of a world of one, as trace analysers (Holistic Trace Analysis) read a training run."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from torch.profiler import profile

from iris_gui.engine.spec.errors import EngineError

# Below this many bytes free, a trace that was not written is put down to a full disk.
FULL_BELOW_BYTES = 1 << 20
# torch's profiler ends its trace with its name: the last bytes hold it.
TAIL_BYTES = 64 << 10
# What torch writes when torch.distributed runs; a window here is one process.
ONE_OF_ONE = json.dumps({"backend": "", "rank": 0, "world_size": 1})


def mark_rank(prof: profile) -> None:
    """The trace says it is rank 0 of a world of one (called while the profiler records)."""
    prof.add_metadata_json("distributedInfo", ONE_OF_ONE)


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
        _rename_inside(part, trace)
        os.replace(part, trace)
    except (OSError, RuntimeError) as error:
        for scrap in scraps:
            _remove(scrap)
        said = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise EngineError(f"cannot write the trace to {trace}: {said}") from None


def _rename_inside(part: Path, trace: Path) -> None:
    """The trace's own ``traceName`` made the file's final name (torch writes the name it
    was given, the part's), in its last bytes only: a trace can be hundreds of megabytes."""
    said = f'"traceName": {json.dumps(str(part), ensure_ascii=False)}'.encode()
    meant = f'"traceName": {json.dumps(str(trace), ensure_ascii=False)}'.encode()
    with open(part, "r+b") as file:
        start = max(0, file.seek(0, os.SEEK_END) - TAIL_BYTES)
        file.seek(start)
        tail = file.read()
        at = tail.rfind(said)
        if at < 0:
            return  # a torch that names its trace otherwise: left as written
        file.seek(start)
        file.write(tail[:at] + meant + tail[at + len(said):])
        file.truncate()


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
