"""Whether a model file is still the one a stored run ran: its bytes against the path, size
and SHA-256 the run recorded (engine/models/user_file.py). Reads and hashes the file, never imports
it, and imports no torch: the window asks before it queues a stored run's file again.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from iris_gui.engine.spec.models import model_file_parts

MAX_BYTES = 64 << 20  # a model file is source code: past this it is not the one recorded


def changed(model: str, record: dict[str, Any]) -> str | None:
    """Why ``model`` (``FILE.py:NAME``) is not the file ``record`` describes, in words, or
    None when its bytes are the recorded ones."""
    path = Path(model_file_parts(model)[0]).expanduser()
    wanted = str(record.get("sha256") or "")
    if not wanted:
        return f"{path}: the run recorded no SHA-256 of it"
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            return f"{path} is {size:,} bytes now; the run's was {record.get('size', '?'):,}"
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as error:
        return f"{path} cannot be read ({error.strerror or error})"
    if digest != wanted:
        return (f"{path} changed since the run: SHA-256 {digest[:12]}... now, "
                f"{wanted[:12]}... then")
    return None
