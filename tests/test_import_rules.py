"""The house's rules, as tests over the package's imports.

Every ``import`` and ``from ... import`` in ``iris_gui`` counts, at any depth: inside a function,
under ``TYPE_CHECKING``, lazy or not. A lazy import is still an arrow in the design, and a
circle drawn with one is still a circle. The rules:

- ``engine`` imports nothing of ours above it; ``store`` only ``engine``.
- ``figures`` (static pictures and the one export routine) imports nothing of ``ui``: no
  panel, no presenter, not the window's chrome.
- ``report`` and ``cli`` import no panel, and ``api`` (the Python API) nothing of ``ui``:
  every picture they write is drawn by ``figures``. Only the package's top imports ``api``.
- ``ui``'s top folder holds only the app's start and the main window.
- The engine's top holds only folders. Its record folders (``spec``, ``data``, ``records``,
  ``timing``, ``words``) import none of its training side (``train``, ``rungs``, ``kernels``,
  ``explain``, ``sweep``) nor its workers, and import with torch blocked, as do the workers;
  ``ui``, ``store``, ``figures`` and ``report`` never import the training side (so that the
  window never imports torch is a rule, not only an observation of one run); the training side
  imports no worker and nothing remote.
- The window's views are one folder each under ``ui/panels``: no view imports another's, and
  the shared widgets and the samples import no view.
- No import circle anywhere.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "iris_gui"
ENGINE = "iris_gui.engine"
RECORD_FOLDERS = ("spec", "data", "records", "timing", "words")
TRAINING_SIDE = ("train", "rungs", "kernels", "explain", "sweep", "models", "ceilings",
                 "parallel")

def module_files(root: Path = PACKAGE) -> dict[str, Path]:
    found = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def import_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of ours it imports (a ``from pkg import mod`` counts as ``mod``)."""
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # "from pkg import mod" imports mod; "from mod import name" imports mod.
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in files
                           else node.module for a in node.names]
            else:
                continue
            graph[name].update(t for t in targets if t in files and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: strongly connected groups of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def arrows(graph: dict[str, set[str]], source: str, target: str) -> list[tuple[str, str]]:
    """The imports from modules under ``source`` to modules under ``target``."""
    def under(name: str, prefix: str) -> bool:
        return name == prefix or name.startswith(prefix + ".")

    return sorted((a, b) for a, targets in graph.items() if under(a, source)
                  for b in targets if under(b, target))


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(module_files())


@pytest.mark.parametrize("below, above", [
    ("iris_gui.engine", "iris_gui.store"), ("iris_gui.engine", "iris_gui.ui"),
    ("iris_gui.engine", "iris_gui.cli"), ("iris_gui.engine", "iris_gui.report"),
    ("iris_gui.engine", "iris_gui.figures"),
    ("iris_gui.store", "iris_gui.ui"), ("iris_gui.store", "iris_gui.cli"),
    ("iris_gui.store", "iris_gui.report"), ("iris_gui.store", "iris_gui.figures"),
])
def test_engine_and_store_import_nothing_above_them(graph, below, above) -> None:
    assert arrows(graph, below, above) == []


def test_figures_import_nothing_of_ui(graph) -> None:
    assert arrows(graph, "iris_gui.figures", "iris_gui.ui") == []


@pytest.mark.parametrize("wing", ["iris_gui.report", "iris_gui.cli", "iris_gui.api"])
def test_report_cli_and_api_import_no_panel(graph, wing) -> None:
    banned = "iris_gui.ui" if wing == "iris_gui.api" else "iris_gui.ui.panels"
    assert arrows(graph, wing, banned) == []


def test_nothing_imports_the_api_but_the_packages_top(graph) -> None:
    importers = {a for a, _ in arrows(graph, "iris_gui", "iris_gui.api")}
    assert {a for a in importers if not a.startswith("iris_gui.api")} == {"iris_gui"}


def test_nothing_imports_a_presenter_but_the_main_window_and_presenters(graph) -> None:
    importers = {a for a, _ in arrows(graph, "iris_gui", "iris_gui.ui.presenters")}
    assert {a for a in importers if not a.startswith("iris_gui.ui.presenters")} == {
        "iris_gui.ui.main_window"}


def test_the_top_of_ui_holds_only_the_app_start_and_the_main_window() -> None:
    top = sorted(p.name for p in (PACKAGE / "ui").glob("*.py"))
    assert top == ["__init__.py", "app.py", "main_window.py"]


def test_no_import_circle_anywhere(graph) -> None:
    assert cycles(graph) == []


def test_the_checker_sees_a_circle_and_a_broken_rule(tmp_path) -> None:
    """The rules above are only as good as the graph: on a made-up package with a circle and
    an engine module importing ui, both are found."""
    root = tmp_path / "iris_gui"
    for name, text in {
        "__init__.py": "", "engine/__init__.py": "", "ui/__init__.py": "",
        "engine/a.py": "def f():\n    from iris_gui.ui import b\n",
        "ui/b.py": "from iris_gui.engine.a import f\n",
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    made = import_graph(module_files(root))
    assert cycles(made) == [["iris_gui.engine.a", "iris_gui.ui.b"]]
    assert arrows(made, "iris_gui.engine", "iris_gui.ui") == [("iris_gui.engine.a", "iris_gui.ui.b")]


def test_the_top_of_the_engine_holds_only_folders() -> None:
    top = sorted(p.name for p in (PACKAGE / "engine").glob("*.py"))
    assert top == ["__init__.py"]


@pytest.mark.parametrize("folder", RECORD_FOLDERS)
@pytest.mark.parametrize("other", [*TRAINING_SIDE, "workers", "remote"])
def test_the_record_folders_import_nothing_that_trains(graph, folder, other) -> None:
    assert arrows(graph, f"{ENGINE}.{folder}", f"{ENGINE}.{other}") == []


@pytest.mark.parametrize("wing", ["iris_gui.ui", "iris_gui.store", "iris_gui.figures",
                                  "iris_gui.report"])
@pytest.mark.parametrize("side", TRAINING_SIDE)
def test_the_window_store_figures_and_report_never_import_the_training_side(graph, wing,
                                                                             side) -> None:
    assert arrows(graph, wing, f"{ENGINE}.{side}") == []


@pytest.mark.parametrize("side", TRAINING_SIDE)
@pytest.mark.parametrize("other", ["workers", "remote"])
def test_the_training_side_imports_no_worker_and_nothing_remote(graph, side, other) -> None:
    assert arrows(graph, f"{ENGINE}.{side}", f"{ENGINE}.{other}") == []


BLOCKED_IMPORT = """
import importlib, pkgutil, sys

class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ImportError(f"{name} is blocked")

sys.meta_path.insert(0, Blocked())
for folder in sys.argv[1:]:
    package = importlib.import_module(folder)
    for info in pkgutil.walk_packages(package.__path__, folder + "."):
        importlib.import_module(info.name)
print("imported")
"""


def test_the_record_folders_and_the_workers_import_with_torch_blocked() -> None:
    folders = [f"{ENGINE}.{folder}" for folder in (*RECORD_FOLDERS, "workers")]
    done = subprocess.run([sys.executable, "-c", BLOCKED_IMPORT, *folders], capture_output=True,
                          text=True, timeout=120, check=False, cwd=PACKAGE.parent)
    assert done.returncode == 0 and done.stdout.strip() == "imported", done.stderr[-2000:]


def test_no_module_imports_another_modules_private_name() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")) + sorted((PACKAGE.parent / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("iris_gui"):
                found += [f"{path.name}: {node.module}.{alias.name}" for alias in node.names
                          if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert found == []


VIEWS = ("run", "results", "loss_plot", "explain", "ladder", "crossover")


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("other", VIEWS)
def test_one_views_panel_folder_never_imports_anothers(graph, view, other) -> None:
    if view != other:
        assert arrows(graph, f"iris_gui.ui.panels.{view}", f"iris_gui.ui.panels.{other}") == []


@pytest.mark.parametrize("folder", ["shared", "samples"])
@pytest.mark.parametrize("view", VIEWS)
def test_the_shared_widgets_and_the_samples_import_no_view(graph, folder, view) -> None:
    assert arrows(graph, f"iris_gui.ui.panels.{folder}", f"iris_gui.ui.panels.{view}") == []


def test_the_panels_top_holds_only_folders() -> None:
    assert sorted(p.name for p in (PACKAGE / "ui" / "panels").glob("*.py")) == ["__init__.py"]


TESTS = PACKAGE.parent / "tests"


def test_the_tests_share_helpers_through_their_package_only() -> None:
    """Helpers live in tests/support; no test imports another test module, and none edits
    sys.path but the GPU check's, which loads the product's own scripts/gpu_check."""
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and (
                    node.module.startswith("tests.") or node.module.split(".")[-1].startswith(
                        "test_")):
                found.append(f"{path.relative_to(TESTS)} imports {node.module}")
        edits = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and ast.unparse(node.func) in ("sys.path.insert", "sys.path.append")]
        if edits and path.name != "test_gpu_check_script.py":
            found.append(f"{path.relative_to(TESTS)} edits sys.path")
    assert found == []
