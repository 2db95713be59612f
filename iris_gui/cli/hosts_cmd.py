"""``iris-gui hosts add|list|test|remove|setup``: the machines whose devices are trained on over
ssh. A refused value or a failed connection is one line (exit 2 for input, 1 for a host that
could not be reached or set up)."""

from __future__ import annotations

import argparse
import sys
import time

from iris_gui.cli.output import print_json, status_line, table
from iris_gui.engine.remote.hosts import Host, add_host, find_host, load_hosts, remove_host
from iris_gui.engine.spec.errors import EngineError


def hosts_command(args: argparse.Namespace) -> int:
    if args.action == "add":
        host = Host(args.name, args.destination, args.prefix, args.remote_command)
        add_host(host)
        print(f"added {host.describe()}; check it with `iris-gui hosts test {host.name}`")
        return 0
    if args.action == "remove":
        remove_host(args.name)
        print(f"removed {args.name} (its stored runs are kept)")
        return 0
    if args.action == "list":
        return _list(args)
    host = find_host(args.name)
    if args.action == "test":
        return _test(host, args.json)
    return _setup(host, args.python)


def _list(args: argparse.Namespace) -> int:
    hosts = load_hosts()
    if args.json:
        print_json([vars(h) for h in hosts])
    elif not hosts:
        print("no hosts yet: iris-gui hosts add NAME DESTINATION")
    else:
        print(table(["name", "destination", "prefix", "command"],
                    [[h.name, h.destination, h.prefix or "-", h.command or "-"] for h in hosts]))
    return 0


def _test(host: Host, as_json: bool) -> int:
    from iris_gui.engine.remote.placement import placement_words
    from iris_gui.engine.remote.runner import RemoteRunner

    runner = RemoteRunner(host)
    runner.on_status = status_line
    began = time.perf_counter()
    try:
        devices = runner.start()
    except EngineError as error:
        sys.stderr.write(f"iris-gui: {error}\n")
        return 1
    finally:
        runner.close()
    seconds = time.perf_counter() - began
    if as_json:
        print_json({"host": host.name, "seconds": seconds, "torch_version":
                    runner.torch_version, "placement": runner.placement,
                    "devices": [d.to_dict() for d in devices]})
        return 0
    placed = placement_words(runner.placement)
    print(f"{host.name}: connected in {seconds:.1f} s, torch {runner.torch_version}"
          + (f"; {placed}" if placed else ""))
    for device in devices:
        print(f"  {device.describe()}")
    return 0


def _setup(host: Host, python: str) -> int:
    from iris_gui.engine.remote.install import SetupError, setup_host

    print(f"installing this iris-gui on {host.name} ({host.destination}) ...", flush=True)
    try:
        version = setup_host(host, python)
    except SetupError as error:
        sys.stderr.write(f"iris-gui: {error}\n")
        return 1
    print(f"{host.name}: {version} installed; check it with `iris-gui hosts test {host.name}`")
    return 0
