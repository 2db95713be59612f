"""What a rung that cannot run says to do about it, in the words of the platform it is on
(mocked platforms): Windows' compiler is MSVC's cl, a Mac's comes with Xcode's tools, and
Triton has no official Windows build."""

from __future__ import annotations

import sys

import pytest
import torch

from iris_gui.engine.rungs import compiled, persistent


@pytest.mark.parametrize(("platform", "looked_for", "advice"), [
    ("linux", ["c++", "g++", "clang++"], "install g++ or clang"),
    ("darwin", ["c++", "g++", "clang++"], "xcode-select --install"),
    ("win32", ["cl"], "Visual Studio Build Tools' C++ workload"),
])
def test_a_missing_compiler_is_named_for_the_platform(monkeypatch, platform, looked_for, advice):
    looked = []
    monkeypatch.setattr(compiled.sys, "platform", platform)
    monkeypatch.setattr(compiled.shutil, "which", lambda name: looked.append(name))
    monkeypatch.setattr(compiled.sys, "frozen", False, raising=False)
    said = compiled.CompiledRung().availability(torch.device("cpu"))
    assert said is not None and said.startswith("torch.compile needs a C++ compiler for the CPU")
    assert advice in said and looked == looked_for


def test_a_missing_triton_on_windows_names_the_communitys_build(monkeypatch):
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setitem(sys.modules, "triton", None)
    said = persistent.PersistentRung().availability(torch.device("cuda"))
    assert "no official Windows build" in said and "pip install triton-windows" in said
    said = compiled.CompiledRung().availability(torch.device("cuda"))
    assert said.endswith("(on Windows the community's build: pip install triton-windows)")
