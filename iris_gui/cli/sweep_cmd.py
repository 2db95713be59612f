"""``iris-gui sweep`` (measure a grid of problem sizes on every series, fit, find crossovers)
and ``iris-gui sweeps list|show|delete`` over the stored ones."""

from __future__ import annotations

import argparse
import math
import sys
from contextlib import AbstractContextManager, nullcontext
from typing import TextIO

from iris_gui.cli.model_options import SWEEP_MODEL_FIELDS
from iris_gui.cli.output import number, print_json, status_line, table
from iris_gui.cli.progress import SweepProgress
from iris_gui.cli.session import StopOnInterrupt, open_store
from iris_gui.cli.signals import GUARD
from iris_gui.engine.records.standing_words import NOT_MEASURED
from iris_gui.engine.records.sweep_model import SeriesFit, SweepPoint, SweepResult, SweepSpec
from iris_gui.engine.spec.batch_settings import batch_text
from iris_gui.engine.timing.contention import BUSY_SHARE
from iris_gui.engine.words.counted import counted
from iris_gui.store.sweep_csv import point_fit_errors


def spec_from_args(args: argparse.Namespace) -> SweepSpec:
    return SweepSpec(rows=tuple(args.rows), hidden=tuple(args.hidden),
                     batches=tuple(args.batch), features=args.features,
                     classes=args.classes, devices=tuple(args.devices),
                     engines=tuple(args.engines), threads=tuple(args.threads),
                     worlds=tuple(args.world), min_seconds=args.min_seconds, min_epochs=args.min_epochs,
                     **{name: getattr(args, name) for name in SWEEP_MODEL_FIELDS})


def sweep_command(args: argparse.Namespace) -> int:
    from iris_gui.engine.spec.errors import ConfigError

    try:
        result, sweep_id, kept_nowhere = measure(spec_from_args(args), args.parallel,
                                                 not args.json, save=not args.no_save)
    except ConfigError as error:
        args.command_parser.error(str(error))
    with GUARD.saving():  # a signal now waits until the sweep is printed
        if args.json:
            print_json({"id": sweep_id, **result.to_dict()})
        else:
            print(describe(result, sweep_id))
    # Printed but kept nowhere (neither the store nor a recovery file took it): 2, as a store
    # error is.
    return exit_status(result) or (2 if kept_nowhere else 0)


def measure(spec: SweepSpec, parallel: int, show_progress: bool, line: TextIO | None = None,
            save: bool = True) -> tuple[SweepResult, int | None, int]:
    """``spec`` swept here and on its hosts through the job service, Ctrl+C stopping it at
    the next chunk, and saved: the result, its id and how many results no place could keep.
    ConfigError names a setting that cannot be swept. ``line``: where the progress is one
    line redrawn in place (a notebook's output), instead of stderr."""
    from iris_gui.engine.jobs.places import Places
    from iris_gui.engine.jobs.service import JobService
    from iris_gui.engine.remote.host_runners import HostRunners
    from iris_gui.engine.workers.in_process import InProcessRunner

    stop = StopOnInterrupt()
    progress = SweepProgress(spec, line) if show_progress else None
    hosts = HostRunners(status=status_line, parallel=parallel)
    try:
        with stop.installed(), open_store(save) as store:
            service = JobService(Places(InProcessRunner(), hosts, "in-process"), store,
                                 _SavingGuard())
            kept = service.sweep(spec, progress,
                                 progress.starting if progress is not None else None, stop)
            if kept.unsaved:
                sys.stderr.write(f"iris-gui: the sweep was not saved: {kept.unsaved}\n")
            return kept.result, kept.sweep_id, bool(kept.unsaved) + (
                store.kept_nowhere if store is not None else 0)
    finally:
        hosts.close()
        if progress is not None:
            progress.close()


class _SavingGuard:
    """A signal while the sweep is saved waits until it is."""

    def running(self, config: object) -> AbstractContextManager[object]:
        return nullcontext()

    def saving(self) -> AbstractContextManager[object]:
        return GUARD.saving()


def exit_status(result: SweepResult) -> int:
    return 130 if result.status == "stopped" else (1 if result.status == "failed" else 0)


