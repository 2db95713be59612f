"""Words made shell text for the terminal a learner pastes them into: a POSIX shell's quoting
(shlex) on Linux and macOS; on Windows, PowerShell's, the shell its terminal opens (Windows
10 and 11). PowerShell reads a comma as an array (``--hidden 64,32`` would pass two words), and
``$``, ``@``, ``;``, parentheses, braces and quotes as its own, so a word holding any, or a
space, is single-quoted (literal there, ``'`` doubled); a quoted program needs the call
operator (``& 'C:\\My Env\\iris-gui.exe' train``). A word that needs no quoting reads the
same in cmd.exe too."""

from __future__ import annotations

import shlex
import sys

# What PowerShell reads as its own in a bare word, or what ends one.
POWERSHELL_SPECIAL = set(" \t,;(){}$@`'\"#&|<>")


def quoted(word: str, platform: str = sys.platform) -> str:
    if platform != "win32":
        return shlex.quote(word)
    if word and not any(char in POWERSHELL_SPECIAL for char in word):
        return word
    return "'" + word.replace("'", "''") + "'"


def joined(words: list[str], platform: str = sys.platform) -> str:
    return " ".join(quoted(word, platform) for word in words)


def program(path: str, platform: str = sys.platform) -> str:
    """A program's path as the first word of a line: quoted, and in PowerShell called with
    ``&`` when quoted (a quoted string alone is a value there, not a command)."""
    text = quoted(path, platform)
    return f"& {text}" if platform == "win32" and text.startswith("'") else text
