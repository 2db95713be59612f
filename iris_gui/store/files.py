"""Writing export files so that an existing file is kept whole or replaced whole."""

from __future__ import annotations

import os
import secrets
from contextlib import suppress
from pathlib import Path

from iris_gui.store.paths import StoreError


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` that then replaces it, so an existing
    file is either kept whole or fully replaced, never left half-written. A failure raises
    StoreError naming the path and the reason, in one line."""
    path = Path(path)
    if not path.name:
        raise StoreError(f"cannot write {path}: not a file name")
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        # Mode "x" creates the file with the user's umask, as a plain open of ``path`` would.
        with open(temp, "xb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except OSError as exc:
        with suppress(OSError):
            temp.unlink(missing_ok=True)
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None
