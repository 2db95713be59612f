"""The README's and docs pages' example commands run as typed: every concrete ``iris-gui ...``
line in their shell blocks parses with the command line's own parser (a synopsis line with
placeholders, ``[--json]`` or ``a|b``, is left out), and the README's two commands are the
Makefile's targets."""

from __future__ import annotations

import re
import shlex

import pytest
from support.markdown_docs import ROOT, Doc, docs

from iris_gui.cli.parser import build_parser

PLACEHOLDER = re.compile(r"\[|\||\.\.\.|\bID\b|\bNAME\b|\bDESTINATION\b|\bWORDS\b|\bPATH\b|"
                         r"\bFILE\b|\bPY\b|\bHOST\b")


def example_lines(doc: Doc) -> list[str]:
    lines = []
    for block in doc.blocks("sh"):
        for line in block.splitlines():
            command = re.split(r"\s+#", line, maxsplit=1)[0].strip()
            if command.startswith("iris-gui ") and not PLACEHOLDER.search(command):
                lines.append(command)
    return lines


EXAMPLES = [(doc.name, line) for doc in docs() for line in example_lines(doc)]


def test_there_are_examples_to_check() -> None:
    in_readme = [line for name, line in EXAMPLES if name == "README.md"]
    assert len(in_readme) >= 5 and len(EXAMPLES) >= 10, EXAMPLES


@pytest.mark.parametrize(("name", "line"), EXAMPLES)
def test_an_example_parses(name: str, line: str) -> None:
    words = shlex.split(line)[1:]
    try:
        build_parser().parse_args(words)
    except SystemExit as error:
        if error.code:  # --version and --help exit 0 once they have printed
            pytest.fail(f"{name}'s {line!r} does not parse (exit {error.code})")


def test_the_two_commands_are_make_targets() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("run", "test"):
        assert re.search(rf"^{target}: ", makefile, flags=re.MULTILINE), target
    assert "source .venv/bin/activate" in (ROOT / "README.md").read_text(encoding="utf-8")
