"""Putting what the check produced into $OUT so that a kill at any moment leaves it whole.

The steps write into a work folder outside $OUT. After every step the folder is packed into
one archive, and the archive and the summary replace their previous versions in $OUT by a
rename, which is atomic: $OUT holds the summary, the live log and the archive, never a half
written one. The new versions are written first in a staging folder on $OUT's own file system
(a rename cannot cross file systems); where none can be made, beside their final names, which
leaves a ``.part`` file in $OUT only while one is being written.
"""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
from pathlib import Path

ARCHIVE = "gpu-check.tar.gz"
SUMMARY = "summary.txt"
# The device tool brings back files of at most 16 MiB: a larger archive leaves out the largest
# files (named in the summary) rather than be left out whole.
MAX_ARCHIVE_BYTES = 15 * 1024 * 1024


def staging_folder(out: Path) -> Path | None:
    """A new folder on ``out``'s file system, outside it, or None."""
    device = out.stat().st_dev
    for candidate in (Path(tempfile.gettempdir()), out.parent):
        try:
            if candidate.stat().st_dev == device and os.access(candidate, os.W_OK):
                return Path(tempfile.mkdtemp(prefix=".iris-gui-gpu-stage.", dir=candidate))
        except OSError:
            continue
    return None


class Publisher:
    """Writes the summary and the archive of ``work`` into ``out``, each by one rename."""

    def __init__(self, out: Path, work: Path) -> None:
        self.out, self.work = out, work
        self.staging = staging_folder(out)
        self.left_out: list[str] = []

    def _temporary(self, name: str) -> Path:
        return self.staging / name if self.staging is not None else self.out / f"{name}.part"

    def publish(self, text: str) -> None:
        """The summary ``text`` and the archive that holds it. The archive goes first: a run
        killed between the two renames leaves a summary one step behind its archive, never
        one that names as finished a step the archive lacks."""
        (self.work / SUMMARY).write_text(text, encoding="utf-8")
        self.archive()
        temporary = self._temporary(SUMMARY)
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, self.out / SUMMARY)

    def archive(self) -> None:
        """Everything in the work folder, the summary included, as one gzipped tar."""
        temporary = self._temporary(ARCHIVE)
        files = sorted(p for p in self.work.rglob("*") if p.is_file())
        while True:
            with tarfile.open(temporary, "w:gz") as archive:
                for path in files:
                    archive.add(path, arcname="./" + path.relative_to(self.work).as_posix())
            if temporary.stat().st_size <= MAX_ARCHIVE_BYTES or not files:
                break
            largest = max(files, key=lambda p: p.stat().st_size)
            files.remove(largest)
            self.left_out.append(f"{largest.relative_to(self.work)} "
                                 f"({largest.stat().st_size:,} bytes)")
        os.replace(temporary, self.out / ARCHIVE)

    def close(self) -> None:
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
