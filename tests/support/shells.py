"""A command line as each shell a learner pastes it into reads it: the words a POSIX shell
gives the program (a real ``sh`` does the parsing), and those cmd.exe and PowerShell would,
by their rules for the lines the product suggests (a program, its options, double quotes
around what holds a metacharacter). A line any of them would read otherwise (a redirection,
a pipe, a variable, a quote kept as a character) raises ValueError, naming the shell."""

from __future__ import annotations

import subprocess

# Outside double quotes: cmd's redirections, pipe, separator, escape and variables.
CMD_SPECIAL = set("<>|&^%")
# PowerShell's: redirections, pipe, separators, groups, variables, escape, array commas, and
# single quotes (strings there, not characters); a splat or a comment only where a word starts
# (ssh's USER@HOST is a word).
POWERSHELL_SPECIAL = set("<>|&;(){}$`,'")
POWERSHELL_STARTING = set("@#")
# Inside PowerShell's double quotes, $ and ` still expand.
POWERSHELL_EXPANDING = set("$`")


def posix_words(line: str) -> list[str]:
    done = subprocess.run(["sh", "-c", f"printf '%s\\n' {line}"], capture_output=True,
                          text=True, timeout=10, check=True)
    return done.stdout.splitlines()


def cmd_words(line: str) -> list[str]:
    return _words(line, CMD_SPECIAL, set(), set(), "cmd.exe")


def powershell_words(line: str) -> list[str]:
    """PowerShell's reading, with its single-quoted strings (literal, '' for a quote) and its
    call operator before a quoted program (``& 'C:\\My Env\\x.exe' args``)."""
    line = line.removeprefix("& ")
    words, rest = [], line
    while rest:
        if rest.startswith("'"):
            end, text = 1, ""
            while True:
                if end >= len(rest):
                    raise ValueError(f"PowerShell meets an unclosed single quote: {line}")
                if rest[end] == "'" and rest[end + 1:end + 2] == "'":
                    text, end = text + "'", end + 2
                elif rest[end] == "'":
                    break
                else:
                    text, end = text + rest[end], end + 1
            if rest[end + 1:end + 2] not in ("", " "):
                raise ValueError(f"PowerShell joins a quoted string to what follows: {line}")
            words.append(text)
            rest = rest[end + 1:].lstrip(" ")
            continue
        word, _, rest = rest.partition(" ")
        words += _words(word, POWERSHELL_SPECIAL, POWERSHELL_STARTING, POWERSHELL_EXPANDING,
                        "PowerShell")
        rest = rest.lstrip(" ")
    return words


def _words(line: str, special: set[str], starting: set[str], expanding: set[str],
           shell: str) -> list[str]:
    words, word, quoted, started = [], "", False, False
    for char in line:
        if char == '"':
            quoted, started = not quoted, True
        elif quoted:
            if char in expanding:
                raise ValueError(f"{shell} expands {char!r} inside double quotes: {line}")
            word += char
        elif char == " ":
            if started:
                words.append(word)
            word, started = "", False
        elif (char in special or char in starting and not started
              or char == "'" and shell == "cmd.exe"):
            raise ValueError(f"{shell} reads {char!r} outside quotes as its own: {line}")
        else:
            word, started = word + char, True
    if quoted:
        raise ValueError(f"{shell} meets an unclosed double quote: {line}")
    if started:
        words.append(word)
    return words
