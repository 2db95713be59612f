"""The report as Markdown (GitHub's flavour: a pipe table), its images beside it as PNG files
referenced by relative path, for pasting into notes or an issue."""

from __future__ import annotations

from iris_gui.report.content import Report, RunSection
from iris_gui.report.table import LEGEND, NUMERIC


def markdown_page(report: Report, images: list[tuple[str, str]]) -> str:
    """The page; ``images`` are (caption, file name beside the page) in reading order."""
    lines = [
        f"# {_inline(report.title)}", "",
        f"Made by iris-gui {report.version} on {report.generated_at}.", "",
        "## Results", "", *_table(report), "",
        _inline(LEGEND), "",
    ]
    if images:
        lines += ["## Figures", ""]
    for caption, name in images:
        lines += [f"![{_inline(caption)}]({name})", "", f"*{_inline(caption)}*", ""]
    lines += ["## Runs", ""]
    for section in report.sections:
        lines += _section(section)
    return "\n".join(lines)


def _table(report: Report) -> list[str]:
    align = ["---:" if name in NUMERIC else ":---" for name in report.headers]
    rows = [report.headers, align, *report.rows]
    return ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]


def _section(section: RunSection) -> list[str]:
    lines = [f"### {_inline(section.heading)}", ""]
    if section.message:
        lines += [f"> {_inline(section.message)}", ""]
    if section.sentences:
        lines += ["Where an epoch's time goes (explain):", ""]
        lines += [f"- {_inline(sentence)}" for sentence in section.sentences]
        lines.append("")
    lines += [f"- **{name}**: {_inline(value)}" for name, value in section.environment]
    lines += ["", "Repeat it:", "", "```sh", section.command, "```", ""]
    return lines


def _cell(value: str) -> str:
    return _inline(value).replace("|", "\\|")


def _inline(text: str) -> str:
    """One line of text that Markdown shows as written (no stray emphasis or HTML)."""
    flat = " ".join(str(text).split())
    for mark in ("\\", "*", "_", "`", "<", ">", "[", "]"):
        flat = flat.replace(mark, "\\" + mark)
    return flat
