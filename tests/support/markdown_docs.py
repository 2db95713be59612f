"""The README and docs/*.md read as the doc tests need them: their fenced blocks, the inline
code outside those blocks, their links and their headings' anchors (GitHub's rule)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```", flags=re.DOTALL | re.MULTILINE)
INLINE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", flags=re.MULTILINE)


@dataclass(frozen=True)
class Doc:
    path: Path
    text: str

    @property
    def name(self) -> str:
        return self.path.relative_to(ROOT).as_posix()

    def blocks(self, language: str | None = None) -> list[str]:
        """The fenced blocks' bodies; with ``language``, only blocks fenced as it."""
        return [body for lang, body in FENCE.findall(self.text)
                if language is None or lang == language]

    def prose(self) -> str:
        """The text with the fenced blocks taken out."""
        return FENCE.sub("", self.text)

    def inline_code(self) -> list[str]:
        return INLINE.findall(self.prose())

    def links(self) -> list[str]:
        return LINK.findall(self.prose())

    def anchors(self) -> set[str]:
        return heading_anchors(self.prose())


def docs() -> list[Doc]:
    """README.md, then every docs/*.md page."""
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return [Doc(path, path.read_text(encoding="utf-8")) for path in paths]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading)
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def heading_anchors(text: str) -> set[str]:
    """Every heading's anchor, a repeated one also with GitHub's -1, -2, ... suffixes."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for heading in HEADING.findall(text):
        base = slug(heading)
        count = seen.get(base, 0)
        anchors.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return anchors


def code_lines(doc: Doc) -> list[str]:
    """Every command-like line a reader may type: each fenced block's lines with their shell
    comment cut off, and each inline code span."""
    lines = [re.split(r"\s#", line, maxsplit=1)[0] for block in doc.blocks()
             for line in block.splitlines()]
    return [line.strip() for line in lines + doc.inline_code() if line.strip()]
