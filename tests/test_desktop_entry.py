"""``iris-gui --install-desktop`` / ``--uninstall-desktop`` through a subprocess, with
XDG_DATA_HOME and HOME in the test's temporary folder."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from iris_gui.cli.desktop_cmd import exec_value
from iris_gui.resources import ICON_SIZES, ICON_SVG, icon_png

IRIS = [sys.executable, "-m", "iris_gui"]
ENTRY_KEYS = {"Type": "Application", "Name": "iris-gui", "Icon": "iris-gui",
              "Categories": "Education;Science;Development;", "Terminal": "false",
              "StartupWMClass": "iris-gui"}


def run(tmp_path: Path, *args: str, xdg: str | None = None, argv=None):
    env = dict(os.environ, HOME=str(tmp_path / "home"),
               IRIS_GUI_DATA_DIR=str(tmp_path / "data"))
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg") if xdg is None else xdg
    return subprocess.run(argv or [*IRIS, *args], capture_output=True, text=True, env=env,
                          timeout=180, check=False)


def read_entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    return dict(parser["Desktop Entry"])


def exec_argv(value: str) -> list[str]:
    """The Desktop Entry spec's reading of Exec=: the string escapes (\\\\ is one backslash),
    then arguments split at spaces, where a double-quoted one has \\ before " ` $ and \\,
    then %% is a percent sign. (shlex differs: inside quotes it keeps the \\ before $ and `.)"""
    text, args, current, quoted, i = value.replace("\\\\", "\\"), [], "", False, 0
    while i < len(text):
        char = text[i]
        if quoted and char == "\\" and text[i + 1] in '"`$\\':
            current, i = current + text[i + 1], i + 2
            continue
        if char == '"':
            quoted = not quoted
        elif char == " " and not quoted:
            args.append(current)
            current = ""
        else:
            current += char
        i += 1
    return [arg.replace("%%", "%") for arg in [*args, current]]


def installed_icons(root: Path) -> list[Path]:
    hicolor = root / "icons" / "hicolor"
    return [hicolor / f"{s}x{s}" / "apps" / "iris-gui.png" for s in ICON_SIZES] + \
        [hicolor / "scalable" / "apps" / "iris-gui.svg"]


def test_install_writes_a_valid_entry_that_starts_this_iris_gui(tmp_path):
    done = run(tmp_path, "--install-desktop")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert len(done.stdout.splitlines()) == 1 and done.stdout.startswith("installed ")
    xdg = tmp_path / "xdg"
    entry = read_entry(xdg / "applications" / "iris-gui.desktop")
    assert {key: entry.get(key) for key in ENTRY_KEYS} == ENTRY_KEYS
    argv = exec_argv(entry["Exec"])
    assert Path(argv[0]).is_absolute() and os.access(argv[0], os.X_OK)
    version = subprocess.run([*argv, "--version"], capture_output=True, text=True, timeout=180,
                             check=False)
    assert version.returncode == 0 and version.stdout.startswith("iris-gui "), version.stderr
    icons = installed_icons(xdg)
    sources = [icon_png(s) for s in ICON_SIZES] + [ICON_SVG]
    assert [p.read_bytes() for p in icons] == [s.read_bytes() for s in sources]
    assert not (tmp_path / "home").exists(), "nothing is written outside XDG_DATA_HOME"


def test_a_relative_xdg_data_home_is_ignored_as_the_spec_says(tmp_path):
    done = run(tmp_path, "--install-desktop", xdg="relative/share")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "home/.local/share/applications/iris-gui.desktop").is_file()


