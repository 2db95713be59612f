"""A Breakdown in words: one sentence per claim of the note, the estimate's sentences apart, and
the words every surface (window, command line, report) shows for its figures. No torch.

Two rules hold for every wall-clock figure (the paired costs, the profiler's overhead). A
measurement made while the CPU was busy with other work is no figure: it reads "not measured:
the CPU was busy with other work (38% of the time); re-run it when the machine is quieter". And a
difference at or below zero is noise around "no cost", never a saving or a negative
overhead: it reads "within the noise (≤ 0 µs)". The record keeps the raw medians (JSON, CSV)
beside its wait share, for whoever analyses them; no text shows them.
"""

from __future__ import annotations

import math
from typing import Any

from iris_gui.engine.records import standing_words as words
from iris_gui.engine.records.gpu_estimate import NEXT_STEP, range_us
from iris_gui.engine.spec.engines import ENGINE_INFO
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.numbers import plain

# A Breakdown (engine/records/breakdown.py), which imports this module: named, not imported,
# so that no import circle forms.
Breakdown = Any

NO_ACCELERATOR = "cannot be measured here: no accelerator"
NOISE = "within the noise (≤ 0{unit})"


def busy_words(share: float) -> str:
    return f"not measured: {words.WAS_BUSY} ({share:.0%} of the time); {words.RERUN_HINT}"


def paired_words(b: Breakdown, us: float, pct: float, unit: str = "µs") -> str:
    """A paired cost as a table shows it: "1.7 µs (1.0%)", the noise, the busy words, or "-"
    for a pair the rung cannot run."""
    if not math.isfinite(us):
        return "-"
    if b.cpu_busy:
        return b.busy_words
    if us <= 0:
        return NOISE.format(unit=f" {unit}")
    return f"{_us(us)} {unit} ({_pct(pct)}%)"


def overhead_words(b: Breakdown) -> str:
    """The profiler's overhead as a table shows it: "71%", the noise, the busy words."""
    pct = b.profiler_overhead_pct
    if not math.isfinite(pct):
        return "not in this record"
    if b.cpu_busy:
        return b.busy_words
    return NOISE.format(unit="%") if pct <= 0 else f"{pct:.0f}%"


def op_kind_words(b: Breakdown, unit: str = "µs") -> str:
    """``convolution 7753 µs (44%) · matmul 177 µs (1.0%) · ...``: the profiled epoch by kind of
    op, as every display of a breakdown says it; "" for a record without them."""
    epoch = b.epoch_us_profiled
    return " · ".join(
        f"{kind} {_us(us)} {unit} ({_pct(us / epoch * 100 if epoch > 0 else math.nan)}%)"
        for kind, us in b.op_kinds.items())


def answer(b: Breakdown) -> str:
    """The note's question, why the GPU is slower, answered in one plain sentence from what
    this record could measure: on an accelerator its idleness, launches and syncs; on a CPU
    the counts a GPU would make and the estimate of their cost, as a share of this CPU's
    whole epoch (or, on a busy CPU, alone: the counts and the estimate stand regardless)."""
    if b.on_accelerator:
        made = f"launching {_count_or(b.kernels_per_epoch)} kernels and waiting for {_syncs(b)}"
        if b.device_busy_pct is None:
            return (f"Each epoch on {b.device} means {made}; how idle the device is "
                    f"{_why_not(b)}.")
        busy = f"{_pct(b.device_busy_pct)}% of each {_us(b.epoch_us_unprofiled)} µs epoch"
        if b.device_busy_pct < 50:
            return (f"The GPU mostly waits: it is busy {busy}, the rest is the host {made}: "
                    "overhead, not arithmetic, sets the pace.")
        return (f"The GPU is busy {busy}: its own work, more than {made}, sets the pace.")
    estimate = b.gpu_estimate
    if estimate is None:
        return ("No GPU here, and no estimate of one in this record: add a GPU host "
                "(Hosts…) to measure why it is slower.")
    if not estimate.estimated:
        return f"No GPU here, and no estimate of one for this run: {estimate.unavailable}."
    low, high = estimate.overhead_low_us, estimate.overhead_high_us
    # The launches and syncs come on top of the host's own work (the Python and dispatch that
    # are most of a small model's CPU epoch), so they are set beside the CPU's whole epoch as
    # a share of it, never as a verdict of faster or slower.
    cost = (f"A GPU would launch about {_count(estimate.kernels_per_epoch or 0.0)} kernels and "
            f"wait for {_syncs(b)} each epoch: {range_us(low, high)} µs of overhead on top of "
            "the host's own work")
    cpu = estimate.cpu_epoch_us
    if b.cpu_busy or not math.isfinite(cpu) or cpu <= 0:
        return (f"{cost} (an estimate: no GPU here); this CPU's own epoch is "
                f"{b.busy_words or 'not measured'}.")
    return (f"{cost}, {_times(low / cpu)} to {_times(high / cpu)} this CPU's whole "
            f"{plain(cpu, 0)} µs epoch (an estimate: no GPU here).")


