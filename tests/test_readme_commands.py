"""The README's example commands run as typed: every concrete ``iris-gui ...`` line in its
shell blocks parses with the command line's own parser (a synopsis line with placeholders,
``[--json]`` or ``a|b``, is left out), and its two commands are the Makefile's targets."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from iris_gui.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[1]
PLACEHOLDER = re.compile(r"\[|\||\.\.\.|\bID\b|\bNAME\b|\bDESTINATION\b|\bWORDS\b|\bPATH\b|"
                         r"\bFILE\b|\bPY\b|\bHOST\b")


def example_lines() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    lines = []
    for block in blocks:
        for line in block.splitlines():
            command = re.split(r"\s+#", line, maxsplit=1)[0].strip()
            if command.startswith("iris-gui ") and not PLACEHOLDER.search(command):
                lines.append(command)
    return lines


def test_there_are_examples_to_check() -> None:
    assert len(example_lines()) >= 10


@pytest.mark.parametrize("line", example_lines())
def test_an_example_parses(line: str) -> None:
    words = shlex.split(line)[1:]
    try:
        build_parser().parse_args(words)
    except SystemExit as error:
        pytest.fail(f"the README's {line!r} does not parse (exit {error.code})")


def test_the_two_commands_are_make_targets() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^run: ", makefile, flags=re.M) and re.search(r"^test: ", makefile,
                                                                   flags=re.M)
    assert "source .venv/bin/activate" in (ROOT / "README.md").read_text(encoding="utf-8")
