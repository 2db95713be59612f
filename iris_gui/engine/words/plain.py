"""Text from elsewhere (a stored record, a CSV's header, a host's answer) kept as text: without
the characters a terminal or a page would act on instead of showing. C0 controls (ESC starts
ANSI and OSC sequences: a cleared screen, a new terminal title, colours; BEL rings), DEL and
C1 controls, and the bidirectional overrides that make a line read in another order than it
is written."""

from __future__ import annotations

import re

_UNSHOWN = "\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069"
_EVERY = re.compile(f"[{_UNSHOWN}]")
# Tab, newline and carriage return stay where text is laid out in lines (a command's output,
# whose progress line redraws itself with a carriage return).
_IN_LINES = re.compile(f"[{_UNSHOWN.replace(chr(0) + '-' + chr(0x1f), '')}"
                       "\x00-\x08\x0b\x0c\x0e-\x1f]")


def clean(text: str) -> str:
    """``text`` as one field: every control character and bidi override removed."""
    return _EVERY.sub("", text)


def clean_lines(text: str) -> str:
    """``text`` as lines: the same, but tabs, newlines and carriage returns kept."""
    return _IN_LINES.sub("", text)


def shown(text: object) -> str:
    """``text`` (a file name someone typed) fit for one line: as it is, or, where it holds a
    control character, a line break or a bidi override, quoted with them escaped
    ('a\\nb.csv', 'x\\u202e.csv'), so that the name shown is the name that was used."""
    written = str(text)
    if not _EVERY.search(written):
        return written
    return repr(written)
