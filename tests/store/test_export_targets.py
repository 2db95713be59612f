"""The export-target policy (store/files.py) and CSV cells a spreadsheet will not run.

Targets: never the runs store (by name, symlink or hard link, nor its -wal/-shm/-journal files);
a symlink is written through; a file keeps its mode, owner and hard links; a FIFO, device,
socket or directory is refused in one line before anything is opened. No test writes to a real
device: /dev/null is only stat'ed by the check.

CSV: text starting with = + - @, a tab or a carriage return gets a leading ' in every CSV
export; numbers (negative, exponent form) stay numbers.
"""

from __future__ import annotations

import csv
import math
import os
import socket
import stat
from pathlib import Path

import numpy as np
import pytest

from iris_gui.engine.records.ladder import LadderRow
from iris_gui.engine.records.result import EnvRecord, RunStatus
from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.store import files
from iris_gui.store.curve_csv import export_curves_csv
from iris_gui.store.export import export_runs_csv
from iris_gui.store.ladder_csv import export_ladder_csv
from iris_gui.store.paths import default_db_path
from iris_gui.store.runs import RunStore, StoreError
from iris_gui.store.sweep_csv import export_sweep_csv

CHOOSE = "choose a regular file"


def read_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


def refused(path: Path, write=None) -> str:
    """Export to ``path`` (the runs CSV by default); assert the refusal is one line naming the
    path, raised as ExportTargetError; return the message."""
    with pytest.raises(StoreError) as caught:
        (write or (lambda p: export_runs_csv([], p)))(path)
    message = str(caught.value)
    assert type(caught.value).__name__ == "ExportTargetError", message
    assert message.startswith(f"cannot write {path}: ") and "\n" not in message
    return message


@pytest.fixture
def live_store(make_result):
    """The default store (in the test's data directory) with two runs; closed by the test's
    end. Yields (store path, the runs' ids)."""
    path = default_db_path()
    with RunStore.open(path) as store:
        ids = [store.save(make_result()), store.save(make_result())]
        yield path, ids


def assert_store_intact(path: Path, ids: list[int]) -> None:
    with RunStore.open(path) as store:
        assert not store.notice  # nothing set aside
        assert sorted(run.id for run in store.list_runs()) == sorted(ids)


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal"])
def test_the_store_and_its_files_are_refused(live_store, suffix) -> None:
    path, ids = live_store
    target = path.with_name(path.name + suffix)
    before = target.read_bytes() if target.exists() else None
    message = refused(target)
    assert "runs store" in message
    assert (target.read_bytes() if target.exists() else None) == before
    assert_store_intact(path, ids)


def test_a_symlink_or_hard_link_to_the_store_is_refused(live_store, tmp_path) -> None:
    path, ids = live_store
    link, hard = tmp_path / "link.csv", tmp_path / "hard.csv"
    link.symlink_to(path)
    os.link(path, hard)
    for target in (link, hard):
        assert "runs store" in refused(target)
    assert link.is_symlink() and os.path.samefile(hard, path)
    assert_store_intact(path, ids)


def test_a_symlink_to_the_missing_wal_is_refused(live_store, tmp_path) -> None:
    path, ids = live_store
    link = tmp_path / "wal.csv"
    link.symlink_to(path.with_name(path.name + "-journal"))  # dangling: refused by its name
    assert "runs store" in refused(link)
    assert not path.with_name(path.name + "-journal").exists()
    assert_store_intact(path, ids)


def test_another_sqlite_database_is_refused(tmp_path, make_result) -> None:
    other = tmp_path / "backup.sqlite3"
    with RunStore.open(other) as store:
        store.save(make_result())
    message = refused(other)
    assert "SQLite" in message
    with RunStore.open(other) as store:
        assert len(store.list_runs()) == 1


def test_a_symlink_is_written_through(tmp_path) -> None:
    real, link = tmp_path / "real.csv", tmp_path / "link.csv"
    real.write_text("old\n")
    link.symlink_to(real)
    export_runs_csv([], link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text(encoding="utf-8-sig").startswith("id,created_at,")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "real.csv"]


