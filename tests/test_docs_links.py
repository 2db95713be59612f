"""The README and docs/*.md cannot drift from the project: every relative link (and its anchor)
leads somewhere, the README links every docs page, and every make target, file path,
``iris-gui`` command, option and ``python -m`` module they name exists."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest
from support.markdown_docs import ROOT, Doc, code_lines, docs, heading_anchors

from iris_gui.cli.parser import build_parser

DOCS = docs()
IDS = [doc.name for doc in DOCS]
# Paths the pages name that a build, a download or a run makes, never the repository.
MADE_ELSEWHERE = {
    "dist/iris-gui/": "make bundle's output",
    "dist/iris-gui.app": "build.spec's output on a Mac",
    ".cache/gpu-check/": "the GPU check's compile cache (git-ignored)",
    "icons/hicolor/": "a folder of the user's data directory",
}
TOP = {path.name for path in ROOT.iterdir() if path.is_dir() and not path.name.startswith(".")}
TOP.add(".ci")


def _external(target: str) -> bool:
    return re.match(r"^[a-z][a-z0-9+.-]*:", target) is not None  # https:, mailto:, ...


@pytest.mark.parametrize("doc", DOCS, ids=IDS)
def test_every_relative_link_leads_to_a_file_and_its_anchor(doc: Doc) -> None:
    broken = []
    for link in doc.links():
        if _external(link):
            continue
        target, _, anchor = link.partition("#")
        path = (doc.path.parent / target).resolve() if target else doc.path
        if not path.exists():
            broken.append(f"{link}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in heading_anchors(
                path.read_text(encoding="utf-8")):
            broken.append(f"{link}: no heading #{anchor} in {path.name}")
    assert not broken, f"{doc.name}: " + "; ".join(broken)


def test_the_readme_links_every_docs_page() -> None:
    readme = DOCS[0]
    linked = {(ROOT / link.partition("#")[0]).resolve() for link in readme.links()
              if not _external(link)}
    missing = [p.name for p in sorted((ROOT / "docs").glob("*.md")) if p.resolve() not in linked]
    assert not missing, f"README.md links no page {', '.join(missing)}"


MAKEFILE_TARGETS = set(re.findall(r"^([a-z][\w-]*):(?!=)",
                                  (ROOT / "Makefile").read_text(encoding="utf-8"), flags=re.MULTILINE))


@pytest.mark.parametrize("doc", DOCS, ids=IDS)
def test_every_make_target_named_exists(doc: Doc) -> None:
    named = {target for line in code_lines(doc)
             for target in re.findall(r"(?:^|\s)make ([a-z][\w-]*)", line)}
    assert named <= MAKEFILE_TARGETS, f"{doc.name} names make {sorted(named - MAKEFILE_TARGETS)}"


def _path_words(doc: Doc) -> list[str]:
    """Words of inline code and sh blocks that look like a path of the repository: two parts
    or more, and an extension, a trailing '/' or a first folder of the repository's (a lone
    `run/` names a folder of the path before it). Placeholders, home and absolute paths,
    variables, globs and URLs are left out."""
    words = [word for text in doc.inline_code() + doc.blocks("sh") for word in text.split()]
    found = []
    for word in (w.lstrip("\"'(").rstrip("\"'),;:.") for w in words):
        if "/" not in word.rstrip("/") or word.startswith(("~", "$", "/", "..", "-")):
            continue
        if any(mark in word for mark in "<>*{}|=%:\\…") or "..." in word:
            continue
        last = word.rstrip("/").rsplit("/", 1)[-1]
        if word.endswith("/") or re.search(r"\.[A-Za-z0-9]+$", last) or word.split("/")[0] in TOP:
            found.append(word)
    return found


@pytest.mark.parametrize("doc", DOCS, ids=IDS)
def test_every_repository_path_named_exists(doc: Doc) -> None:
    # From the root, or as the architecture page and the glossary write them: from the package
    # or the engine; or beside the page.
    bases = (ROOT, ROOT / "iris_gui", ROOT / "iris_gui" / "engine", doc.path.parent)
    missing = sorted({word for word in _path_words(doc) if word not in MADE_ELSEWHERE
                      and not any((base / word).exists() for base in bases)})
    assert not missing, f"{doc.name} names paths that do not exist: {', '.join(missing)}"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {name for action in parser._actions for name in action.option_strings}


def _words(line: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError:  # an inline span with one quote of a pair
        return line.split()


def _invocations(line: str) -> list[list[str]]:
    """The words after each ``iris-gui`` (or ``python -m iris_gui``) of a line, up to a shell
    operator."""
    words, found = _words(line), []
    for i, word in enumerate(words):
        program = word == "iris-gui" or word.endswith("/iris-gui") or (
            word == "iris_gui" and i > 0 and words[i - 1] == "-m")
        if program:
            rest = words[i + 1:]
            stops = [k for k, w in enumerate(rest) if w in ("&&", "||", ";", "|", ">", "2>")]
            found.append(rest[:stops[0]] if stops else rest)
    return found


def _flags(words: list[str]) -> list[str]:
    parts = [part for word in words for part in word.strip("[](),").split("|")]
    return [part.strip("[]").split("=")[0] for part in parts if part.startswith("--")]


def _check(words: list[str], root: argparse.ArgumentParser) -> list[str]:
    """What an invocation names that the parser does not have."""
    if not words or words[0] in ("...", "…") or words[0].isupper() or words[0][0] == "[":
        return []  # a placeholder: `iris-gui COMMAND`, `python -m iris_gui ...`
    if words[0].startswith("-"):
        return [f"iris-gui {flag}" for flag in _flags(words) if flag not in _options(root)]
    commands = _subparsers(root)
    if words[0] not in commands:
        return [f"iris-gui {words[0]} (no such command)"]
    command, rest = commands[words[0]], words[1:]
    options = _options(command)
    actions = _subparsers(command)
    if actions:
        named = [part for word in rest for part in word.split("|") if part in actions]
        if not named:
            return [f"iris-gui {words[0]} names none of its actions ({', '.join(actions)})"]
        options = set().union(*(_options(actions[name]) for name in named))
    return [f"iris-gui {words[0]} {flag}" for flag in _flags(rest) if flag not in options]


@pytest.mark.parametrize("doc", DOCS, ids=IDS)
def test_every_command_and_option_named_exists(doc: Doc) -> None:
    root = build_parser()
    wrong = sorted({problem for line in code_lines(doc) for words in _invocations(line)
                    for problem in _check(words, root)})
    assert not wrong, f"{doc.name} names what the command line does not have: {wrong}"


@pytest.mark.parametrize("doc", DOCS, ids=IDS)
def test_every_python_module_named_exists(doc: Doc) -> None:
    modules = {module for line in code_lines(doc)
               for module in re.findall(r"-m (iris_gui(?:\.\w+)*)", line)}
    runnable = [Path(*module.split(".")) for module in sorted(modules)]
    missing = [path.as_posix() for path in runnable
               if not (ROOT / path.with_suffix(".py")).is_file()
               and not (ROOT / path / "__main__.py").is_file()]
    assert not missing, f"{doc.name} runs modules that do not exist: {missing}"
