"""build.spec and pyproject.toml, read statically (no build): what the bundle leaves out and
what the wheel carries."""

from __future__ import annotations

import ast
import fnmatch
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ALL_TRIMS = {"modules", "tests", "torchdev", "qt", "strip"}

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10 has no tomllib; the bundle's check still runs
    tomllib = None


def spec_lists() -> tuple[dict[str, list[str]], ast.expr]:
    """The spec's literal module lists, and the expression it passes Analysis as excludes."""
    tree = ast.parse((ROOT / "build.spec").read_text())
    lists: dict[str, list[str]] = {}
    excludes = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List):
            target = node.targets[0]
            if isinstance(target, ast.Name):
                try:
                    lists[target.id] = ast.literal_eval(node.value)
                except ValueError:
                    continue
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Analysis":
            excludes = next(k.value for k in node.keywords if k.arg == "excludes")
    assert excludes is not None, "build.spec passes Analysis no excludes="
    return lists, excludes


def excluded(trims: set[str]) -> list[str]:
    lists, expression = spec_lists()
    code = compile(ast.Expression(expression), "build.spec", "eval")
    return eval(code, {**lists, "TRIMS": trims})


@pytest.mark.parametrize("trims", [set(), ALL_TRIMS], ids=["IRIS_GUI_BUNDLE_TRIM=none", "all"])
def test_triton_never_enters_the_bundle(trims):
    # A venv that ran `make test-kernels` has triton; bundled, it made the folder 1.9 GB.
    assert "triton" in excluded(trims)


def test_what_the_app_imports_is_not_excluded():
    # sympy: importing the compiled rung imports torch._dynamo, which imports sympy; numba:
    # the native engine. Excluding either breaks the frozen app, not the build.
    for trims in (set(), ALL_TRIMS):
        names = excluded(trims)
        assert not {"sympy", "mpmath", "numba", "llvmlite", "scipy", "torch"} & set(names)


def test_the_bundle_carries_the_icon_where_the_app_looks():
    lists, _ = spec_lists()
    datas = dict(lists["datas"])
    assert datas.get("iris_gui/resources/icons") == "iris_gui/resources/icons"
    assert all((ROOT / source).exists() for source in datas), datas
    assert "icon=EXE_ICON" in (ROOT / "build.spec").read_text()


@pytest.mark.skipif(tomllib is None, reason="tomllib needs Python 3.11")
def test_pyproject_license_is_an_spdx_string_and_the_wheel_carries_the_resources():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "MIT"
    patterns = project["tool"]["setuptools"]["package-data"]["iris_gui"]
    package = ROOT / "iris_gui"
    shipped = [p.relative_to(package).as_posix() for p in (package / "resources").rglob("*")
               if p.is_file() and p.suffix in (".png", ".svg", ".desktop")]
    assert {"resources/icons/iris-gui.svg", "resources/iris-gui.desktop"} <= set(shipped)
    missing = [f for f in shipped if not any(fnmatch.fnmatch(f, p) for p in patterns)]
    assert missing == [], f"not in [tool.setuptools.package-data]: {missing}"
