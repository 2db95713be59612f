"""The report as Markdown (GitHub's flavour: a pipe table), its images beside it as PNG files
referenced by relative path, for pasting into notes or an issue.

Every stored string is placed so that it cannot become markup: the runs may come from a shared
or tampered store, and a Markdown renderer passes raw HTML through. Text is flattened to one
line with every character that could start markup escaped (``_inline``); the command that
repeats a run sits in a code fence longer than any run of backticks in it, so no line of it
can close the fence (CommonMark, 4.5); image names are percent-encoded.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from iris_gui.engine.records.note_list import PARALLEL_MATHS
from iris_gui.report.content import (
    ESTIMATE_HEADING,
    WINS_HEADING,
    WINS_INTRO,
    Report,
    RunSection,
)
from iris_gui.report.table import LEGEND, NUMERIC


def markdown_page(report: Report, images: list[tuple[str, str]]) -> str:
    """The page; ``images`` are (caption, file name beside the page) in reading order."""
    lines = [
        f"# {_inline(report.title)}", "",
        f"Made by iris-gui {_inline(report.version)} on {_inline(report.generated_at)}.", "",
    ]
    if report.rows:
        lines += ["## Results", "", *_table(report), "",
                  *([f"**{_inline(report.verdict)}**", ""] if report.verdict else []),
                  _inline(LEGEND), ""]
    if report.wins:
        lines += [f"## {WINS_HEADING}", "", _inline(WINS_INTRO), ""]
        lines += [f"- **{_inline(a.item.claim)}**: {_inline(a.text)}" for a in report.wins]
        lines += ["", _inline(PARALLEL_MATHS), ""]
    if images:
        lines += ["## Figures", ""]
    for caption, name in images:
        lines += [f"![{_inline(caption)}]({_destination(name)})", "", f"*{_inline(caption)}*",
                  ""]
    lines += ["## Runs", ""] if report.sections else []
    for section in report.sections:
        lines += _section(section)
    return "\n".join(lines)


def _table(report: Report) -> list[str]:
    align = ["---:" if name in NUMERIC else ":---" for name in report.headers]
    cells = [[_inline(value) for value in row] for row in [report.headers, *report.rows]]
    return ["| " + " | ".join(row) + " |" for row in [cells[0], align, *cells[1:]]]


def _section(section: RunSection) -> list[str]:
    lines = [f"### {_inline(section.heading)}", ""]
    if section.message:
        lines += [f"> {_block(section.message)}", ""]
    if section.sentences:
        lines += ["Where an epoch's time goes (explain):", ""]
        lines += [f"- {_block(sentence)}" for sentence in section.sentences]
        lines.append("")
    if section.estimate:
        lines += [f"*{_inline(ESTIMATE_HEADING)}*", ""]
        lines += [f"- {_block(sentence)}" for sentence in section.estimate]
        lines.append("")
    lines += [f"- **{name}**: {_inline(value)}" for name, value in section.environment]
    fence = code_fence(section.command)
    lines += ["", "Repeat it:", "", f"{fence}sh", section.command, fence, ""]
    return lines


def code_fence(content: str) -> str:
    """A backtick fence longer than every run of backticks in ``content`` (three at least):
    only a line of at least as many backticks closes a fence."""
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    return "`" * max(3, longest + 1)


def _destination(name: str) -> str:
    """A file name as a relative link any renderer follows: spaces, parentheses, angle
    brackets and every other byte outside the unreserved set percent-encoded."""
    return quote(name, safe="")


# Escaped wherever they are: they open emphasis, code, links, HTML, entities, table cells,
# strike-through, or close a heading. A backslash escape shows any of them as written.
_ESCAPED = frozenset("\\`*_[]<>&|~#!")
# At the start of a block's text these open a list (or a thematic break, a setext heading).
_LINE_START = re.compile(r"^(\d{1,9})([.)])|^([-+=])")


def _inline(text: str) -> str:
    """One line of text that Markdown shows as written: no emphasis, code, link or HTML."""
    flat = " ".join(str(text).split())
    return "".join("\\" + ch if ch in _ESCAPED else ch for ch in flat)


def _block(text: str) -> str:
    """``_inline`` for text that begins a block's content (a quote, a list item), where
    ``1.``, ``-`` or ``+`` would open a list of its own."""
    return _LINE_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}",
                           _inline(text))
