"""The API's calls: each the command of the same name, with its options as keyword arguments
(options.py), run in the calling process (a host's device over ssh, as the command line
does), saved to the same store unless ``save=False``, and returned as records (records.py).

A run trains here, in this process, as ``iris-gui train`` does (a model file's in a worker
process of its own, engine/workers/apart.py): its record's ``env.execution`` says which. Ctrl+C (a notebook's interrupt) stops the run at its next chunk and returns it as
stopped (running.py); the runs after it are not started.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import closing
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from iris_gui.api.options import OptionError, parsed
from iris_gui.api.records import Explanation, Ladder, Measured, Run, Runs, Sweep
from iris_gui.api.running import interrupt_stops, progress_bar
from iris_gui.cli.session import open_store
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.words.labels import table_label
from iris_gui.store.placing import placed
from iris_gui.store.run_rows import StoredRun

if TYPE_CHECKING:
    from iris_gui.cli.output import ProgressBar
    from iris_gui.engine.remote.host_runners import HostRunners

T = TypeVar("T")


def train(*, save: bool = True, progress: bool = True, **options: Any) -> Run | Runs:
    """One run of ``iris-gui train``'s options (the note's experiment by default); with
    ``repeat=N``, N runs."""
    from iris_gui.cli.run_options import checked_config

    args = parsed("train", options)
    runs = _run([checked_config(args)] * args.repeat, save, progress)
    return runs[0] if len(runs) == 1 else runs


def compare(*, save: bool = True, progress: bool = True, **options: Any) -> Runs | Ladder:
    """``iris-gui compare``: every device x recording (x call style), each ``repeat`` times
    (replicates interleaved); with ``engines=...``, the engine ladder (``ladder``)."""
    if options.get("engines") is not None:
        return ladder(save=save, progress=progress, **options)
    from iris_gui.cli.train_cmd import compare_configs

    args = parsed("compare", options)
    configs, _ = compare_configs(args)
    return _run(configs * args.repeat, save, progress)


def ladder(*, save: bool = True, progress: bool = True, **options: Any) -> Ladder:
    """The engine ladder (``iris-gui compare --engines``): each rung on each device, against
    the note's loop; ``engines`` defaults to all of them."""
    from iris_gui.cli.ladder_cmd import plan
    from iris_gui.engine.remote.host_runners import HostRunners

    args = parsed("compare", {"engines": "all", **options})
    hosts = HostRunners(status=_say)
    with closing(hosts):
        configs, _ = _checked(lambda: plan(args, hosts))
        return Ladder(_run(configs * args.repeat, save, progress, hosts))


def sweep(*, save: bool = True, progress: bool = True, **options: Any) -> Sweep:
    """``iris-gui sweep``: the sizes on every series, fitted, with the crossings."""
    from iris_gui.api.running import notebook_line
    from iris_gui.cli.sweep_cmd import measure, spec_from_args

    args = parsed("sweep", options)
    line = notebook_line() if progress else None
    result, sweep_id, _ = _checked(lambda: measure(spec_from_args(args), args.parallel,
                                                   progress, line, save))
    return Sweep(sweep_id, result)


def ceilings(*, save: bool = True, **options: Any) -> Measured | list[Measured]:
    """``iris-gui ceilings``: a device's peak arithmetic, memory bandwidth and per-op floor
    measured through the job service in this process and kept; with ``list=True``, the latest
    kept of each device, thread count and precision, measuring nothing."""
    from iris_gui.engine.jobs.places import Places
    from iris_gui.engine.jobs.service import JobService
    from iris_gui.engine.remote.host_runners import HostRunners
    from iris_gui.engine.workers.in_process import InProcessRunner
    from iris_gui.engine.workers.messages import CeilingsAsked

    args = parsed("ceilings", options)
    with open_store(save or args.list) as store:
        if args.list:
            return [Measured(e.id, e.ceilings) for e in store.list_ceilings(latest=True)]
        service = JobService(Places(InProcessRunner(), HostRunners([]), "in-process"), store)
        asked = CeilingsAsked(args.device, args.threads, args.precision, args.repeat)
        kept = _checked(lambda: service.ceilings(asked))
    if kept.unsaved:
        _say(f"iris-gui: the ceilings were not kept: {kept.unsaved}")
    return Measured(kept.ceilings_id, kept.ceilings)


def explain(*, progress: bool = True, **options: Any) -> Explanation:
    """``iris-gui explain``: where an epoch's time goes, each overhead of the note measured."""
    from iris_gui.api.running import notebook_line
    from iris_gui.cli.explain_cmd import explained

    args = parsed("explain", options)
    line = notebook_line() if progress else None
    return Explanation(_checked(lambda: explained(args, progress, line)))


def runs(*ids: int) -> Runs:
    """The stored runs, oldest first (their curves not loaded), or those of ``ids`` in full."""
    with open_store(True) as store:
        if ids:
            found = [store.get(run_id) for run_id in ids]
        else:
            found = store.list_runs()
    return Runs(Run(s.id, s.result, s.created_at, s.breakdown, s.placement) for s in found)


def _run(configs: list[RunConfig], save: bool, progress: bool,
         hosts: HostRunners | None = None) -> Runs:
    """Train each config in turn through the job service (here, or on its host), saving as
    it goes."""
    from iris_gui.engine.jobs.places import Places
    from iris_gui.engine.jobs.service import JobService
    from iris_gui.engine.remote.host_runners import HostRunners
    from iris_gui.engine.workers.in_process import InProcessRunner

    hosts = hosts if hosts is not None else HostRunners(status=_say)
    stop = threading.Event()

    def bar(config: RunConfig, index: int, count: int) -> ProgressBar | None:
        label = f"[{index + 1}/{count}] {table_label(config)} "
        return progress_bar(config.epochs, label if count > 1 else "", progress)

    with interrupt_stops(stop), open_store(save) as store, closing(hosts):
        service = JobService(Places(InProcessRunner(), hosts, "in-process"), store)
        kept = _checked(partial(service.runs, configs, stop.is_set, bar))
        done = [StoredRun(one.run_id or 0, "", one.result) for one in kept]
        if store is not None:
            placed(done, store.kept_ceilings, _say)
    for one in kept:
        if one.unsaved:
            _say(f"iris-gui: the run {table_label(one.result.config)} was not saved: "
                 f"{one.unsaved}")
    return Runs(Run(one.run_id, one.result, placement=run.placement)
                for one, run in zip(kept, done, strict=True))


def _checked(call: Callable[[], T]) -> T:
    """``call()``, a ConfigError from below it raised as the API's OptionError."""
    try:
        return call()
    except ConfigError as error:
        raise OptionError(str(error)) from None


def _say(line: str) -> None:
    import sys

    print(line, file=sys.stderr, flush=True)
