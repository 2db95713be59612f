"""The note's list of when the GPU wins, each item answered by a sweep.

The study note ends with when a GPU pays off: large data sets, large models (CNNs,
Transformers), batch sizes that fill the device, heavy parallel maths; the same question one
level up, when a second device pays off, is the last item (one process against two, each
answered by the crossings between their series). Each item here is a
sweep along one axis (``ITEMS``: its spec, sized to take well under a minute per device on a
laptop's CPU), answered from the measured crossings between a CPU series and an accelerator
series along that axis (records/sweep_fit.py): where the accelerator overtakes the CPU, that one
was faster throughout the measured range, or, with only the CPU measured, that the item needs a
GPU series. Heavy parallel maths is no sweep of its own: the model-size items are it, their
work per step growing with the width (the Crossover view plots them against FLOPs per step).

Any stored sweep that varies an item's axis for its family answers the item, a user's own
included: the newest with an accelerator series is preferred, then the newest.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.roofline import regime_path
from iris_gui.engine.records.standing_words import BUSY_SUFFIX, not_a_finding
from iris_gui.engine.records.sweep_model import Crossover, SweepPoint, SweepResult, SweepSpec


def _spec(**sizes: Any) -> SweepSpec:
    """An item's sweep: eager alone (where the device wins for the loop the note wrote), on
    every device, the CPU at torch's default threads."""
    return SweepSpec(engines=("eager",), devices=("all",), threads=("all",), **sizes)


@dataclass(frozen=True)
class NoteItem:
    key: str
    claim: str  # the note's words
    axis: str  # "rows" | "hidden" | "batch": the crossings read
    unit: str  # a size along the axis in words, for this family: "{} rows", "width {}"
    spec: SweepSpec

    def size(self, value: float) -> str:
        return self.unit.format(f"{value:,.0f}")

    @property
    def across_worlds(self) -> bool:
        """Whether the item compares process counts rather than the CPU and an
        accelerator."""
        return len(self.spec.worlds) > 1

    def answered_by(self, spec: SweepSpec) -> bool:
        """Whether a sweep of ``spec`` varies this item's axis for this item's family (and,
        for the item across worlds, the processes)."""
        if self.across_worlds and len(set(spec.worlds)) < 2:
            return False
        if self.axis == "batch":
            return len(set(spec.batches)) >= 2
        if spec.model != self.spec.model:
            return False
        return len(set(getattr(spec, self.axis))) >= 2


ITEMS: tuple[NoteItem, ...] = (
    NoteItem("data", "Large data sets", "rows", "{} rows",
             _spec(rows=(150, 1_500, 15_000, 150_000, 1_500_000), hidden=(10,))),
    NoteItem("mlp", "Large models: a wider MLP", "hidden", "{} hidden units",
             _spec(rows=(10_000,), hidden=(10, 100, 1_000, 4_000))),
    NoteItem("cnn", "Large models: CNNs", "hidden", "{} channels",
             _spec(model="cnn", rows=(1_024,), hidden=(4, 16, 64), features=16,
                       classes=10, image_size=16, channels=1, depth=2)),
    NoteItem("transformer", "Large models: Transformers", "hidden", "width {}",
             _spec(model="transformer", rows=(512,), hidden=(16, 64, 256), features=16,
                       classes=4, seq_len=16, heads=2, depth=2)),
    NoteItem("batch", "Batch sizes that fill the device", "batch", "{} rows per step",
             _spec(rows=(16_384,), hidden=(100,), batches=(64, 512, 4_096, 0))),
    # The note's lesson one level up: a second device pays an all-reduce before it pays off.
    # Processes of one thread each on the CPU, so it runs on any machine of two cores.
    NoteItem("world", "More than one device", "hidden",
             "{} channels",
             SweepSpec(model="cnn", engines=("eager",), devices=("cpu",), threads=("1",),
                       worlds=(1, 2), rows=(1_024,), hidden=(4, 16, 64), features=16,
                       classes=10, image_size=16, channels=1, depth=2)),
)
PARALLEL_MATHS = ("Heavy parallel maths (matrix products, convolutions) is what the model-size "
                  "items measure: their work per step grows with the width.")