def test_uninstall_removes_what_install_wrote_and_nothing_else(tmp_path):
    xdg = tmp_path / "xdg"
    foreign = [xdg / "applications" / "other.desktop",
               xdg / "icons" / "hicolor" / "48x48" / "apps" / "other.png"]
    for path in foreign:
        path.parent.mkdir(parents=True)
        path.write_text("not ours")
    assert run(tmp_path, "--install-desktop").returncode == 0
    replaced = installed_icons(xdg)[0]
    replaced.write_bytes(b"the user's own 16 px icon")
    done = run(tmp_path, "--uninstall-desktop")
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 1, done.stderr
    assert "removed the desktop entry and 6 icons" in done.stdout
    assert f"left 1 not written by iris-gui: {replaced}" in done.stdout
    assert not (xdg / "applications" / "iris-gui.desktop").exists()
    remaining = sorted(str(p) for p in xdg.rglob("*") if p.is_file())
    assert remaining == sorted(map(str, [*foreign, replaced]))
    again = run(tmp_path, "--uninstall-desktop")
    assert again.returncode == 0
    assert again.stdout.startswith(f"removed nothing under {xdg}; left 1 not written by")
    assert replaced.is_file()


def test_uninstall_leaves_an_entry_it_did_not_write(tmp_path):
    entry = tmp_path / "xdg" / "applications" / "iris-gui.desktop"
    entry.parent.mkdir(parents=True)
    entry.write_text("[Desktop Entry]\nType=Application\nName=mine\nExec=true\n")
    done = run(tmp_path, "--uninstall-desktop")
    assert done.returncode == 0 and entry.is_file()
    assert "left 1 not written by iris-gui" in done.stdout


def test_nothing_to_uninstall_says_so(tmp_path):
    done = run(tmp_path, "--uninstall-desktop")
    assert done.returncode == 0
    assert done.stdout.strip() == f"nothing to remove: no iris-gui desktop entry or icon " \
                                  f"under {tmp_path / 'xdg'}"


def test_an_unwritable_folder_is_one_line_and_exit_1(tmp_path):
    (tmp_path / "blocker").write_text("a file where a folder should be")
    done = run(tmp_path, "--install-desktop", xdg=str(tmp_path / "blocker" / "share"))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("iris-gui: error: cannot install the desktop entry: ")
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_command_beside_the_flag_is_one_line_and_exit_2(tmp_path):
    done = run(tmp_path, "--install-desktop", "devices")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "--install-desktop takes no command" in done.stderr


def test_install_imports_no_qt(tmp_path):
    code = ("import sys; from iris_gui.cli import main; status = main(['--install-desktop']); "
            "sys.exit(3 if any(m.startswith('PySide6') for m in sys.modules) else status)")
    done = run(tmp_path, argv=[sys.executable, "-c", code])
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("argv", [
    ["/opt/my apps/iris-gui"],
    ["/x/python", "-m", "iris_gui"],
    ['/weird "q" $HOME `x` \\back\\slash/100%/iris-gui'],
])
def test_exec_quoting_round_trips(argv):
    assert exec_argv(exec_value(argv)) == argv


def test_desktop_file_validate_accepts_the_entry(tmp_path):
    validator = shutil.which("desktop-file-validate")
    if validator is None:
        pytest.skip("desktop-file-validate is not installed (desktop-file-utils)")
    assert run(tmp_path, "--install-desktop").returncode == 0
    done = subprocess.run([validator, str(tmp_path / "xdg/applications/iris-gui.desktop")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # Hints pass: the three main categories are the ones asked for.
    assert not [line for line in done.stdout.splitlines() if ": hint: " not in line]


def test_the_suites_watch_covers_what_install_writes(tmp_path, monkeypatch):
    """tests/support/isolation.py snapshots the user's real locations; the entry and icons are among
    them, so a test that wrote to the real ~/.local/share fails the run."""
    from support.isolation import real_locations

    from iris_gui.cli.desktop_cmd import DESKTOP_NAME, data_home, icon_targets

    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "share")}
    monkeypatch.setenv("XDG_DATA_HOME", env["XDG_DATA_HOME"])
    written = [data_home() / "applications" / DESKTOP_NAME,
               *(target for _source, target in icon_targets(data_home()))]
    assert set(written) <= set(real_locations(env))