def describe(result: SweepResult, sweep_id: int | None) -> str:
    """The points, the fits and the crossovers, as tables and sentences."""
    saved = f"sweep {sweep_id}" if sweep_id is not None else "sweep (not saved)"
    lines = [f"{saved}: {result.status}{f' - {result.message}' if result.message else ''}"]
    batched = is_batched(result)
    rows = []
    # A point's message is a footnote: inline it made rows of over 200 characters.
    footnotes: dict[str, int] = {}
    for point, fit_error in zip(result.points, point_fit_errors(result), strict=True):
        error = "-" if math.isnan(fit_error) else f"{fit_error:+.0%}"
        batch = [batch_text(point.batch), f"{point.steps_per_epoch:,}"] if batched else []
        rows.append([point.series, f"{point.rows:,}", f"{point.hidden:,}", *batch,
                     number(point.epoch_us), number(point.epoch_us_iqr, 2),
                     number(point.flops_per_epoch, 3), number(point.gflops, 3), error,
                     _wait(point), point.status + _footnote(point.message, footnotes)])
    # A cnn's or a transformer's width is its channels or features, not a hidden layer's.
    width = "hidden" if result.spec.model == "mlp" else f"{result.spec.model} width"
    headers = ["series", "rows", width, *(["batch", "steps"] if batched else []),
               "us/epoch", "IQR", "FLOPs", "GFLOP/s", "fit err", "CPU wait", "status"]
    lines.append(table(headers, rows, right=set(range(1, len(headers) - 1))))
    lines += [f"  [{number}] {message}" for message, number in footnotes.items()]
    if any(p.cpu_busy for p in result.points):
        lines.append(f"CPU wait: the share of a point's time spent waiting for a core; at "
                     f"{BUSY_SHARE:.0%} or more (busy) its timing is not comparable, fits leave "
                     "it out (or say they include it) and its crossings are not findings")
    if batched:
        lines.append("fits: us/epoch = steps x floor + FLOPs / throughput (steps: optimizer "
                     "steps per epoch; least squares on relative error)")
    else:
        lines.append("fits: us/epoch = floor + FLOPs / throughput (least squares on relative "
                     "error)")
    floor = "floor us/step" if batched else "floor us"
    lines.append(table(["series", floor, "GFLOP/s", "max error", "points"], [
        [f.series, number(f.floor_us), number(f.gflops, 3), f"{f.max_rel_error:.0%}"
         + ("  (the model does not fit every point)" if f.max_rel_error > 0.15 else ""),
         str(f.points) + _busy_fit(f)]
        for f in result.fits], right={1, 2, 4}))
    lines.append("crossovers:")
    lines += [f"  {c.sentence()}" for c in result.crossovers] or [("  none (fewer than two "
                                                                  "series or sizes measured)")]
    lines += [f"{host}: measured on {counted(len(env['jobs']), 'Slurm job')} "
              f"({'; '.join(env['jobs'])})"
              for host, env in result.env.get("hosts", {}).items() if env.get("jobs")]
    lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines)


def _footnote(message: str, footnotes: dict[str, int]) -> str:
    """" [2]", the number of ``message`` among the table's footnotes (one per text); "" for
    none."""
    if not message:
        return ""
    return f" [{footnotes.setdefault(message, len(footnotes) + 1)}]"


def is_batched(result: SweepResult) -> bool:
    """Whether the sweep trained mini-batches (then its points and fits say per step)."""
    return any(result.spec.batches) or any(p.batch for p in result.points)


def _busy_fit(fit: SeriesFit) -> str:
    if fit.busy_included:
        return f" ({fit.busy_included} busy included: not a finding)"
    return f" ({fit.busy_left_out} busy left out)" if fit.busy_left_out else ""


def _wait(point: SweepPoint) -> str:
    share = point.cpu_wait_share
    if not point.measured:
        return "-"
    if not math.isfinite(share):
        return NOT_MEASURED
    return f"{share:.0%}{' busy' if point.cpu_busy else ''}"


def sweeps_command(args: argparse.Namespace) -> int:
    with open_store(True) as store:
        if args.action == "list":
            stored = store.list_sweeps()
            if args.json:
                print_json([{"id": s.id, "created_at": s.created_at,
                             "status": s.result.status, "points": len(s.result.points),
                             "spec": s.result.spec.to_dict()} for s in stored])
            elif not stored:
                print("no sweeps stored yet; try: iris-gui sweep")
            else:
                print("\n".join(s.label() for s in stored))
        elif args.action == "show":
            stored = store.get_sweep(args.id)
            if args.json:
                print_json({"id": stored.id, "created_at": stored.created_at,
                            **stored.result.to_dict()})
            else:
                print(describe(stored.result, stored.id))
        else:
            store.delete_sweep(args.id)
            print(f"deleted sweep {args.id}")
    return 0