CPU_ONLY = ("only the CPU was measured{}; a GPU series (a GPU here, or a GPU host) would show "
            "whether and from where it overtakes the CPU")


def item(key: str) -> NoteItem:
    """The item named ``key``; ValueError names the keys there are."""
    for found in ITEMS:
        if found.key == key:
            return found
    raise ValueError(f"no item {key!r} in the note's list; there are "
                     f"{', '.join(i.key for i in ITEMS)}")


@dataclass(frozen=True)
class NoteAnswer:
    item: NoteItem
    state: str  # "unmeasured" | "cpu only" | "crossing" | "throughout" | "not a finding"
    text: str  # the answer in words, one sentence per pair of series compared
    sweep_id: int | None = None
    at: float | None = None  # the first crossing where the accelerator overtakes the CPU


def pick_sweep(key: str, stored: Iterable[tuple[int, SweepResult]]) -> tuple[int, SweepResult] | None:
    """The stored sweep (id, result) answering item ``key``: the newest with an accelerator
    series, else the newest (``stored`` oldest first)."""
    wanted = item(key)
    fits = [(i, r) for i, r in stored if wanted.answered_by(r.spec) and r.points]
    on_device = [(i, r) for i, r in fits if _accelerators(r)]
    chosen = on_device or fits
    return chosen[-1] if chosen else None


def answer(key: str, result: SweepResult | None, sweep_id: int | None = None,
           kept: Sequence[Ceilings] = ()) -> NoteAnswer:
    """Item ``key`` answered from ``result``'s measured points (None: not measured yet), with
    where each series' regime changes under the ``kept`` ceilings of its device."""
    found = _answer(key, result, sweep_id)
    path = regime_path(result, list(kept), found.item.axis) if result is not None else ""
    return replace(found, text=f"{found.text}; regimes: {path}") if path else found


def _answer(key: str, result: SweepResult | None, sweep_id: int | None) -> NoteAnswer:
    wanted = item(key)
    if result is None or not any(p.measured for p in result.points):
        return NoteAnswer(wanted, "unmeasured", "not measured yet", sweep_id)
    where = f"sweep {sweep_id}: " if sweep_id is not None else ""
    if wanted.across_worlds:
        return _world_answer(wanted, result, where, sweep_id)
    if not _accelerators(result):
        return NoteAnswer(wanted, "cpu only", where + CPU_ONLY.format(_cpu_range(result, wanted)),
                          sweep_id)
    pairs = _pairs(result.crossovers, wanted.axis, _cpu_series(result))
    if not pairs:
        return NoteAnswer(wanted, "unmeasured", where + "no CPU and accelerator point was "
                          "measured at two common sizes", sweep_id)
    sentences = [_sentence(c, wanted) for c in pairs]
    found = [c for c in pairs if c.at is not None and not _on_cpu(c.faster_above)]
    firm = [c for c in found if not c.cpu_busy]
    state = ("crossing" if firm else "not a finding" if found or all(c.cpu_busy for c in pairs)
             else "throughout")
    at = min((c.at for c in firm if c.at is not None), default=None)
    return NoteAnswer(wanted, state, where + "; ".join(sentences), sweep_id, at)


def _world_answer(wanted: NoteItem, result: SweepResult, where: str,
                  sweep_id: int | None) -> NoteAnswer:
    """One process against several of the same engine and threads, along the item's axis."""
    def alone(series: str) -> str:  # the series without its processes
        return "/".join(series.split("/")[:3])

    pairs = [c for c in result.crossovers if c.axis == wanted.axis and alone(c.a) == alone(c.b)
             and (c.a == alone(c.a)) != (c.b == alone(c.b))]
    if not pairs:
        return NoteAnswer(wanted, "unmeasured", where + "no one-process and several-process "
                          "point was measured at two common sizes", sweep_id)
    sentences = []
    for c in pairs:
        one, many = (c.a, c.b) if c.a == alone(c.a) else (c.b, c.a)
        sentences.append(_sentence(c, wanted, many, one))
    firm_at = [c.at for c in pairs if c.at is not None and c.faster_above != alone(
        c.faster_above) and not c.cpu_busy]
    state = ("crossing" if firm_at else "not a finding" if any(c.cpu_busy for c in pairs)
             else "throughout")
    return NoteAnswer(wanted, state, where + "; ".join(sentences), sweep_id,
                      min(firm_at, default=None))


