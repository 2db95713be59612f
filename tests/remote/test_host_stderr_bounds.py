"""A far end's stderr costs a bounded memory and log, however it writes: a line without end is
kept cut at STDERR_LINE_BYTES and the rest of it dropped, the last lines are kept for the
failure's words, and past STDERR_LOGGED lines nothing more is logged."""

from __future__ import annotations

import io
import logging
from types import SimpleNamespace

from iris_gui.engine.remote import connection
from iris_gui.engine.remote.hosts import Host
from iris_gui.engine.remote.runner import RemoteRunner


def read(data: bytes) -> RemoteRunner:
    remote = RemoteRunner(Host("lab", "nobody@lab.invalid"))
    remote._read_stderr(SimpleNamespace(stderr=io.BufferedReader(io.BytesIO(data))))
    return remote


def test_a_line_without_end_is_kept_cut_and_the_next_line_whole(caplog):
    remote = read(b"x" * (8 << 20) + b"\nthe host's own last words\n")
    kept = list(remote._stderr)
    assert kept == ["x" * connection.STDERR_LINE_BYTES + " [cut]", "the host's own last words"]


def test_a_flood_of_lines_keeps_the_last_and_logs_a_bounded_number(caplog):
    lines = b"".join(b"line %d\n" % i for i in range(3 * connection.STDERR_LOGGED))
    with caplog.at_level(logging.INFO, logger=connection.log.name):
        remote = read(lines)
    assert list(remote._stderr)[-1] == f"line {3 * connection.STDERR_LOGGED - 1}"
    logged = [r for r in caplog.records if r.name == connection.log.name]
    assert len(logged) == connection.STDERR_LOGGED
    assert logged[-1].getMessage() == "lab: more lines, not logged"
