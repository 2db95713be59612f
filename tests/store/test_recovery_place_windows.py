"""The temporary recovery folder on Windows, simulated here: Windows reports every folder as
mode 0o777 and has no uid, so privacy is the user's profile (its access list), never the
mode bits. A folder in the profile is read; one in a shared ``TEMP`` or reached through a
link out of the profile is not."""

from __future__ import annotations

import os
import tempfile

import pytest

from iris_gui.store import recovery_places
from iris_gui.store.recovery_places import RECOVERED_DIR, store_key, waiting


@pytest.fixture
def windows_like(monkeypatch, tmp_path):
    """No uid (as on Windows), the user ``learner``, and a function that puts the temporary
    folder at ``temp``, its iris-gui folder in Windows' mode, holding one kept run."""
    monkeypatch.delattr(os, "getuid", raising=False)
    monkeypatch.setenv("USERNAME", "learner")
    store = tmp_path / "data" / "runs.sqlite3"
    store.parent.mkdir()

    def temporary_at(temp):
        monkeypatch.setattr(tempfile, "tempdir", str(temp))
        kept = temp / "iris-gui-learner" / RECOVERED_DIR
        kept.mkdir(parents=True, exist_ok=True)
        os.chmod(kept.parent, 0o777)  # what Windows reports for any folder
        name = f"run-1-{store_key(store)}.json"
        (kept / name).write_text("{}")
        return name

    return store, temporary_at


def test_a_temporary_folder_in_the_users_profile_is_private(windows_like, tmp_path,
                                                           monkeypatch):
    store, temporary_at = windows_like
    profile = tmp_path / "Users" / "learner"
    monkeypatch.setenv("USERPROFILE", str(profile))
    name = temporary_at(profile / "AppData" / "Local" / "Temp")
    assert [path.name for path in waiting(store)] == [name]


def test_a_shared_temp_folder_or_one_linked_out_of_the_profile_is_not(windows_like, tmp_path,
                                                                     monkeypatch):
    store, temporary_at = windows_like
    profile = tmp_path / "Users" / "learner"
    profile.mkdir(parents=True)
    monkeypatch.setenv("USERPROFILE", str(profile))
    temporary_at(tmp_path / "Temp")  # TEMP=C:\Temp, shared by every user
    assert waiting(store) == []
    (profile / "Temp").symlink_to(tmp_path / "Temp", target_is_directory=True)
    temporary_at(profile / "Temp")  # in the profile by name, elsewhere in fact
    assert waiting(store) == []
    monkeypatch.delenv("USERPROFILE")
    temporary_at(profile / "AppData")
    assert waiting(store) == []  # no profile known: nothing is private


def test_a_junction_is_never_private(tmp_path, monkeypatch):
    monkeypatch.setenv("USERPROFILE", str(tmp_path))
    folder = tmp_path / "Temp"
    folder.mkdir()
    assert recovery_places._private_on_windows(folder, 0)
    assert not recovery_places._private_on_windows(folder, 0x400)  # a reparse point
