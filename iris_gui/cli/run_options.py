"""What train, explain and compare --engines share: the run options checked into one RunConfig
(with the engine's own loss recording when the user chose none, or one line and exit 2), the
runs trained and saved in turn under the signal guard, their records and the exit status."""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, closing, nullcontext
from typing import TYPE_CHECKING, Any

from iris_gui.cli.output import print_json, status_line
from iris_gui.cli.parser import config_from_args
from iris_gui.cli.progress import ProgressBar
from iris_gui.cli.session import open_store
from iris_gui.cli.signals import GUARD
from iris_gui.engine.spec.batch_settings import restart_warning
from iris_gui.engine.spec.config import ConfigError, RunConfig
from iris_gui.engine.spec.engines import ENGINES, default_recording, recording_note
from iris_gui.engine.spec.models import is_model_file, model_file_path
from iris_gui.engine.spec.world import check_world
from iris_gui.engine.words.labels import table_label

if TYPE_CHECKING:
    from iris_gui.engine.records.result import RunResult
    from iris_gui.engine.remote.host_runners import HostRunners


def checked_config(args: argparse.Namespace, **overrides: Any) -> RunConfig:
    """The run the options describe (train's, explain's), with the engine's own recording
    where none was chosen (said in one line once the rest is valid); a bad value exits 2."""
    engine_default = {} if "record" in overrides else _engine_recording(args)
    try:
        config = config_from_args(args, **{**engine_default, **overrides})
        check_device(config.device)
        check_data_on_host(config)
        check_world(config, os.cpu_count() if ":" not in config.device else None)
        if is_model_file(config.model):
            model_file_path(config.model)  # before a worker starts for it: one line at once
    except ConfigError as error:
        args.command_parser.error(str(error))
    if engine_default:
        (sys.stderr if args.json else sys.stdout).write(recording_note(config.engine) + "\n")
    # Once per command, however many configs it checks (compare, the ladder).
    warned = vars(args).setdefault("warned", set())
    if (warning := restart_warning(config)) and warning not in warned:
        warned.add(warning)
        (sys.stderr if args.json else sys.stdout).write(f"note: {warning}\n")
    return config


def check_data_on_host(config: RunConfig) -> None:
    from iris_gui.engine.remote.names import split_device
    from iris_gui.engine.remote.runner import refuse_data_file

    host, _ = split_device(config.device)
    if host is not None:
        refuse_data_file(config, host)


def check_device(device: str) -> None:
    """A device of this machine must be present; a host's must name a known host (its devices
    are checked there, when it is reached)."""
    from iris_gui.engine.remote.hosts import find_host
    from iris_gui.engine.remote.names import split_device

    host, _ = split_device(device)
    if host is not None:
        find_host(host)
        return
    from iris_gui.engine.train.devices import (
        resolve_device,  # torch: only once the values are valid
    )

    resolve_device(device)


def _record_chosen(args: argparse.Namespace) -> bool:
    """Whether the user gave --record (the parser's default is None: "not given")."""
    return args.record is not None


def _engine_recording(args: argparse.Namespace) -> dict[str, str]:
    """The engine's own recording when the user chose none and the engine cannot use the
    note's every-epoch; an explicit --record is left for RunConfig to refuse in one line."""
    engine = getattr(args, "engine", None)
    if (not hasattr(args, "record") or _record_chosen(args) or engine not in ENGINES
            or default_recording(engine) == "every-epoch"):
        return {}
    return {"record": default_recording(engine)}


def run_configs(configs: list[RunConfig], args: argparse.Namespace,
                hosts: HostRunners | None = None) -> tuple[list, list[int | None]]:
    """Train each config in turn through the job service, saving as it goes; Ctrl+C or
    SIGTERM stops the current one and the rest (cli/signals.py), and a signal never interrupts
    a save. A run the store could not take is printed and said on stderr (exit status 2)."""
    from iris_gui.engine.jobs.places import Places
    from iris_gui.engine.jobs.service import JobService
    from iris_gui.engine.remote.host_runners import HostRunners
    from iris_gui.engine.workers.in_process import InProcessRunner

    stop = threading.Event()
    # A caller that has asked the hosts already (the ladder, for their engines) passes their
    # connections on; they are closed here either way.
    hosts = hosts if hosts is not None else HostRunners(status=status_line)
    places = Places(InProcessRunner(), hosts, "in-process")
    # The stop is in place before the store opens: a signal from here on keeps the run.
    with GUARD.stopping(stop), open_store(not args.no_save) as store, closing(hosts):
        service = JobService(places, store, _CommandGuard(args))
        kept = service.runs(configs, stop.is_set, None if args.json else _bar)
        for one in kept:
            if one.unsaved:
                sys.stderr.write(f"iris-gui: the run {table_label(one.result.config)} was "
                                 f"not saved: {one.unsaved}\n")
        args.kept_nowhere = (store.kept_nowhere if store is not None else 0) + sum(
            bool(one.unsaved) for one in kept)
    return [one.result for one in kept], [one.run_id for one in kept]


def _bar(config: RunConfig, index: int, count: int) -> ProgressBar:
    label = f"{table_label(config)} " if count > 1 else ""
    return ProgressBar(config.epochs, f"[{index + 1}/{count}] {label}")


class _CommandGuard:
    """The command line's signal handling around a run in this process and each save."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args

    def running(self, config: RunConfig) -> AbstractContextManager[object]:
        from iris_gui.engine.remote.names import split_device

        if split_device(config.device)[0] is not None:
            return nullcontext()  # a host's run answers its stop over the connection
        return GUARD.keeping(keeper(config, self.args))

    def saving(self) -> AbstractContextManager[object]:
        return GUARD.saving()


def keeper(config: RunConfig, args: argparse.Namespace) -> Callable[[], str]:
    """What keeps ``config``'s run as stopped before its first epoch, printed and saved, when
    a signal comes during a compile that does not end in time (cli/signals.py); it runs in
    the signal's own thread, so it opens a store of its own."""
    def keep() -> str:
        from iris_gui.engine.records.result import RunResult, RunStatus

        result = RunResult(config=config, status=RunStatus.STOPPED,
                           message="stopped while compiling, before the first epoch")
        run_id = None
        if not args.no_save:
            from iris_gui.store.runs import RunStore

            with RunStore.open() as store:
                store.recovered_is_kept = True
                run_id = store.save(result)
        if args.json:
            print_json(run_record(result, run_id))
        else:
            print(f"run {run_id if run_id is not None else '(not saved)'}: stopped - "
                  f"{result.message}")
        return "not saved (--no-save)" if args.no_save else (
            f"kept as run {run_id}" if run_id is not None else "kept in a recovery file")
    return keep


def run_record(result: RunResult, run_id: int | None) -> dict[str, Any]:
    record = result.to_dict()
    if run_id is not None:
        record = {"id": run_id, **record}
    return record


def exit_status(results: list, args: argparse.Namespace) -> int:
    """1 if a run failed (each failure named on stderr, one line); 2 if a finished run was
    printed but neither the store nor a recovery file could keep it; if one was stopped, 130
    (Ctrl+C) or 143 (SIGTERM), as the shell reports a process those signals ended."""
    from iris_gui.store.paths import log_dir

    for result in results:
        if result.status.value == "failed":
            sys.stderr.write(f"iris-gui: the run {table_label(result.config)} failed: "
                             f"{result.message} (details in {log_dir() / 'cli.log'})\n")
    statuses = {r.status.value for r in results}
    if "failed" in statuses:
        return 1
    if getattr(args, "kept_nowhere", 0):
        return 2
    return GUARD.status() if "stopped" in statuses else 0
