"""The log file: tracebacks of failed runs and jobs, kept where a user can find them.

Failures reach the user as one line (a ``failed`` row, a message); the traceback behind it is
written here, by stdlib logging into a rotating file in the data directory's ``logs/``. Each
process writes its own file (the window, its worker, the command line), so rotation never
races between processes.
"""

from __future__ import annotations

import logging
from logging.handlers import RotatingFileHandler
from pathlib import Path

LOG_BYTES = 1_000_000
LOG_BACKUPS = 3
FORMAT = "%(asctime)s %(process)d %(name)s %(levelname)s: %(message)s"


class _QuietRotatingFileHandler(RotatingFileHandler):
    """Makes its folder on first write, and never prints a traceback of its own: a log that
    cannot be written must not stop a run, nor reach the user's terminal as a traceback."""

    def _open(self):
        Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True)
        return super()._open()

    def handleError(self, record: logging.LogRecord) -> None:
        pass


def configure_file_log(path: Path | str | None) -> Path | None:
    """Send the ``iris_gui`` loggers' records to ``path`` (rotating); None leaves them alone.
    Nothing is created until a record is written."""
    if path is None:
        return None
    path = Path(path).absolute()
    logger = logging.getLogger("iris_gui")
    for handler in logger.handlers:
        if isinstance(handler, RotatingFileHandler) and Path(handler.baseFilename) == path:
            return path
    handler = _QuietRotatingFileHandler(path, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS,
                                        encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter(FORMAT))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return path