def _times(ratio: float) -> str:
    return f"{ratio:.2g}×" if ratio < 10 else f"{ratio:,.0f}×"


def _syncs(b: Breakdown) -> str:
    syncs = b.syncs_per_epoch
    if not math.isfinite(syncs) or syncs <= 0:
        return "no sync"
    return f"{_count(syncs)} sync{'' if syncs == 1 else 's'}"


def _count_or(value: float | None) -> str:
    return "an unmeasured number of" if value is None else _count(value)


def sentences(b: Breakdown) -> list[str]:
    """The measured claims. On the CPU the launches and the idleness cannot be measured: that
    is said where the estimate stands in for them (``estimate_sentences``), not twice."""
    steps = [step_sentence(b)] if b.batched else []
    device = [_launch_sentence(b), _idle_sentence(b)] if b.on_accelerator else []
    return steps + [_sync_sentence(b), *device, _call_sentence(b)]


def estimate_sentences(b: Breakdown) -> list[str]:
    if b.on_accelerator:
        return []
    lines = [f"Kernel launches and how idle the device is {NO_ACCELERATOR}."]
    estimate = b.gpu_estimate
    if estimate is not None:
        lines.append(estimate.sentence(busy=b.busy_words))
    return lines + [NEXT_STEP[0].upper() + NEXT_STEP[1:] + "."]


def step_sentence(b: Breakdown) -> str:
    batch = b.config.get("batch")
    rows = f" of {batch} rows" if batch else " (the full batch)"
    syncs = f"{_count(b.syncs_per_step)} sync{'' if b.syncs_per_step == 1 else 's'}"
    kernels = b.kernels_per_step
    if kernels is None:
        per_step = f"{syncs} per step (kernel launches {_why_not(b)})"
    else:
        per_step = f"{syncs} and {_count(kernels)} kernel launches per step"
    text = f"{counted(b.steps_per_epoch, 'step')} per epoch{rows}: {per_step}"
    source = b.data_source
    if math.isfinite(b.data_wait_pct):
        source += f"; unprofiled, {_pct(b.data_wait_pct)}% by the loader's own clock"
    share = b.data_pct
    if share is not None:
        text += f"; {_pct(share)}% of each step fetching data ({source})"
    else:
        text += f"; fetching data ({source}) is timed inside the step"
    return text + "."


def _sync_sentence(b: Breakdown) -> str:
    steps = b.steps_per_epoch
    subject = ("Syncing the loss every epoch" if steps == 1 else
               f"Syncing the loss every step (loss.item() after each of an epoch's {steps} "
               "steps)")
    if not math.isfinite(b.sync_cost_us) and not _pairs_sync(b.engine):
        return (f"{subject} does not apply to the {b.engine} engine: "
                f"it keeps every loss in a buffer; {_syncs_made(b)}.")
    cost = _cost(b, subject, b.sync_cost_us, b.sync_cost_pct)
    measured = math.isfinite(b.sync_cost_us) and not b.cpu_busy
    if steps > 1 and measured and b.sync_cost_us > 0:
        cost += f", {_us(b.sync_cost_us / steps)} µs per step"
    if not b.on_accelerator and measured:
        cost += " on the CPU, where .item() waits for no device"
    text = f"{cost}; {_syncs_made(b)}"
    if b.sync_wait_us_per_epoch is not None:
        text += f" and waits {_us(b.sync_wait_us_per_epoch)} µs per epoch for the device"
    return text + "."


