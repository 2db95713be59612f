"""The command line: ``iris-gui <command>``; every bad input is one line and exit status 2.

Ctrl+C and SIGTERM are handled from the first import on (cli/signals.py): the parser below
imports the engine's configuration, and an interrupt there must not print a traceback.
"""

from __future__ import annotations

import argparse
import sys

from iris_gui.cli.signals import GUARD, is_program_start

if is_program_start():
    GUARD.install()

# Imported after the handler is in place: the parser imports the engine (numpy and more).
from iris_gui.cli.parser import build_parser


def main(argv: list[str] | None = None) -> int:
    with GUARD.installed():
        try:
            return _main(argv)
        except KeyboardInterrupt:
            # Python's own Ctrl+C where the guard is not the handler (a test calling main
            # from a thread): one line.
            sys.stderr.write("iris-gui: interrupted\n")
            return GUARD.status(default=130)


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.install_desktop or args.uninstall_desktop:
        if args.command is not None:
            parser.error(f"--{'un' if args.uninstall_desktop else ''}install-desktop takes no "
                         f"command; run it alone, without {args.command!r}")
        from iris_gui.cli import desktop_cmd

        return (desktop_cmd.install_desktop() if args.install_desktop
                else desktop_cmd.uninstall_desktop())
    if args.self_test or args.command is None:
        from iris_gui.cli.session import require_qt

        require_qt("the self-test" if args.self_test else "the window")
        if args.self_test:
            from iris_gui.ui.window.self_test import run_self_test

            return run_self_test()
        from iris_gui.ui.app import run_app

        return run_app()
    if args.command == "worker":
        # Before the log is configured: a worker writes nothing on its host (logs go to
        # stderr, which ssh carries back).
        from iris_gui.engine.remote.stdio_worker import main as worker_main

        return worker_main()
    from iris_gui.cli.output import plain_output
    from iris_gui.engine.workers.logs import configure_file_log
    from iris_gui.store.paths import log_dir

    configure_file_log(log_dir() / "cli.log")
    with plain_output():  # stored and outside text printed as text, never as escapes
        return _command(args)


def _command(args: argparse.Namespace) -> int:
    """The command ``args`` names; a store's or an engine's refusal is one line."""
    from iris_gui.engine.spec.errors import EngineError

    try:
        if args.command == "devices":
            from iris_gui.cli.devices_cmd import devices_command
            return devices_command(args)
        if args.command == "train":
            from iris_gui.cli.train_cmd import train_command
            return train_command(args)
        if args.command == "compare":
            from iris_gui.cli.train_cmd import compare_command
            return compare_command(args)
        if args.command == "explain":
            from iris_gui.cli.explain_cmd import explain_command
            return explain_command(args)
        if args.command == "sweep":
            from iris_gui.cli.sweep_cmd import sweep_command

            status = sweep_command(args)
            return GUARD.status() if status == 130 else status
        if args.command == "wins":
            from iris_gui.cli.wins_cmd import wins_command

            status = wins_command(args)
            return GUARD.status() if status == 130 else status
        if args.command == "sweeps":
            from iris_gui.cli.sweep_cmd import sweeps_command
            return sweeps_command(args)
        if args.command == "plot":
            from iris_gui.cli.plot_cmd import plot_command
            return plot_command(args)
        if args.command == "hosts":
            from iris_gui.cli.hosts_cmd import hosts_command
            return hosts_command(args)
        if args.command == "ceilings":
            from iris_gui.cli.ceilings_cmd import ceilings_command
            return ceilings_command(args)
        if args.command == "report":
            from iris_gui.cli.report_cmd import report_command
            return report_command(args)
        from iris_gui.cli.runs_cmd import runs_command
        return runs_command(args)
    except EngineError as error:
        # Store problems (an unknown id, an unwritable path) name what was wrong in one line.
        args.command_parser.error(str(error))
    except BrokenPipeError:
        return 0
