"""Opening the database: WAL, schema version, migrations, and files that are not a runs store."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import pytest

from iris_gui.store import schema
from iris_gui.store.runs import RunStore, StoreError

ASIDE = re.compile(r"runs\.sqlite3\.invalid-\d{8}-\d{6}(-\d+)?$")


def _pragma(path: Path, name: str) -> object:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]


def _asides(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if ASIDE.search(p.name))


def test_new_store_is_wal_at_current_version(store, db_path):
    assert store.notice is None
    assert _pragma(db_path, "journal_mode") == "wal"
    assert _pragma(db_path, "user_version") == schema.SCHEMA_VERSION >= 1
    assert store._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert store._conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000


def test_empty_file_is_a_new_store(db_path):
    db_path.write_bytes(b"")
    with RunStore.open(db_path) as store:
        assert store.notice is None
        assert store.list_runs() == []
    assert _asides(db_path.parent) == []


def test_garbage_file_is_set_aside(db_path, make_result):
    garbage = os.urandom(3000)
    db_path.write_bytes(garbage)
    db_path.with_name("runs.sqlite3-wal").write_bytes(b"stale wal")
    db_path.with_name("runs.sqlite3-shm").write_bytes(b"stale shm")

    with RunStore.open(db_path) as store:
        [aside] = _asides(db_path.parent)
        assert aside.read_bytes() == garbage
        assert Path(f"{aside}-wal").read_bytes() == b"stale wal"
        assert Path(f"{aside}-shm").read_bytes() == b"stale shm"
        assert str(db_path) in store.notice and str(aside) in store.notice
        assert "not a runs store" in store.notice and "\n" not in store.notice
        run_id = store.save(make_result())
        assert store.get(run_id).result.epochs_completed == 100


def test_sqlite_file_with_foreign_tables_is_set_aside(db_path):
    with sqlite3.connect(db_path) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
        conn.execute("INSERT INTO notes VALUES ('keep me')")
    conn.close()

    with RunStore.open(db_path) as store:
        assert "notes" in store.notice
        assert store.list_runs() == []
    [aside] = _asides(db_path.parent)
    with sqlite3.connect(aside) as conn:
        assert conn.execute("SELECT body FROM notes").fetchall() == [("keep me",)]
    conn.close()


def test_set_aside_never_overwrites_an_earlier_one(db_path):
    for _ in range(2):
        db_path.write_bytes(b"not sqlite at all, but long enough" * 10)
        RunStore.open(db_path).close()
    assert len(_asides(db_path.parent)) == 2


def test_our_version_without_our_tables_is_set_aside(db_path):
    with sqlite3.connect(db_path) as conn:
        conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")
    conn.close()
    with RunStore.open(db_path) as store:
        assert "no table" in store.notice
        assert store.list_runs() == []


def test_newer_version_is_refused_and_left_untouched(db_path):
    with sqlite3.connect(db_path) as conn:
        conn.execute("CREATE TABLE runs (future TEXT)")
        conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 1}")
    conn.close()
    before = db_path.read_bytes()

    with pytest.raises(StoreError) as caught:
        RunStore.open(db_path)

    message = str(caught.value)
    assert "newer iris-gui" in message and str(db_path) in message and "\n" not in message
    assert f"schema version {schema.SCHEMA_VERSION + 1}" in message
    assert db_path.read_bytes() == before
    assert sorted(p.name for p in db_path.parent.iterdir()) == ["runs.sqlite3"]


def _add_note_column(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE runs ADD COLUMN note TEXT NOT NULL DEFAULT ''")


def test_older_store_is_migrated_in_order(db_path, make_result, monkeypatch):
    with RunStore.open(db_path) as store:
        kept = store.save(make_result())
    applied: list[str] = []

    def second(conn: sqlite3.Connection) -> None:
        applied.append("second")
        _add_note_column(conn)

    def third(conn: sqlite3.Connection) -> None:
        applied.append("third")
        conn.execute("UPDATE runs SET note = 'migrated'")

    monkeypatch.setattr(schema, "MIGRATIONS", [*schema.MIGRATIONS, second, third])
    with RunStore.open(db_path) as store:
        assert store.notice is None
        assert store.get(kept).result.epochs_completed == 100
        assert store._conn.execute("SELECT note FROM runs").fetchall() == [("migrated",)]
    assert applied == ["second", "third"]
    assert _pragma(db_path, "user_version") == schema.SCHEMA_VERSION + 2

    RunStore.open(db_path).close()
    assert applied == ["second", "third"]  # an up-to-date file is not migrated again


def test_failed_migration_leaves_the_file_at_its_version(db_path, make_result, monkeypatch):
    with RunStore.open(db_path) as store:
        store.save(make_result())

    def broken(conn: sqlite3.Connection) -> None:
        _add_note_column(conn)
        conn.execute("SELECT * FROM no_such_table")

    monkeypatch.setattr(schema, "MIGRATIONS", [*schema.MIGRATIONS, broken])
    with pytest.raises(StoreError, match="no such table"):
        RunStore.open(db_path)
    assert _pragma(db_path, "user_version") == schema.SCHEMA_VERSION
    with sqlite3.connect(db_path) as conn:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(runs)")]
    conn.close()
    assert "note" not in columns


def test_unopenable_path_is_a_store_error(tmp_path):
    with pytest.raises(StoreError, match=rf"^cannot open the runs store {tmp_path}: \w"):
        RunStore.open(tmp_path)  # a directory


def test_locked_store_is_an_error_not_set_aside(db_path, make_result, monkeypatch):
    with RunStore.open(db_path) as store:
        store.save(make_result())
    monkeypatch.setattr(schema, "BUSY_TIMEOUT_S", 0.1)
    holder = sqlite3.connect(db_path, isolation_level=None)
    try:
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StoreError, match="database is locked"):
            RunStore.open(db_path)
    finally:
        holder.close()
    assert _asides(db_path.parent) == []
    with RunStore.open(db_path) as store:
        assert len(store.list_runs()) == 1


def test_a_version_1_store_gains_the_breakdowns_table(db_path, make_result, old_store):
    kept = old_store(db_path, 1, make_result())
    assert _pragma(db_path, "user_version") == 1
    with RunStore.open(db_path) as store:
        assert store.notice is None
        assert store.get(kept).breakdown is None
        store.save_breakdown(kept, {"categories": {"forward": 1.0}})
        assert store.get(kept).breakdown == {"categories": {"forward": 1.0}}
        store.delete(kept)
        assert store._conn.execute("SELECT COUNT(*) FROM breakdowns").fetchone() == (0,)
    assert _pragma(db_path, "user_version") == schema.SCHEMA_VERSION
