"""``iris-gui train`` and ``compare``."""

from __future__ import annotations

import argparse
import math
from typing import Any

from iris_gui.cli.compare_table import comparison_table, row_record
from iris_gui.cli.output import (
    contention_line,
    number,
    print_json,
    seconds,
)
from iris_gui.cli.parser import config_from_args
from iris_gui.cli.run_options import checked_config, exit_status, run_configs, run_record
from iris_gui.engine.data.csv_data import many_classes_note
from iris_gui.engine.spec.config import ConfigError, RunConfig
from iris_gui.engine.words.batch_words import batch_summary, data_file_summary
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.labels import model_words, table_label
from iris_gui.engine.words.model_words import model_file_words, model_sentence
from iris_gui.engine.words.parallel_words import parallel_lines


def summary_lines(result: Any, run_id: int | None) -> list[str]:
    t, c, env = result.timings, result.config, result.env
    saved = f"run {run_id}" if run_id is not None else "run (not saved)"
    of_chunks = f" of {counted(t.epoch_us_chunks, 'chunk')}" if t.epoch_us_chunks else ""
    lines = [
        f"{saved}: {result.status.value}{f' - {result.message}' if result.message else ''}",
        (f"  {c.dataset} on {c.device} ({env.device_name}), engine {c.engine}, "
         f"record {c.record}, {f'call {c.call}, ' if c.calls_module else ''}"
         f"{counted(env.threads, 'thread')}, {c.optimizer} lr {c.lr:g}, "
         f"{model_words(c) or 'hidden ' + ','.join(map(str, c.hidden))}"),
        f"  model         {model_sentence(result)}",
        *([f"  model file    {words}"] if (words := model_file_words(result.model_file)) else []),
        f"  epochs        {result.epochs_completed:,} / {c.epochs:,}",
        f"  final loss    {number(result.final_loss)}",
        f"  accuracy      train {number(result.train_accuracy, 3)}  test {number(result.test_accuracy, 3)}",
        (f"  timings (s)   setup {seconds(t.setup_seconds)}  transfer {seconds(t.transfer_seconds)}"
         f"  first epoch {seconds(t.first_epoch_seconds)}  loop {seconds(t.train_seconds)}"
         f"  eval {seconds(t.eval_seconds)}"
         f"{f'  compile {seconds(t.compile_seconds)}' if t.compile_seconds else ''}"),
        (f"  steady state  {number(t.epoch_us)} us/epoch (IQR {number(t.epoch_us_iqr if t.has_spread else math.nan)}, "
         f"{t.epoch_us_method}{of_chunks})"
         f"{'  noisy: IQR > 10% of the median' if t.noisy else ''}"),
    ]
    lines += batch_lines(result)
    lines += [f"  {label:<13} {text}" for label, text in parallel_lines(result.parallel)]
    if result.timing_is_partial:
        lines.append(f"  partial       {result.partial_reason}")
    busy = contention_line(result)
    if busy:
        lines.append(busy)
    return lines


def batch_lines(result: Any) -> list[str]:
    """The mini-batches, data path, precision and data file, where they are not the note's."""
    lines = []
    if batches := batch_summary(result):
        lines.append(f"  batches       {batches}")
    if data_file := data_file_summary(result):
        lines.append(f"  data file     {data_file}")
    if result.data_changed:
        lines.append(f"  note          {result.data_changed}")
    if many := many_classes_note(result.data_file):
        lines.append(f"  note          {many}")
    return lines


def train_command(args: argparse.Namespace) -> int:
    from iris_gui.engine.records.compare import compare_groups

    config = checked_config(args)
    results, ids = run_configs([config] * args.repeat, args)
    # Replicates that failed part-way are left out of the figures (unless all did).
    row = compare_groups([results], ids=[ids])[0]
    chosen = row.representative
    record = run_record(chosen, row.id_of(chosen))
    if len(results) > 1:
        record["repeat"] = {
            "ids": [i for i in row.ids if i is not None],
            "train_seconds": row.train_seconds.to_dict(),
            "epoch_us": row.epoch_us.to_dict(),
        }
    if args.json:
        print_json(record)
    else:
        print("\n".join(summary_lines(chosen, record.get("id"))))
        if len(results) > 1:
            s, e = row.train_seconds, row.epoch_us
            noisy = "  (noisy: IQR > 10% of the median)" if s.noisy or e.noisy else ""
            print(f"  over {counted(s.n, 'run')}  loop median {seconds(s.median)} s (IQR {seconds(s.iqr)}), "
                  f"{number(e.median)} us/epoch (IQR {number(e.iqr)}){noisy}")
            if row.left_out:
                print(f"  {counted(len(row.left_out), 'replicate')} failed part-way, left out of these "
                      "figures")
    return exit_status(results, args)


def compare_configs(args: argparse.Namespace) -> tuple[list[RunConfig], int]:
    """Every device x recording x call the options name, checked, and the baseline's index
    among them; a bad option is one line (the parser's error)."""
    from iris_gui.engine.records.compare import find_baseline

    # Check the options before discovering devices: discovery imports torch (~2 s), and a
    # mistyped option deserves its one-line answer at once.
    for record in args.records:
        for call in args.calls:
            try:
                config_from_args(args, record=record, call=call)
            except ConfigError as error:
                args.command_parser.error(str(error))
    from iris_gui.engine.train.devices import discover_devices

    devices = [d.id for d in discover_devices()] if args.devices == ["all"] else args.devices
    combos = [checked_config(args, device=d, record=r, call=c)
              for d in devices for r in args.records for c in args.calls]
    try:
        return combos, find_baseline([table_label(c) for c in combos], args.baseline)
    except ConfigError as error:
        args.command_parser.error(str(error))


def compare_command(args: argparse.Namespace) -> int:
    from iris_gui.engine.records.compare import compare_groups

    if args.engines is not None:
        from iris_gui.cli.ladder_cmd import ladder_command

        return ladder_command(args)

    combos, baseline = compare_configs(args)
    # Replicates interleave (all configs, then again) so a drift in machine load is shared.
    results, ids = run_configs(combos * args.repeat, args)
    groups = [[r for r in results[i::len(combos)]] for i in range(len(combos))]
    id_groups = [ids[i::len(combos)] for i in range(len(combos))]
    ran = [(g, i) for g, i in zip(groups, id_groups, strict=True) if g]
    compared = compare_groups([g for g, _ in ran], baseline, ids=[i for _, i in ran])
    if args.json:
        print_json([row_record(row) for row in compared])
    else:
        print(comparison_table(compared, args.repeat > 1))
    return exit_status(results, args)
