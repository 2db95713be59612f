"""``iris-gui compare --engines ...``: the engine ladder, per device, against the note's loop.

Per device: the note's loop (eager, loss.item() every epoch, model.forward(x)) as the
baseline, then each engine asked for with ``--record`` (default ``device``: the curve is kept
for the deviation check, with no per-epoch sync). An engine a device cannot run is a row
saying why; one whose options it cannot run is refused in one line before anything runs
(with ``all``, it is listed as unavailable instead).
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING, Any

from iris_gui.cli.output import number, print_json, seconds, status_line, table
from iris_gui.cli.parser import config_from_args
from iris_gui.engine.records import standing_words as words
from iris_gui.engine.spec.config import ConfigError, RunConfig
from iris_gui.engine.spec.engines import ENGINES
from iris_gui.figures.ladder.ladder_text import SLOWER, SLOWER_ANY, is_slower

if TYPE_CHECKING:
    from iris_gui.engine.records.device_info import DeviceInfo
    from iris_gui.engine.remote.host_runners import HostRunners

DEFAULT_RECORD = "device"


def _engines(args: argparse.Namespace) -> list[str]:
    asked = args.engines
    if asked == ["all"]:
        return list(ENGINES)
    unknown = [name for name in asked if name not in ENGINES]
    if unknown:
        args.command_parser.error(f"engine {unknown[0]!r} is not allowed; choose all or any of: "
                                  f"{', '.join(ENGINES)}")
    return list(dict.fromkeys(asked))


def plan(args: argparse.Namespace, hosts: HostRunners
         ) -> tuple[list[RunConfig], list[dict[str, Any]]]:
    """The configs to run and the rows that cannot run (with their reason)."""
    from iris_gui.cli.run_options import checked_config
    from iris_gui.engine.records.ladder import ladder_configs
    from iris_gui.engine.train.devices import describe_devices

    engines, record = _engines(args), args.record or DEFAULT_RECORD
    if args.engines != ["all"]:
        for engine in engines:  # before any device is touched: a bad choice is one line at once
            try:
                config_from_args(args, engine=engine, record=record, call="forward")
            except ConfigError as error:
                args.command_parser.error(str(error))
    known = {d.id: d for d in describe_devices()}
    wanted = list(known) if args.devices == ["all"] else args.devices
    checked = [checked_config(args, device=d, call="forward").device for d in wanted]
    known.update(_hosts_devices([d for d in checked if d not in known], hosts))
    devices = [known[d] for d in checked]
    base = checked_config(args, call="forward")
    configs, skipped = ladder_configs(base, devices, engines, record)
    unavailable = [{"device": s.device, "engine": s.engine, "status": "unavailable",
                    "message": s.reason} for s in skipped]
    return configs, unavailable


def _hosts_devices(wanted: list[str], hosts: HostRunners) -> dict[str, DeviceInfo]:
    """The hosts' devices among ``wanted`` (each host asked once; the engines each can run
    are the host's answer); one line and exit 2 when a host lacks one."""
    found: dict[str, DeviceInfo] = {}
    for device in wanted:
        runner = hosts.for_device(device)
        assert runner is not None  # checked_config sent this machine's devices elsewhere
        found.update({d.id: d for d in runner.start()})
        if device not in found:
            raise ConfigError(f"device {device!r} is not on {runner.host.name}; it has: "
                              f"{', '.join(found) or 'none'}")
    return found


