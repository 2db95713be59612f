"""The ladder as data: rungs side by side per device, each against the note's own loop there.

Pure functions of finished runs (no torch), read by ``compare --engines``, the Ladder view and
its CSV export alike. The note's loop is ``eager`` recording every epoch with
``model.forward(x)``: the loop the note timed. A rung's curve is compared with ``eager``'s on
the same device (any recording that kept a full curve).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from iris_gui.engine.records.compare import comparable, steady_speedup
from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.engines import ENGINE_INFO, ENGINES
from iris_gui.engine.spec.errors import ConfigError

NOTE_LOOP = ("eager", "every-epoch", "forward")


def is_note_loop(result: RunResult) -> bool:
    c = result.config
    return (c.engine, c.record, c.call) == NOTE_LOOP


@dataclass(frozen=True)
class LadderRow:
    device: str
    device_name: str
    engine: str
    label: str  # the rung's title, e.g. "native (no framework, a reference)"
    framework: bool
    record: str
    status: str
    epoch_us: float
    epoch_us_iqr: float  # NaN when the steady state has no spread (Timings.has_spread)
    noisy: bool
    speedup: float  # the note's loop on the same device, µs/epoch / this row's; NaN without it
    compile_seconds: float
    curve_deviation: float  # max relative deviation from eager's curve; NaN when not comparable
    final_loss: float
    run_id: int | None = None
    # The note's own loop on this device: the speedup baseline (not when it failed part-way).
    note_loop: bool = False
    message: str = ""  # why a run failed or stopped, as the run says it
    # It failed part-way (``RunResult.timing_is_partial``): no speedup for it or against it.
    partial: bool = False
    # The share of its loop spent waiting for a core (NaN: not measured), whether that makes
    # it busy (``Timings.cpu_busy``) and the sentence to show on its bar
    # (``RunResult.contention``; "" when not busy).
    cpu_wait_share: float = math.nan
    cpu_busy: bool = False
    contention: str = ""

    def to_dict(self) -> dict[str, object]:
        def clean(value: object) -> object:
            return None if isinstance(value, float) and not math.isfinite(value) else value

        return {name: clean(getattr(self, name)) for name in self.__dataclass_fields__}


def curve_deviation(curve: np.ndarray, stride: int, reference: np.ndarray,
                    reference_stride: int) -> float:
    """The largest relative difference between two loss curves over their common epochs."""
    if len(curve) == 0 or len(reference) == 0 or stride % reference_stride:
        return math.nan
    step = stride // reference_stride
    ref = np.asarray(reference, np.float64)[::step]
    count = min(len(ref), len(curve))
    if count == 0:
        return math.nan
    ref, ours = ref[:count], np.asarray(curve[:count], np.float64)
    return float(np.max(np.abs(ours - ref) / np.maximum(np.abs(ref), 1e-12)))


def ladder_rows(results: list[RunResult], run_ids: list[int | None] | None = None
                ) -> list[LadderRow]:
    """One row per run, grouped by device (in first-seen order), rungs in ladder order."""
    ids = run_ids if run_ids is not None else [None] * len(results)
    # Per device, the note's loop the speedups are against: one with a time whose timings are
    # whole (a run that failed part-way is no baseline).
    notes: dict[str, RunResult] = {}
    eager_curves: dict[str, tuple[np.ndarray, int]] = {}
    for result in results:
        device = result.config.device
        if (is_note_loop(result) and math.isfinite(result.timings.epoch_us)
                and comparable(result)):
            notes.setdefault(device, result)
        if result.config.engine == "eager" and len(result.losses):
            eager_curves.setdefault(device, (result.losses, result.loss_stride))
    devices = list(dict.fromkeys(r.config.device for r in results))
    order = sorted(range(len(results)), key=lambda i: (
        devices.index(results[i].config.device), ENGINES.index(results[i].config.engine)))
    rows = []
    for index in order:
        result, c, t = results[index], results[index].config, results[index].timings
        reference = eager_curves.get(c.device)
        deviation = (curve_deviation(result.losses, result.loss_stride, *reference)
                     if reference is not None else math.nan)
        rows.append(LadderRow(
            device=c.device, device_name=result.env.device_name, engine=c.engine,
            label=ENGINE_INFO[c.engine].title, framework=ENGINE_INFO[c.engine].framework,
            record=c.record, status=result.status.value, epoch_us=t.epoch_us,
            epoch_us_iqr=t.epoch_us_iqr if t.has_spread else math.nan, noisy=t.noisy,
            speedup=(steady_speedup(notes[c.device], result) if c.device in notes
                     else math.nan),
            compile_seconds=t.compile_seconds, curve_deviation=deviation,
            final_loss=result.final_loss, run_id=ids[index],
            note_loop=is_note_loop(result) and comparable(result),
            message=result.message, partial=result.timing_is_partial,
            cpu_wait_share=t.cpu_wait_share, cpu_busy=t.cpu_busy,
            contention=result.contention,
        ))
    return rows


@dataclass(frozen=True)
class Skipped:
    device: str
    engine: str
    reason: str


def ladder_configs(base: RunConfig, devices: list[DeviceInfo], engines: list[str] | None = None,
                   record: str = "device") -> tuple[list[RunConfig], list[Skipped]]:
    """What "run the ladder" runs: per device, the note's loop (the speedup baseline), then
    each engine with ``record``; what cannot run is skipped with its reason. ``base`` gives
    everything else (data set, model, optimizer, epochs, ...). No torch: availability comes
    from each DeviceInfo's ``engines``."""
    configs: list[RunConfig] = []
    skipped: list[Skipped] = []
    for device in devices:
        engine, note_record, call = NOTE_LOOP
        note = base.replace(device=device.id, engine=engine, record=note_record, call=call)
        configs.append(note)
        for name in engines or list(ENGINES):
            reason = device.engines.get(name) if device.engines else None
            if reason is None:
                try:
                    config = note.replace(engine=name, record=record)
                except ConfigError as error:
                    reason = str(error)
            if reason is not None:
                skipped.append(Skipped(device.id, name, reason))
            elif config != note:
                configs.append(config)
    return configs, skipped
