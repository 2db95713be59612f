"""``iris-gui explain``: where an epoch's time goes, as a table and one sentence per claim of the note."""

from __future__ import annotations

import argparse
import math
import os
import sys
from contextlib import closing, nullcontext
from pathlib import Path
from typing import TextIO

from iris_gui.cli.output import number, print_json, status_line, table
from iris_gui.cli.progress import ExplainProgress
from iris_gui.cli.run_options import checked_config
from iris_gui.cli.session import open_store
from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.breakdown_text import op_kind_words, overhead_words, paired_words
from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.gpu_estimate import ESTIMATE_MARK, range_us
from iris_gui.engine.records.regime import place_breakdown
from iris_gui.engine.records.standing_words import busy_share
from iris_gui.engine.spec.engines import ENGINE_INFO
from iris_gui.engine.spec.errors import EngineError
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.labels import table_label
from iris_gui.engine.words.regime_words import explained_regime
from iris_gui.store.paths import DB_FILE_NAME, data_dir_path


def explain_command(args: argparse.Namespace) -> int:
    breakdown = explained(args, show_progress=not args.json)
    placed = place_breakdown(breakdown, _kept_ceilings())
    if args.json:
        # The estimate's sentences apart from the measured ones, as everywhere.
        record = {**breakdown.to_dict(), "answer": breakdown.answer(),
                  "sentences": breakdown.sentences(),
                  "estimate_sentences": breakdown.estimate_sentences(),
                  "placement": placed.to_dict(breakdown.device_name)}
        print_json(record, ensure_ascii=False)
    else:
        lines = _report(breakdown)
        print("\n".join([lines[0], f"regime: {explained_regime(breakdown, placed)}",
                         *lines[1:]]))
    return 0


def _kept_ceilings() -> list[Ceilings]:
    """The latest kept ceilings, to place the explained step; none where there is no store
    (explain makes none) or it cannot be read (said on stderr by the store)."""
    if not (data_dir_path() / DB_FILE_NAME).is_file():
        return []
    try:
        with open_store(True) as store:
            return store.kept_ceilings()
    except EngineError:
        return []


def explained(args: argparse.Namespace, show_progress: bool = False,
              line: TextIO | None = None) -> Breakdown:
    """The options' run explained through the job service (here, a model file in a worker
    of its own, or on its host); a bad option is one line (the parser's error). Its progress
    (cli/progress.py) on ``line``, or stderr, when ``show_progress``."""
    from iris_gui.engine.explain.explain import (
        DEFAULT_REPLICATES,
        MAX_REPLICATES,
        MAX_WINDOW,
        MIN_WINDOW,
    )
    from iris_gui.engine.jobs.places import Places
    from iris_gui.engine.jobs.service import JobService
    from iris_gui.engine.remote.host_runners import HostRunners
    from iris_gui.engine.workers.in_process import InProcessRunner

    if not MIN_WINDOW <= args.epochs <= MAX_WINDOW:
        args.command_parser.error(
            f"--epochs {args.epochs} is not allowed; the profiled window is {MIN_WINDOW} to "
            f"{MAX_WINDOW:,} epochs")
    if args.repeat > MAX_REPLICATES:
        args.command_parser.error(
            f"--repeat {args.repeat} is not allowed; explain takes 1 to {MAX_REPLICATES} replicates")
    trace = _trace_target(args)
    config = checked_config(args)
    # Kineto prints a line on every profiler start and stop; it has no level that keeps its
    # errors but drops those, and a missing device trace is reported in the notes anyway.
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")
    progress = ExplainProgress(table_label(config), line) if show_progress else None
    with closing(HostRunners(status=status_line)) as hosts, \
            closing(progress) if progress is not None else nullcontext():
        service = JobService(Places(InProcessRunner(), hosts, "in-process"))
        blocks = None if args.repeat == DEFAULT_REPLICATES else args.repeat
        kept = service.explain(config, args.epochs, str(trace) if trace else None,
                               replicates=blocks, progress=progress)
    breakdown = Breakdown.from_dict(kept.record)
    if trace is not None and trace.is_file():
        print(f"kept the profiled window's trace in {trace}: open it in https://ui.perfetto.dev "
              "or chrome://tracing", file=sys.stderr)
    return breakdown


def _trace_target(args: argparse.Namespace) -> Path | None:
    """--trace's file, checked before anything is profiled: a .json name in a folder that
    exists, never the store, a device or a folder (store/files.py's policy)."""
    if args.trace is None:
        return None
    from iris_gui.store.files import check_export_target
    from iris_gui.store.paths import StoreError

    trace = Path(args.trace)
    if trace.suffix.lower() != ".json":
        args.command_parser.error(f"--trace {args.trace}: a trace is a .json file")
    if not trace.parent.is_dir():
        args.command_parser.error(f"--trace {args.trace}: no directory {trace.parent}")
    try:
        check_export_target(trace)
    except StoreError as error:
        args.command_parser.error(f"--trace: {error}")
    return trace