def test_a_dangling_symlink_creates_its_target(tmp_path) -> None:
    (tmp_path / "out").mkdir()
    real, link = tmp_path / "out" / "new.csv", tmp_path / "link.csv"
    link.symlink_to(real)
    export_runs_csv([], link)
    assert link.is_symlink() and real.read_text(encoding="utf-8-sig").startswith("id,")


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604])
def test_an_existing_file_keeps_its_mode(tmp_path, mode) -> None:
    target = tmp_path / "private.csv"
    target.write_text("old\n")
    target.chmod(mode)
    export_runs_csv([], target)
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert target.read_text(encoding="utf-8-sig").startswith("id,")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_an_existing_file_keeps_its_owner_as_root(tmp_path) -> None:
    target = tmp_path / "theirs.csv"
    target.write_text("old\n")
    os.chown(target, 4321, 4322)
    export_runs_csv([], target)
    info = target.stat()
    assert (info.st_uid, info.st_gid) == (4321, 4322)


def test_a_new_file_gets_the_umask_mode(tmp_path) -> None:
    target = tmp_path / "new.csv"
    mask = os.umask(0o022)
    try:
        export_runs_csv([], target)
    finally:
        os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_a_hard_linked_file_keeps_its_links(tmp_path) -> None:
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    first.write_text("old contents that are longer than the new ones will be, by far\n" * 50)
    os.link(first, second)
    inode = first.stat().st_ino
    export_runs_csv([], second)
    assert first.read_bytes() == second.read_bytes()
    text = first.read_text(encoding="utf-8-sig")
    assert text.startswith("id,") and text.count("\n") == 1
    assert first.stat().st_ino == second.stat().st_ino == inode
    assert first.stat().st_nlink == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.csv"]


def test_a_fifo_is_refused_before_it_is_opened(tmp_path) -> None:
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    # Were it opened for writing, this would block: the test's timeout would show it.
    assert refused(fifo).endswith(f": it is a FIFO (named pipe); {CHOOSE}")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe.csv"]


def test_a_directory_is_refused(tmp_path) -> None:
    directory = tmp_path / "folder.csv"
    (directory / "inside").mkdir(parents=True)
    assert refused(directory).endswith(f": it is a directory; {CHOOSE}")
    assert (directory / "inside").is_dir()


def test_a_socket_is_refused(tmp_path) -> None:
    path = tmp_path / "s.csv"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        assert refused(path).endswith(f": it is a socket; {CHOOSE}")
        assert stat.S_ISSOCK(path.lstat().st_mode)


def test_dev_null_is_refused_by_the_check() -> None:
    # Only the check: never a write to a real device. stat() is all it does to /dev/null.
    with pytest.raises(StoreError, match=rf"^cannot write /dev/null: it is a character device; "
                                         rf"{CHOOSE}$"):
        files.check_export_target(Path("/dev/null"))


def test_a_device_node_is_refused_and_kept(tmp_path) -> None:
    node = tmp_path / "null.csv"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # /dev/null's numbers: harmless
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    assert refused(node).endswith(f": it is a character device; {CHOOSE}")
    assert stat.S_ISCHR(node.lstat().st_mode)


def test_a_symlink_to_a_fifo_is_refused(tmp_path) -> None:
    fifo, link = tmp_path / "pipe", tmp_path / "link.csv"
    os.mkfifo(fifo)
    link.symlink_to(fifo)
    assert "FIFO" in refused(link)
    assert link.is_symlink() and stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.parametrize("write", [
    lambda p: export_curves_csv([("run 1", np.ones(3, np.float32), 1)], p),
    lambda p: export_sweep_csv(SweepResult(SweepSpec()), p),
    lambda p: export_ladder_csv([], p),
], ids=["curves", "sweep", "ladder"])
def test_every_csv_export_follows_the_policy(live_store, tmp_path, write) -> None:
    path, ids = live_store
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    assert "FIFO" in refused(fifo, write)
    assert "runs store" in refused(path, write)
    assert_store_intact(path, ids)


# --- CSV cells ---------------------------------------------------------------------------

@pytest.mark.parametrize(("cell", "written"), [
    ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"),
    ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
    ("-2+3", "'-2+3"),
    ("@SUM(A1)", "'@SUM(A1)"),
    ("\tlead", "lead"),
    ("\r=1+1", "'=1+1"),
    ("\t\r\n-2+3", "'-2+3"),
    ("\x1b]0;pwned\x07run\x1b[2J", "]0;pwnedrun[2J"),
    ("\u202eevil.csv", "evil.csv"),
    ("a\x00b\x9bc", "abc"),
    ("-0.5", "-0.5"),
    ("+3", "+3"),
    ("1e-05", "1e-05"),
    ("-1.5E+07", "-1.5E+07"),
    ("-inf", "-inf"),
    ("plain", "plain"),
    ("a=b", "a=b"),
    ("", ""),
    (-0.5, -0.5),
    (-3, -3),
    (None, None),
])
def test_spreadsheet_safe(cell, written) -> None:
    assert files.spreadsheet_safe(cell) == written


