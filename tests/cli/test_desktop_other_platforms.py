"""``--install-desktop`` / ``--uninstall-desktop`` where there is no freedesktop menu (mocked
platforms): on Windows a Start-menu shortcut made by Windows' shell object through PowerShell,
removed only when it points at an iris-gui, and a bundle's shortcut starting its windowed
program; on macOS one line saying there is nothing to install (a bundle's .app: that it is an
app already), and nothing written."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.cli import run_cli

from iris_gui.cli import desktop_cmd, start_menu


@pytest.fixture
def windows(monkeypatch, tmp_path):
    """Windows as the command sees it; PowerShell stood in for by a function that makes the
    shortcut as WScript.Shell would (its target's path in UTF-16), and records its call."""
    calls = []

    def powershell(argv, env, **kwargs):
        calls.append((argv, {k: v for k, v in env.items()
                             if k in ("IRIS_GUI_LNK", "IRIS_GUI_TARGET", "IRIS_GUI_ARGS")}))
        link = start_menu.Path(env["IRIS_GUI_LNK"])
        link.write_bytes(b"L\0\0\0" + env["IRIS_GUI_TARGET"].encode("utf-16-le"))
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("APPDATA", str(tmp_path / "Roaming"))
    monkeypatch.setattr(start_menu.subprocess, "run", powershell)
    monkeypatch.setattr(desktop_cmd, "launcher",
                        lambda: [r"C:\Users\ada\.venv\Scripts\iris-gui.exe"])
    return calls


def test_windows_gets_a_start_menu_shortcut_and_loses_it_again(windows, tmp_path):
    done = run_cli(["--install-desktop"], tmp_path / "data")
    link = (tmp_path / "Roaming" / "Microsoft" / "Windows" / "Start Menu" / "Programs"
            / "iris-gui.lnk")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (f"installed the Start-menu shortcut {link} (it starts "
                                   r"C:\Users\ada\.venv\Scripts\iris-gui.exe)")
    ((argv, env),) = windows
    assert argv[:3] == ["powershell", "-NoProfile", "-NonInteractive"]
    assert env == {"IRIS_GUI_LNK": str(link),
                   "IRIS_GUI_TARGET": r"C:\Users\ada\.venv\Scripts\iris-gui.exe",
                   "IRIS_GUI_ARGS": ""}
    assert not (tmp_path / "xdg").exists()  # no Linux entry
    gone = run_cli(["--uninstall-desktop"], tmp_path / "data")
    assert gone.stdout.strip() == f"removed the Start-menu shortcut {link}"
    assert not link.exists()


def test_a_shortcut_not_made_by_iris_gui_is_left(windows, tmp_path):
    link = start_menu.shortcut_path()
    link.parent.mkdir(parents=True)
    link.write_bytes(b"L\0\0\0" + r"C:\Games\other.exe".encode("utf-16-le"))
    done = run_cli(["--uninstall-desktop"], tmp_path / "data")
    assert done.stdout.strip() == f"left {link}: it was not made by iris-gui"
    assert link.exists()


def test_a_failing_powershell_is_one_line(monkeypatch, windows, tmp_path):
    monkeypatch.setattr(start_menu.subprocess, "run", lambda argv, **kwargs:
                        subprocess.CompletedProcess(argv, 1, "", "Access is denied.\n"))
    done = run_cli(["--install-desktop"], tmp_path / "data")
    assert done.returncode == 1
    assert done.stderr.endswith("iris-gui.lnk: Access is denied.\n")
    assert done.stderr.count("\n") == 1


def test_macos_says_there_is_nothing_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    for flag in ("--install-desktop", "--uninstall-desktop"):
        done = run_cli([flag], tmp_path / "data")
        assert done.returncode == 2
        assert done.stderr == f"iris-gui: error: {desktop_cmd.ON_MACOS}\n"
    assert not (tmp_path / "xdg").exists()


def test_the_windows_bundles_shortcut_starts_its_windowed_program(monkeypatch, tmp_path):
    """Frozen on Windows (simulated): the shortcut's target is iris-gui-window.exe beside the
    CLI, so no console opens behind the window; a bundle without it falls back to the CLI."""
    folder = tmp_path / "iris-gui"
    folder.mkdir()
    (folder / "iris-gui.exe").touch()
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(folder / "iris-gui.exe"))
    assert desktop_cmd.launcher() == [str(folder / "iris-gui.exe")]
    (folder / desktop_cmd.WINDOW_PROGRAM).touch()
    assert desktop_cmd.launcher() == [str(folder / "iris-gui-window.exe")]


def test_a_macos_app_says_it_is_an_app_already(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable",
                        str(tmp_path / "iris-gui.app" / "Contents" / "MacOS" / "iris-gui"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    done = run_cli(["--install-desktop"], tmp_path / "data")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == f"{desktop_cmd.IN_APP}\n"
    assert not (tmp_path / "xdg").exists()