def _report(b: Breakdown) -> list[str]:
    c = b.config
    info = ENGINE_INFO.get(b.engine)
    # The call style is named only where the engine calls the module: the others have none.
    call = f", call {c['call']}" if info is None or info.module_call else ""
    lines = [
        b.answer(),
        "",
        (f"{c['dataset']} on {b.device} ({b.device_name}), engine {b.engine}, record "
         f"{c['record']}{call}{_batches(b)}, {counted(c['threads'], 'thread')}: "
         f"{b.epochs_profiled:,} profiled epochs after {b.warmup_epochs:,} warm-up"),
        "",
        _category_table(b),
        *_op_kind_line(b),
        "",
        (f"per epoch       syncs {number(b.syncs_per_epoch)}, kernels {number(b.kernels_per_epoch)}, "
         f"host<->device copies {number(b.copies_per_epoch)} ({number(b.copy_bytes_per_epoch)} bytes)"),
        *_step_line(b),
        _device_line(b),
        (f"epoch time      profiled {number(b.epoch_us_profiled)} us, unprofiled "
         f"{number(b.epoch_us_unprofiled)} us{_busy_mark(b)}; profiler overhead: "
         f"{overhead_words(b)}"),
        (f"paired, unprofiled ({b.replicates} x {b.epochs_profiled:,} epochs each, medians)  "
         f"every-epoch minus none {_paired(b, b.sync_cost_us, b.sync_cost_pct)}, "
         f"call minus forward {_paired(b, b.call_cost_us, b.call_cost_pct)}"),
    ]
    lines += [f"note: {note}" for note in b.notes]
    return lines + [""] + b.sentences() + _estimate_lines(b)


def _busy_mark(b: Breakdown) -> str:
    return f" ({busy_share(b.cpu_wait_share)})" if b.cpu_busy else ""


def _paired(b: Breakdown, us: float, pct: float) -> str:
    """A paired cost in the CLI's units, per step too where an epoch is several steps."""
    words = paired_words(b, us, pct, unit="us")
    measured = math.isfinite(us) and us > 0 and not b.cpu_busy
    return words + _per_step(b, us) if measured else words


def _estimate_lines(b: Breakdown) -> list[str]:
    """The estimate for a GPU under its own heading, after every measured line."""
    sentences = b.estimate_sentences()
    if not sentences:
        return []
    lines = ["", f"On a GPU ({ESTIMATE_MARK}):", *sentences]
    estimate = b.gpu_estimate
    if estimate is not None and estimate.estimated:
        for name, latency in (("launch", estimate.launch), ("sync", estimate.sync)):
            lines.append(f"  per {name}: {range_us(latency.low_us, latency.high_us)} us "
                         f"({latency.source})")
        lines += [f"  note: {note}" for note in estimate.notes]
    return lines


def _batches(b: Breakdown) -> str:
    """The batches, data path and precision where they are not the note's (full, resident,
    float32): a record from before them names none."""
    c = b.config
    parts = []
    if c.get("batch"):
        parts.append(f"batch {c['batch']}")
    if b.data_path == "loader":
        parts.append(b.data_source)
    if c.get("precision", "float32") != "float32":
        parts.append(str(c["precision"]))
    return "".join(f", {part}" for part in parts)


def _step_line(b: Breakdown) -> list[str]:
    if not b.batched:
        return []
    data = _share(b.data_pct) if b.data_pct is not None else "inside the step"
    return [(f"per step        {counted(b.steps_per_epoch, 'step')} per epoch: syncs "
             f"{number(b.syncs_per_step)}, kernels {number(b.kernels_per_step)}, "
             f"fetching data {data}{_loader_clock(b)}")]


def _loader_clock(b: Breakdown) -> str:
    if not math.isfinite(b.data_wait_pct):
        return ""
    return f" (unprofiled, by the loader's own clock: {_share(b.data_wait_pct)})"


def _per_step(b: Breakdown, us: float) -> str:
    """A per-epoch cost per step too, where an epoch is several steps."""
    return "" if b.steps_per_epoch == 1 else f" = {number(us / b.steps_per_epoch)} us per step"


def _device_line(b: Breakdown) -> str:
    if not b.on_accelerator:
        return "device          none here: no accelerator (a GPU's launches and syncs: estimated below)"
    return (f"device          launching {number(b.launch_us_per_epoch)} us, busy "
            f"{number(b.device_busy_us_per_epoch)} us ({_share(b.device_busy_pct)}), waited for in "
            f"syncs {number(b.sync_wait_us_per_epoch)} us")


def _category_table(b: Breakdown) -> str:
    epoch = b.epoch_us_profiled
    rows = [[name, number(us), _share(us / epoch * 100 if epoch > 0 else None)]
            for name, us in b.categories.items()]
    total = sum(b.categories.values())
    rows.append(["total", number(total), _share(b.accounted_pct)])
    return table(["category", "us/epoch", "share"], rows, right={1, 2})


def _op_kind_line(b: Breakdown) -> list[str]:
    """``by op kind      convolution 5210 us (62%) · matmul 310 us (4.0%) · ...``: what the
    model's ops took of the epoch; nothing for an older record."""
    words = op_kind_words(b, unit="us")
    return [f"by op kind      {words}"] if words else []


def _share(pct: float | None) -> str:
    text = number(pct, 3)
    return text if text == "-" else f"{text}%"
