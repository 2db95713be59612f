"""build.spec run as PyInstaller runs it, with PyInstaller's build classes stood in for by
recorders, once per platform (sys.platform simulated): what each platform's bundle is made of.
Only Linux's bundle is built here (``make test-bundle``); Windows' and macOS' are checked by
this simulation alone."""

from __future__ import annotations

import runpy
import sys
import types
from pathlib import Path
from typing import ClassVar

import pytest

from iris_gui.cli.desktop_cmd import WINDOW_PROGRAM

ROOT = Path(__file__).resolve().parents[1]


class Recorded:
    """One PyInstaller target: its positional and keyword arguments, kept for the test."""

    made: ClassVar[list[Recorded]] = []

    def __init__(self, *args, **kwargs) -> None:
        self.args, self.kwargs = args, kwargs
        self.name = kwargs.get("name", "")
        Recorded.made.append(self)


class Analysis(Recorded):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.pure, self.scripts, self.binaries, self.datas = [], ["main"], [], []


class PYZ(Recorded): ...


class EXE(Recorded): ...


class COLLECT(Recorded): ...


class BUNDLE(Recorded): ...


def built(platform: str, monkeypatch, tmp_path) -> dict[str, list[Recorded]]:
    """The targets build.spec makes on ``platform``, by kind."""
    hooks = types.ModuleType("PyInstaller.utils.hooks")
    hooks.collect_data_files = lambda *args, **kwargs: []
    for name in ("PyInstaller", "PyInstaller.utils"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "PyInstaller.utils.hooks", hooks)
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the spec puts its folder first
    monkeypatch.setattr(Recorded, "made", [])
    spec = {"SPECPATH": str(ROOT), "DISTPATH": str(tmp_path),
            **{kind.__name__: kind for kind in (Analysis, PYZ, EXE, COLLECT, BUNDLE)}}
    runpy.run_path(str(ROOT / "build.spec"), init_globals=spec)
    kinds: dict[str, list[Recorded]] = {}
    for target in Recorded.made:
        kinds.setdefault(type(target).__name__, []).append(target)
    return kinds


def programs(kinds) -> list[tuple[str, bool]]:
    """The collected programs, in the folder's order: (name, has a console)."""
    (collect,) = kinds["COLLECT"]
    return [(a.name, a.kwargs["console"]) for a in collect.args if isinstance(a, EXE)]


def test_linux_gets_one_program_the_cli_that_opens_the_window(monkeypatch, tmp_path):
    kinds = built("linux", monkeypatch, tmp_path)
    assert programs(kinds) == [("iris-gui", True)] and "BUNDLE" not in kinds


def test_windows_gets_the_cli_and_a_windowed_program_beside_it(monkeypatch, tmp_path):
    kinds = built("win32", monkeypatch, tmp_path)
    assert programs(kinds) == [("iris-gui", True), ("iris-gui-window", False)]
    assert "BUNDLE" not in kinds
    assert WINDOW_PROGRAM == "iris-gui-window.exe"  # what the Start-menu shortcut starts
    assert all(exe.kwargs["icon"] for exe in kinds["EXE"]) or not _has_pillow()


def test_macos_gets_an_app_that_starts_the_windowed_program(monkeypatch, tmp_path):
    kinds = built("darwin", monkeypatch, tmp_path)
    # A .app's program is the first of its folder (PyInstaller's BUNDLE): the windowed one.
    assert programs(kinds) == [("iris-gui-window", False), ("iris-gui", True)]
    (app,) = kinds["BUNDLE"]
    assert app.args == tuple(kinds["COLLECT"]) and app.name == "iris-gui.app"
    assert app.kwargs["bundle_identifier"] == "io.github.iris-gui"
    info = app.kwargs["info_plist"]
    assert info["NSHighResolutionCapable"] is True and info["CFBundleDisplayName"] == "iris-gui"


def _has_pillow() -> bool:
    try:
        import PIL  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(autouse=True)
def _numba_present():
    pytest.importorskip("numba", reason="build.spec stops without numba (the native engine)")