def test_the_runs_csv_neutralises_formulas_and_keeps_numbers(store, make_result, tmp_path):
    env = EnvRecord(torch_version="2.13.0", device="cpu", device_name="@evil", threads=1,
                    cpu_model="+SUM(1,2)", os="Linux\x1b]0;pwned\x07-6\u202e", python="3.11.7",
                    execution="worker")
    failed = store.save(make_result(
        status=RunStatus.FAILED, message='=HYPERLINK("http://evil","click")', env=env,
        final_loss=math.nan))
    store.save_breakdown(failed, {"categories": {"forward": 1.0}, "profiler_overhead_pct": -1.5,
                                  "sync_cost_pct": -2.5e-07})
    plain = store.save(make_result(message="-5"))
    target = tmp_path / "runs.csv"
    export_runs_csv(store.list_runs(), target)
    rows = {int(row["id"]): row for row in read_rows(target)}
    bad = rows[failed]
    assert bad["message"] == '\'=HYPERLINK("http://evil","click")'
    assert bad["device_name"] == "'@evil" and bad["cpu_model"] == "'+SUM(1,2)"
    assert bad["os"] == "Linux]0;pwned-6"  # the escape, the bell and the override dropped
    assert bad["explain_profiler_overhead_pct"] == "-1.5"
    assert float(bad["explain_sync_cost_pct"]) == -2.5e-07
    assert bad["explain_sync_cost_pct"] == "-2.5e-07"
    assert rows[plain]["message"] == "-5"  # a number as text is data
    assert rows[plain]["lr"] == "0.05" and rows[plain]["device_name"] == "Test CPU"


def test_the_sweep_csv_neutralises_formulas(tmp_path) -> None:
    points = [SweepPoint("cpu", "eager", 1, 150, 10, "failed", message="=1+1"),
              SweepPoint("cpu", "eager", 1, 300, 10, "skipped", message="-0.25")]
    target = tmp_path / "sweep.csv"
    export_sweep_csv(SweepResult(SweepSpec(), points=points).analyse(), target)
    first, second = read_rows(target)
    assert first["message"] == "'=1+1" and second["message"] == "-0.25"


def test_the_ladder_csv_neutralises_formulas(tmp_path) -> None:
    row = LadderRow(device="cpu", device_name="-x", engine="eager", label="@label",
                    framework=True, record="device", status="failed", epoch_us=math.nan,
                    epoch_us_iqr=math.nan, noisy=False, speedup=-0.5, compile_seconds=0.0,
                    curve_deviation=math.nan, final_loss=0.5, message="=cmd")
    target = tmp_path / "ladder.csv"
    export_ladder_csv([row], target)
    (written,) = read_rows(target)
    assert (written["device_name"], written["label"], written["message"]) == (
        "'-x", "'@label", "'=cmd")
    assert written["speedup"] == "-0.5" and written["engine"] == "eager"


def test_the_curves_csv_neutralises_a_label_and_keeps_the_values(tmp_path) -> None:
    target = tmp_path / "curves.csv"
    export_curves_csv([("=run", np.array([-0.5, 1e-7], np.float32), 1), ("run 2",
                       np.array([0.25], np.float32), 1)], target)
    with open(target, newline="", encoding="utf-8-sig") as handle:
        header, *rows = list(csv.reader(handle))
    assert header == ["epoch", "'=run", "run 2"]
    assert rows == [["0", "-0.5", "0.25"], ["1", "1e-07", ""]]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="needs a non-root user (root may write any file)")
def test_a_read_only_file_is_refused_and_kept(tmp_path) -> None:
    target = tmp_path / "kept.csv"
    target.write_text("old\n")
    target.chmod(0o444)
    with pytest.raises(StoreError, match=rf"^cannot write {target}: Permission denied"):
        export_runs_csv([], target)
    assert target.read_text() == "old\n"