def _syncs_made(b: Breakdown) -> str:
    syncs = f"{_count(b.syncs_per_epoch)} sync{'' if b.syncs_per_epoch == 1 else 's'}"
    record = b.config.get("record")
    per_step = f" ({_count(b.syncs_per_step)} per step)" if b.steps_per_epoch > 1 else ""
    return (f"with record {record} this run makes {syncs} per epoch{per_step}" if record
            else f"this run makes {syncs} per epoch{per_step}")


def _launch_sentence(b: Breakdown) -> str:
    if b.kernels_per_epoch is None or b.launch_us_per_epoch is None:
        return f"Kernel launch cost {_why_not(b)}."
    per_step = ("" if b.kernels_per_step is None or b.steps_per_epoch == 1
                else f" ({_count(b.kernels_per_step)} per step)")
    return (f"Each epoch launches {_count(b.kernels_per_epoch)} kernels{per_step}; launching "
            f"them takes {_us(b.launch_us_per_epoch)} µs of the {_us(b.epoch_us_profiled)} µs "
            "profiled epoch.")


def _idle_sentence(b: Breakdown) -> str:
    if b.device_busy_pct is None or b.device_busy_us_per_epoch is None:
        return f"How idle the device is {_why_not(b)}."
    return (f"The device is busy {_pct(b.device_busy_pct)}% of each epoch "
            f"({_us(b.device_busy_us_per_epoch)} µs of device work in a "
            f"{_us(b.epoch_us_unprofiled)} µs epoch).")


def _call_sentence(b: Breakdown) -> str:
    if not math.isfinite(b.call_cost_us) and not _calls_module(b.engine):
        return (f"Calling model(x) through nn.Module.__call__ does not apply to the "
                f"{b.engine} engine: it does not call the module.")
    return _cost(b, "Calling model(x) through nn.Module.__call__ instead of model.forward(x)",
                 b.call_cost_us, b.call_cost_pct) + "."


def _why_not(b: Breakdown) -> str:
    if not b.on_accelerator:
        return NO_ACCELERATOR
    return f"cannot be measured here: the profiler saw no activity on {b.device}"


def _cost(b: Breakdown, subject: str, us: float, pct: float) -> str:
    if not math.isfinite(us):
        return f"{subject} has no measured cost in this record (the pair was not timed)"
    if b.cpu_busy:
        return f"{subject}: {b.busy_words}"
    # A paired difference at or below zero is noise around "no cost", not a saving.
    if us <= 0:
        return f"{subject} costs nothing measurable: {NOISE.format(unit=' µs per epoch')}"
    return f"{subject} costs {_us(us)} µs per epoch ({_pct(pct)}% of the epoch)"


def _pairs_sync(engine: str) -> bool:
    """Whether explain times this engine's every-epoch sync against none (explain.paired_keys)."""
    info = ENGINE_INFO.get(engine)
    return info is None or {"every-epoch", "none"} <= set(info.recordings)


def _calls_module(engine: str) -> bool:
    info = ENGINE_INFO.get(engine)
    return info is None or info.module_call


def _us(value: float) -> str:
    if not math.isfinite(value):
        return "-"
    return f"{value:.0f}" if abs(value) >= 10 else f"{value:.1f}"


def _pct(value: float) -> str:
    if not math.isfinite(value):
        return "-"
    return f"{value:.0f}" if abs(value) >= 10 or value == 0 else f"{value:.1f}"


def _count(value: float) -> str:
    if not math.isfinite(value):
        return "an unmeasured number of"
    return f"{value:g}" if value == int(value) else f"{value:.3g}"
