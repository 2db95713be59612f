"""The suite writes nothing of the user's: every per-user location is redirected into the
session's temporary directory (tests/conftest.py), and the guard that checks the user's real
locations at the end of the run can fail."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import platformdirs
import pytest
from PySide6.QtCore import QSettings
from support.isolation import REDIRECTED, Session, changes, real_locations, snapshot

from iris_gui.store import paths

SESSION_DIR = Session.directory


def inside_session(path: str | Path) -> bool:
    return Path(path).resolve().is_relative_to(SESSION_DIR)


def test_the_session_directory_is_temporary_and_not_the_users():
    assert SESSION_DIR is not None and SESSION_DIR.is_dir()
    assert SESSION_DIR.name.startswith("iris-gui-tests-")
    assert SESSION_DIR.parent == Path(tempfile.gettempdir()).resolve()
    assert Session.real_locations and set(map(str, Session.real_locations)) <= set(
        Session.real_before)
    for location in Session.real_locations:
        assert not inside_session(location), location
    for name in REDIRECTED:
        assert inside_session(os.environ[name]), (name, os.environ[name])
    assert os.environ["HOME"] == str(Path.home()) and not inside_session(Path.home())


def test_qsettings_platformdirs_and_the_store_write_into_the_session_directory(monkeypatch):
    assert inside_session(QSettings("iris-gui", "iris-gui").fileName())
    assert inside_session(platformdirs.user_data_dir("iris-gui", appauthor=False))
    assert inside_session(paths.default_db_path())
    # Without IRIS_GUI_DATA_DIR the store falls back to platformdirs: still inside.
    monkeypatch.delenv(paths.DATA_DIR_ENV)
    assert inside_session(paths.default_db_path())


def test_the_apps_own_folders_are_redirected_on_every_platform():
    # Through iris-gui's own variables, which Windows and macOS honour as Linux does (there
    # the XDG ones mean nothing): the settings (an INI file, not the registry or a plist),
    # the hosts list and the recovery cache.
    from iris_gui.engine.remote.hosts import hosts_path
    from iris_gui.store import recovery_places
    from iris_gui.ui.window.settings import settings_store

    settings = settings_store()
    assert settings.format() == QSettings.Format.IniFormat
    assert inside_session(settings.fileName()) and settings.fileName().endswith("iris-gui.ini")
    assert inside_session(hosts_path())
    assert inside_session(recovery_places._user_cache())


PROBE = """
import json, platformdirs
from PySide6.QtCore import QSettings
from iris_gui.store.paths import default_db_path
print(json.dumps({"settings": QSettings("iris-gui", "iris-gui").fileName(),
                  "data": platformdirs.user_data_dir("iris-gui", appauthor=False),
                  "store": str(default_db_path())}))
