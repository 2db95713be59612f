"""Where the store lives."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from iris_gui.store.paths import DATA_DIR_ENV, StoreError, data_dir, default_db_path
from iris_gui.store.runs import RunStore


def test_env_var_is_honoured_and_created(data_dir_env: Path):
    assert not data_dir_env.exists()
    assert default_db_path() == data_dir_env / "runs.sqlite3"
    assert data_dir_env.is_dir()


def test_platformdirs_when_env_var_unset(tmp_path, monkeypatch):
    calls = []

    def fake_user_data_dir(name, appauthor=None):
        calls.append((name, appauthor))
        return str(tmp_path / "platform")

    monkeypatch.delenv(DATA_DIR_ENV)
    monkeypatch.setattr(platformdirs, "user_data_dir", fake_user_data_dir)
    assert data_dir() == tmp_path / "platform"
    assert calls == [("iris-gui", False)]
    assert (tmp_path / "platform").is_dir()


def test_empty_env_var_means_unset(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_DIR_ENV, "")
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda *a, **k: str(tmp_path / "p"))
    assert data_dir() == tmp_path / "p"


def test_open_without_path_uses_the_data_dir(data_dir_env: Path):
    with RunStore.open() as store:
        assert store.path == data_dir_env / "runs.sqlite3"
    assert (data_dir_env / "runs.sqlite3").is_file()


def test_unusable_data_dir_is_a_store_error(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv(DATA_DIR_ENV, str(blocker / "data"))
    with pytest.raises(StoreError, match=rf"cannot create the data directory .*\(from {DATA_DIR_ENV}\)"):
        data_dir()
