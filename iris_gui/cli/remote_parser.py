"""The commands for devices on other machines: ``hosts`` (add, list, test, remove, setup) and
``worker --stdio``, the end of the ssh channel that runs on the host."""

from __future__ import annotations

from typing import Any


def add_remote_commands(commands: Any) -> None:
    hosts = commands.add_parser("hosts", help="machines whose devices you train on over ssh")
    actions = hosts.add_subparsers(dest="action", metavar="action", required=True)
    add = actions.add_parser("add", help="add a host (or change the one of that name)")
    add.add_argument("name", help="what its devices are called here: NAME:cuda:0")
    add.add_argument("destination", help="what ssh accepts: an alias from ~/.ssh/config, "
                                         "user@host or ssh://user@host:port")
    add.add_argument("--prefix", default="", help="words put before the worker on the host, "
                                                  "e.g. 'srun --gres=gpu:1 --time=10'")
    add.add_argument("--command", dest="remote_command", default="",
                     help="how iris-gui starts there, e.g. '/opt/venv/bin/python -m iris_gui' "
                          "(default: the one `hosts setup` installed, else iris-gui on PATH)")
    listing = actions.add_parser("list", help="the hosts")
    listing.add_argument("--json", action="store_true")
    test = actions.add_parser("test", help="connect, and list the host's devices")
    test.add_argument("name")
    test.add_argument("--json", action="store_true")
    remove = actions.add_parser("remove", help="forget a host (its stored runs are kept)")
    remove.add_argument("name")
    setup = actions.add_parser(
        "setup", help="install this iris-gui on the host, in a virtual environment of its own "
                      "that uses the host's torch (no internet needed there)")
    setup.add_argument("name")
    setup.add_argument("--python", default="python3",
                       help="the host's Python that has torch (default python3 on its PATH)")
    for action_parser in (add, listing, test, remove, setup):
        action_parser.set_defaults(command_parser=action_parser)
    worker = commands.add_parser(
        "worker", help="(run by ssh on a host) serve jobs on stdin and stdout")
    worker.add_argument("--stdio", action="store_true", required=True,
                        help="frames on stdin and stdout, logs on stderr")
    worker.set_defaults(command_parser=worker)
