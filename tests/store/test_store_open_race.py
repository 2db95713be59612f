"""The interleavings behind two processes creating or opening one store at once, made to
happen on purpose (the process
trials in tests/reliability only meet them by chance)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from iris_gui.store import aside, schema
from iris_gui.store.runs import RunStore


def _create_store_raw(path: Path) -> None:
    """Another process creating the store, as a plain SQLite client would (no iris-gui lock)."""
    conn = sqlite3.connect(path, timeout=10, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        for step in schema.MIGRATIONS:
            step(conn)
        conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")
        conn.execute("COMMIT")
    finally:
        conn.close()


def test_a_store_created_between_the_version_and_the_tables_is_not_set_aside(
        tmp_path, monkeypatch):
    """The checker reads the version (0: new), another process then creates the store, and
    the checker reads the tables. Read apart, the two once made "version 0 with tables": a
    foreign database, set aside while its creator kept writing into it."""
    path = tmp_path / "runs.sqlite3"
    read_version = schema.user_version
    creator = threading.Thread(target=_create_store_raw, args=(path,))

    def version_then_creation(conn: sqlite3.Connection) -> int:
        version = read_version(conn)
        if not creator.is_alive() and creator.ident is None:
            creator.start()
            # Give the creator the chance to commit in between; it must not get it while the
            # version and the tables are read as one view (it waits for the read to end).
            creator.join(timeout=1.0)
        return version

    monkeypatch.setattr(schema, "user_version", version_then_creation)
    with RunStore.open(path) as store:
        assert store.notice is None
        assert list(tmp_path.glob("*.invalid-*")) == []
    creator.join(timeout=30)
    assert not creator.is_alive()


def test_set_aside_never_replaces_a_name_taken_meanwhile(tmp_path, monkeypatch):
    """Between choosing a free name and moving the file there, another process takes that
    name: the file goes to the next free name and both survive."""
    path = tmp_path / "runs.sqlite3"
    path.write_bytes(b"garbage")
    taken: list[Path] = []
    free = aside.sibling

    def take_it_first(name: Path, suffix: str) -> Path:
        if suffix == "-journal" and ".invalid-" in name.name and not taken:
            name.write_bytes(b"another process's")  # appears after the check, before the move
            taken.append(name)
        return free(name, suffix)

    monkeypatch.setattr(aside, "sibling", take_it_first)
    moved = aside.set_aside(path, aside.identity(path))
    assert moved is not None and moved != taken[0]
    assert moved.read_bytes() == b"garbage" and taken[0].read_bytes() == b"another process's"
    assert not path.exists()


def test_set_aside_leaves_a_file_that_is_no_longer_the_one_judged(tmp_path):
    path = tmp_path / "runs.sqlite3"
    path.write_bytes(b"garbage")
    judged = aside.identity(path)
    replacement = tmp_path / "new"
    replacement.write_bytes(b"SQLite format 3\x00 a new store")
    replacement.replace(path)  # another process set the garbage aside and made a new store
    assert aside.set_aside(path, judged) is None
    assert path.read_bytes().startswith(b"SQLite format 3\x00")
    assert list(tmp_path.glob("*.invalid-*")) == []
