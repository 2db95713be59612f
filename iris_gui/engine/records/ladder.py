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
from iris_gui.engine.records.standing import SHORT, Kind, measurable, standing
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.engines import ENGINE_INFO, ENGINES
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.words.labels import SEPARATOR, setting_parts

NOTE_LOOP = ("eager", "every-epoch", "forward")


def is_note_loop(result: RunResult) -> bool:
    """The note's own loop: eager, the loss read every epoch, ``model.forward(x)``, on the
    note's full batch of resident float32 data (a batch-32 or bfloat16 eager run is a rung of
    its own, named by its settings)."""
    c = result.config
    return (c.engine, c.record, c.call) == NOTE_LOOP and not setting_parts(c)


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
    # The batch, data path and precision where they are not the note's ("batch 32 · bfloat16";
    # "" for the note's), shown on the bar so that two eager bars never look alike.
    settings: str = ""
    # Whether ``speedup`` is a result (records/standing.py: "result", "within-noise",
    # "load-not-measured", "busy", "noisy", "other-data", "partial") and why not or what it
    # lacks, in one sentence.
    standing: str = "result"
    standing_reason: str = ""
    # The run of the note's loop the speedup is against (its id; None when unsaved or absent).
    reference_id: int | None = None

    @property
    def speedup_is_result(self) -> bool:
        return self.standing in (Kind.RESULT.value, Kind.WITHIN_NOISE.value,
                                 Kind.UNMEASURED.value)

    @property
    def unfit(self) -> str:
        """"CPU busy", "noisy", "other data": why its ratio is no result; "" when it is one,
        or when it failed part-way (which its partial mark says)."""
        if self.speedup_is_result or self.partial:
            return ""
        return SHORT.get(Kind(self.standing), self.standing)

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


def rung_title(config: RunConfig) -> str:
    """The rung's title; eager on other settings than the note's is not "the note's loop"."""
    if config.engine == "eager" and setting_parts(config):
        return "eager"
    return ENGINE_INFO[config.engine].title


def references(results: list[RunResult]) -> dict[str, RunResult]:
    """Per device, the one run of the note's loop every rung there is against: the first with
    a whole time measured on a quiet machine, else the first with a whole time (its busy or
    noisy standing then makes every ratio there no result). Other runs of the note's loop are
    rows like any rung, against it."""
    chosen: dict[str, RunResult] = {}
    for quiet in (True, False):
        for result in results:
            t = result.timings
            if (is_note_loop(result) and math.isfinite(t.epoch_us) and comparable(result)
                    and (not quiet or not (t.cpu_busy or t.noisy))):
                chosen.setdefault(result.config.device, result)
    return chosen


def ladder_rows(results: list[RunResult], run_ids: list[int | None] | None = None
                ) -> list[LadderRow]:
    """One row per run, grouped by device (in first-seen order), rungs in ladder order."""
    ids = run_ids if run_ids is not None else [None] * len(results)
    notes = references(results)
    eager_curves: dict[str, tuple[np.ndarray, int]] = {}
    for result in results:
        if result.config.engine == "eager" and len(result.losses):
            eager_curves.setdefault(result.config.device, (result.losses, result.loss_stride))
    devices = list(dict.fromkeys(r.config.device for r in results))
    order = sorted(range(len(results)), key=lambda i: (
        devices.index(results[i].config.device), ENGINES.index(results[i].config.engine),
        results[i] is not notes.get(results[i].config.device)))
    rows = []
    for index in order:
        result, c, t = results[index], results[index].config, results[index].timings
        reference = eager_curves.get(c.device)
        deviation = (curve_deviation(result.losses, result.loss_stride, *reference)
                     if reference is not None else math.nan)
        note = notes.get(c.device)
        stand = (standing(note, result, "this rung", f"the note's loop on {c.device}")
                 if note is not None and note is not result else measurable(result, "this rung"))
        rows.append(LadderRow(
            device=c.device, device_name=result.env.device_name, engine=c.engine,
            label=rung_title(c), framework=ENGINE_INFO[c.engine].framework,
            record=c.record, status=result.status.value, epoch_us=t.epoch_us,
            epoch_us_iqr=t.epoch_us_iqr if t.has_spread else math.nan, noisy=t.noisy,
            speedup=steady_speedup(note, result) if note is not None else math.nan,
            compile_seconds=t.compile_seconds, curve_deviation=deviation,
            final_loss=result.final_loss, run_id=ids[index], note_loop=note is result,
            message=result.message, partial=result.timing_is_partial,
            cpu_wait_share=t.cpu_wait_share, cpu_busy=t.cpu_busy,
            contention=result.contention, settings=SEPARATOR.join(setting_parts(c)),
            standing=stand.kind.value, standing_reason=stand.reason,
            reference_id=ids[results.index(note)] if note is not None else None,
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
