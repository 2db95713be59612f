"""Every file the product opens by descriptor is opened as bytes on Windows (O_BINARY):
without it Windows' C runtime turns CR-LF into LF and ends a read at a 0x1A byte, so a CSV's
size and SHA-256 would differ from the file's, and a write would make LF into CR-LF.

Simulated: Linux has no O_BINARY, so the flag is given a value here, each os.open is checked
for it and passes on without it."""

from __future__ import annotations

import os

import pytest

from iris_gui.engine.data.csv_data import read_csv_data
from iris_gui.engine.remote.hosts import load_hosts
from iris_gui.store import recovery_places
from iris_gui.store.files import write_atomically

O_BINARY = 0x8000  # Windows' value


@pytest.fixture
def opens(monkeypatch):
    """The paths os.open was asked for, each with whether O_BINARY was in its flags."""
    seen: list[tuple[str, bool]] = []
    real = os.open

    def checked(path, flags, *args, **kwargs):
        seen.append((os.path.basename(path), bool(flags & O_BINARY)))
        return real(path, flags & ~O_BINARY, *args, **kwargs)

    monkeypatch.setattr(os, "O_BINARY", O_BINARY, raising=False)
    monkeypatch.setattr(os, "open", checked)
    return seen


def test_a_csv_a_hosts_list_an_export_and_a_recovered_run_open_as_bytes(opens, tmp_path):
    csv = tmp_path / "flowers.csv"
    csv.write_bytes(b"a,b,label\r\n1,2,x\r\n3,4,y\r\n5,6,x\r\n7,8,y\r\n")
    read_csv_data(str(csv))
    hosts = tmp_path / "hosts.json"
    hosts.write_text('{"hosts": []}')
    load_hosts(hosts)
    export = tmp_path / "runs.csv"
    export.write_bytes(b"old")
    os.link(export, tmp_path / "elsewhere.csv")  # a hard-linked export is written in place
    write_atomically(export, b"id\n1\n")
    recovery_places._write(tmp_path / "run-1.json", b"{}\n")
    assert sorted(name for name, _ in opens) == sorted(
        ["flowers.csv", "hosts.json", "runs.csv", "run-1.json.tmp"])
    assert all(binary for _, binary in opens), opens