"""


def test_a_subprocess_started_with_the_tests_environment_is_redirected_too():
    done = subprocess.run([sys.executable, "-c", PROBE], env=dict(os.environ), timeout=120,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    for name, path in seen.items():
        assert inside_session(path), (name, path)


def test_real_locations_follow_the_original_environment(tmp_path):
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_DATA_HOME": str(tmp_path / "share"), "IRIS_GUI_DATA_DIR": str(tmp_path / "own")}
    found = real_locations(env)
    assert tmp_path / "cfg" / "iris-gui" in found and tmp_path / "cfg" / "iris-gui.conf" in found
    if sys.platform.startswith("linux"):
        assert tmp_path / "share" / "iris-gui" in found
    assert tmp_path / "own" in found
    bare = real_locations({"HOME": str(tmp_path / "home")})
    assert tmp_path / "home" / ".config" / "iris-gui" in bare
    assert not any(inside_session(path) for path in found + bare)


@pytest.fixture
def watched(tmp_path: Path) -> tuple[list[Path], dict]:
    config, data = tmp_path / "config", tmp_path / "data"
    (config / "sub").mkdir(parents=True)
    (config / "iris-gui.conf").write_text("[General]\n")
    (data / "runs.sqlite3").parent.mkdir()
    (data / "runs.sqlite3").write_bytes(b"x" * 10)
    roots = [config, data, tmp_path / "not-yet"]
    return roots, snapshot(roots)


def test_an_untouched_location_is_clean(watched):
    roots, before = watched
    (roots[0] / "iris-gui.conf").read_text()  # reading changes nothing
    assert changes(before, snapshot(roots)) == []


def test_a_created_file_or_folder_is_caught(watched):
    roots, before = watched
    (roots[0] / "sub" / "new.ini").write_text("x")
    roots[2].mkdir()
    assert changes(before, snapshot(roots)) == [
        f"created: {roots[0] / 'sub' / 'new.ini'}", f"created: {roots[2]}"]


def test_a_changed_file_is_caught_by_size_or_time(watched):
    roots, before = watched
    conf, db = roots[0] / "iris-gui.conf", roots[1] / "runs.sqlite3"
    conf.write_text("[General]\ngeometry=1\n")  # a new size
    stat = db.stat()
    os.utime(db, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # same size, new time
    assert changes(before, snapshot(roots)) == [f"changed: {conf}", f"changed: {db}"]


def test_a_deleted_file_or_location_is_caught(watched):
    roots, before = watched
    (roots[1] / "runs.sqlite3").unlink()
    (roots[0] / "sub").rmdir()
    assert changes(before, snapshot(roots)) == [
        f"deleted: {roots[0] / 'sub'}", f"deleted: {roots[1] / 'runs.sqlite3'}"]


INNER_CLEAN = """
from PySide6.QtCore import QSettings
from iris_gui.store.runs import RunStore

def test_writes_only_where_it_is_told():
    settings = QSettings("iris-gui", "iris-gui")
    settings.setValue("geometry", b"offscreen")
    settings.sync()
    with RunStore.open() as store:
        assert store.list_runs() == []
"""

INNER_TOUCHING = """
from pathlib import Path

def test_writes_the_users_settings_file():
    folder = Path.home() / ".config" / "iris-gui"
    folder.mkdir(parents=True)
    (folder / "iris-gui.conf").write_text("[General]\\n")
"""


def _run_inner_suite(tmp_path: Path, name: str, body: str) -> tuple[subprocess.CompletedProcess,
                                                                       Path]:
    """Run a one-test suite under this suite's conftest and a home of its own."""
    suite, home = tmp_path / name, tmp_path / f"{name}-home"
    suite.mkdir()
    home.mkdir()
    here = Path(__file__).parent
    for helper in ("conftest.py", "support/__init__.py", "support/isolation.py",
                   "support/plugin_options.py"):
        (suite / helper).parent.mkdir(exist_ok=True)
        (suite / helper).write_text((here / helper).read_text())
    (suite / f"test_{name}.py").write_text(body)
    env = {k: v for k, v in os.environ.items()
           if k not in REDIRECTED and not k.startswith("PYTEST")}
    env["HOME"] = str(home)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(suite)], cwd=suite, env=env, timeout=180,
                          capture_output=True, text=True, check=False)
    return done, home


def test_the_end_of_session_guard_passes_a_suite_that_stays_inside(tmp_path):
    done, home = _run_inner_suite(tmp_path, "clean", INNER_CLEAN)
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(home.iterdir()) == [], "QSettings and the store wrote into the user's home"


def test_the_end_of_session_guard_fails_a_suite_that_touches_the_users_files(tmp_path):
    done, home = _run_inner_suite(tmp_path, "touching", INNER_TOUCHING)
    assert done.returncode == int(pytest.ExitCode.TESTS_FAILED), done.stdout + done.stderr
    assert "1 passed" in done.stdout, done.stdout  # the test passed; the guard failed the run
    assert "the test run touched the user's own iris-gui files:" in done.stdout
    assert f"created: {home / '.config' / 'iris-gui'}" in done.stdout
    assert f"created: {home / '.config' / 'iris-gui' / 'iris-gui.conf'}" in done.stdout