def answers(stored: Sequence[tuple[int, SweepResult]],
            kept: Sequence[Ceilings] = ()) -> list[NoteAnswer]:
    """Every item answered from ``stored`` (id, result) sweeps, oldest first, each series'
    regimes placed under the ``kept`` ceilings."""
    found = []
    for each in ITEMS:
        picked = pick_sweep(each.key, stored)
        result, sweep_id = picked[::-1] if picked else (None, None)
        found.append(answer(each.key, result, sweep_id, kept))
    return found


def families(stored: Sequence[tuple[int, SweepResult]]) -> list[tuple[NoteAnswer, SweepResult]]:
    """The model-size items' answers with their sweeps, for one plot of every family against
    FLOPs per step; an item with no stored sweep is left out."""
    found = []
    for each in ITEMS:
        picked = pick_sweep(each.key, stored) if each.axis == "hidden" else None
        if picked is not None:
            found.append((answer(each.key, picked[1], picked[0]), picked[1]))
    return found


def _accelerators(result: SweepResult) -> set[str]:
    return {p.series for p in result.points if p.device != "cpu" and p.measured}


def _cpu_series(result: SweepResult) -> set[str]:
    """Per engine, the one-process CPU series with the most threads: torch's default, the
    note's CPU."""
    best: dict[str, tuple[int, str]] = {}
    for p in result.points:
        if p.device == "cpu" and p.world == 1 and p.measured and (p.threads or 0) >= best.get(p.engine, (-1, ""))[0]:
            best[p.engine] = (p.threads or 0, p.series)
    return {series for _, series in best.values()}


def _cpu_range(result: SweepResult, wanted: NoteItem) -> str:
    """What the CPU measured at the smallest and largest size: " (cpu/eager/2 threads: 41 µs
    per epoch at 150 rows, 21,000 µs at 1,500,000 rows)", or "" with fewer than two sizes."""
    cpu = sorted(_cpu_series(result))
    line: dict[int, SweepPoint] = {}
    for p in result.points:
        if cpu and p.series == cpu[0] and p.measured:
            line.setdefault(p.batch or p.rows if wanted.axis == "batch" else
                            getattr(p, wanted.axis), p)
    if len(line) < 2:
        return ""
    low, high = min(line), max(line)
    return (f" ({cpu[0]}: {_figure(line[low], 'µs per epoch')} at {wanted.size(low)}, "
            f"{_figure(line[high], 'µs')} at {wanted.size(high)})")


def _figure(point: SweepPoint, unit: str) -> str:
    """A point's time in ``unit``, marked as every view marks a figure measured on a busy
    CPU."""
    return f"{point.epoch_us:,.0f} {unit}" + (BUSY_SUFFIX if point.cpu_busy else "")


def _on_cpu(series: str) -> bool:
    return series.startswith("cpu/")


def _pairs(crossovers: Sequence[Crossover], axis: str, cpu: set[str]) -> list[Crossover]:
    # The note's CPU against an accelerator of the same engine, along the item's axis.
    return [c for c in crossovers if c.axis == axis and c.a.split("/")[1] == c.b.split("/")[1]
            and ((c.a in cpu and not _on_cpu(c.b)) or (c.b in cpu and not _on_cpu(c.a)))]


def _sentence(c: Crossover, wanted: NoteItem, new: str | None = None,
              old: str | None = None) -> str:
    """Crossing ``c`` in words, ``new`` (by default the accelerator) against ``old`` (the
    CPU)."""
    if new is None or old is None:
        new = c.b if _on_cpu(c.a) else c.a
        old = c.a if new == c.b else c.b
    held = c.where()
    span = f"{wanted.size(c.low)} to {wanted.size(c.high)}"
    if c.at is None:
        faster, other = (new, old) if c.faster_above == new else (old, new)
        text = f"{faster} was faster than {other} throughout {span} ({held})"
    elif c.faster_above == new:
        text = f"{new} overtakes {old} from ~{wanted.size(c.at)} ({held})"
    else:
        text = f"{old} overtakes {new} again from ~{wanted.size(c.at)} ({held})"
    return not_a_finding(text) if c.cpu_busy else text