def ladder_command(args: argparse.Namespace) -> int:
    from iris_gui.cli.run_options import exit_status, run_configs, run_record
    from iris_gui.engine.records.compare import compare_groups
    from iris_gui.engine.records.ladder import ladder_rows
    from iris_gui.engine.remote.host_runners import HostRunners

    # Connected while planning, reused for the runs, closed by them.
    hosts = HostRunners(status=status_line)
    try:
        configs, unavailable = plan(args, hosts)
    except BaseException:
        hosts.close()
        raise
    results, ids = run_configs(configs * args.repeat, args, hosts)
    count = len(configs)
    groups = [(results[i::count], ids[i::count]) for i in range(count)]
    groups = [(g, i) for g, i in groups if g]
    chosen = []
    for rows, run_ids in groups:
        row = compare_groups([rows])[0]
        chosen.append((row.representative, run_ids[rows.index(row.representative)]))
    ladder = ladder_rows([r for r, _ in chosen], [i for _, i in chosen])
    if args.json:
        by_id = {id(r): (r, i) for r, i in chosen}
        records = []
        ordered = _in_ladder_order(chosen, ladder, by_id)
        for line, (result, run_id) in zip(ladder, ordered, strict=True):
            record = run_record(result, run_id)
            # A ratio that is no result (busy, noisy, other data) is null; measured_speedup
            # keeps it, beside the standing that says why.
            record["speedup"] = _clean(line.speedup) if line.speedup_is_result else None
            record["measured_speedup"] = _clean(line.speedup)
            record["standing"] = {"kind": line.standing, "reason": line.standing_reason or None}
            record["curve_deviation"] = _clean(line.curve_deviation)
            records.append(record)
        print_json(records + unavailable)
    else:
        print(_ladder_table(ladder, unavailable, chosen))
    return exit_status(results, args)


def _in_ladder_order(chosen: list, ladder: list, by_id: dict) -> list:
    """The (result, id) pairs in the ladder's row order (rows carry run ids, or none)."""
    remaining = list(chosen)
    ordered = []
    for line in ladder:
        match = next(pair for pair in remaining if pair[0].config.device == line.device
                     and pair[0].config.engine == line.engine
                     and pair[0].config.record == line.record)
        remaining.remove(match)
        ordered.append(match)
    return ordered


def _clean(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _ladder_table(ladder: list, unavailable: list[dict[str, Any]], chosen: list) -> str:
    headers = ["device", "engine", "record", "status", "us/epoch", "± IQR", "speedup",
               "compile s", "curve dev", "final loss"]
    body = []
    for line in ladder:
        unfit = line.unfit
        if line.note_loop:
            speed = "note's loop" + (f" ({unfit})" if unfit else "")
        elif unfit:
            speed = unfit
        else:
            near = {"within-noise": " ~", "load-not-measured": f" {words.UNMEASURED_MARK}"}.get(
                line.standing, "")
            speed = f"{line.speedup:.2f}x{near}" if math.isfinite(line.speedup) else "-"
        engine = line.engine + (f" ({line.settings.replace('×', 'x')})" if line.settings else "")
        body.append([line.device, engine + ("" if line.framework else " (reference)"),
                     line.record, line.status, number(line.epoch_us),
                     number(line.epoch_us_iqr, 2) + (" noisy" if line.noisy else ""), speed,
                     seconds(line.compile_seconds) if line.compile_seconds else "-",
                     f"{line.curve_deviation:.1e}" if math.isfinite(line.curve_deviation)
                     else "-", number(line.final_loss)])
    for row in unavailable:
        body.append([row["device"], row["engine"], "-", "unavailable", "-", "-", "-", "-", "-",
                     "-"])
    first = chosen[0][0].config if chosen else None
    title = f"{first.dataset}, {first.epochs:,} epochs: the engine ladder" if first else ""
    notes = [f"  {row['device']}/{row['engine']}: {row['message']}" for row in unavailable]
    legend = ("speedup = the note's loop us/epoch / the row's, on the same device (steady state; "
              f"~: {words.WITHIN_NOISE}; {words.UNMEASURED_MARK}: {words.LOAD_UNMEASURED}; "
              f"{words.BUSY}, {words.NOISY}, {words.OTHER_DATA}: not a result); "
              "curve dev = largest relative difference from eager's loss curve")
    unfit_notes = [f"  {line.device}/{line.engine}: not a result: {line.standing_reason}"
                   for line in ladder if line.unfit]
    unfit_notes += [f"  {line.device}/{line.engine}: {SLOWER.get(line.engine, SLOWER_ANY)}"
                    for line in ladder if is_slower(line)]
    return "\n".join([title, table(headers, body, right={4, 5, 6, 7, 8, 9}), legend,
                      *unfit_notes, *(["unavailable:", *notes] if notes else [])])
