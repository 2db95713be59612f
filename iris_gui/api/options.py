"""Keyword arguments as the command line's options: ``lab.train(epochs=300, hidden=[10, 10])``
is ``iris-gui train --epochs 300 --hidden 10,10``, parsed and checked by the same parser and
rules (cli/parser.py, cli/run_options.py), so a bad value is refused with the same words, as an
``OptionError`` of one line instead of exit status 2.

A name is an option's long form with dashes as underscores (``test_size``); True gives a flag,
False or None leaves the option out, a list or tuple is joined with commas.
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, redirect_stderr
from typing import Any, NoReturn

from iris_gui.cli.parser import build_parser

# What the API decides itself, not an option: ``save`` (the command line's --no-save) and the
# output form (--json: the API returns records).
OWN = ("json", "no_save")


class OptionError(ValueError):
    """A keyword argument the call cannot take; the message is one line naming it and what is
    allowed."""


def parsed(command: str, options: Mapping[str, Any]) -> argparse.Namespace:
    """``options`` as ``iris-gui COMMAND``'s arguments, parsed; OptionError names a bad one."""
    parser = build_parser()
    sub = _subparser(parser, command)
    known = _names(sub)
    argv = [command]
    for name, value in options.items():
        if name not in known:
            raise OptionError(f"{command}() has no option {name!r}; it takes "
                              f"{', '.join(sorted(known))}")
        argv += _words(name, known[name], value)
    for each in (parser, sub):
        each.error = _refuse  # type: ignore[method-assign]  # raise, never exit
    with _quiet_usage():
        return parser.parse_args(argv)


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return action.choices[command]
    raise OptionError(f"no command {command!r}")  # a bug of the API's own, said plainly


def _names(sub: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Keyword name -> the option's action, for every option but the API's own."""
    names = {}
    for action in sub._actions:
        longs = [s for s in action.option_strings if s.startswith("--") and s != "--help"]
        if longs:
            name = longs[0][2:].replace("-", "_")
            if name not in OWN:
                names[name] = action
    return names


def _words(name: str, action: argparse.Action, value: Any) -> list[str]:
    option = next(s for s in action.option_strings if s.startswith("--"))
    if value is None or value is False:
        return []
    if value is True:
        if action.nargs != 0:  # True is a flag's value; this option takes one of its own
            wanted = action.metavar or action.dest.upper()
            raise OptionError(f"{name}=True is not a value for {option}; give {name}={wanted}"
                              + (f" ({action.help})" if action.help else ""))
        return [option]
    if isinstance(value, list | tuple):
        return [option, ",".join(str(v) for v in value)]
    return [option, str(value)]


def _refuse(message: str) -> NoReturn:
    raise OptionError(message)


@contextmanager
def _quiet_usage() -> Iterator[None]:
    # argparse writes --help's text or a usage line before some errors: never into a notebook.
    with redirect_stderr(io.StringIO()):
        yield
