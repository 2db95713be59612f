"""The crossover's words, without Qt: tick labels, the notes and the key under a figure, the
findings beside the view's plot, the table's cells and the progress line; and whether a sweep
is made up. The figure (figures/crossover/crossover.py) and the Crossover view share them.

Every figure is the sweep's own (``SweepResult``'s points, fits and crossovers, the fit error
of each point from store/sweep_csv.py): this module only words and rounds them for the screen.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from html import escape

from iris_gui.engine.records.standing_words import (
    LOAD_UNMEASURED,
    NO_COUNTS,
    NO_FINDING,
    NOT_A_FINDING,
    WHILE_BUSY,
    not_a_finding,
)
from iris_gui.engine.records.sweep_model import (
    FIT_TOLERANCE,
    NO_ACCELERATOR_NOTE,
    NO_ACCELERATOR_SERIES,
    Crossover,
    SeriesFit,
    SweepPoint,
    SweepResult,
    is_no_accelerator_note,
)
from iris_gui.engine.words.numbers import measured
from iris_gui.figures.plot_theme import CAUTION_TEXT, NOTE

# The x axes the view offers: key -> (combo label, axis title). "batch" only for a sweep that
# varies the batch (``axis_choices``).
AXES = {
    "rows": ("rows", "rows of data (log scale)"),
    "hidden": ("hidden width", "hidden width (log scale)"),
    "flops": ("FLOPs per epoch", "FLOPs per epoch, forward + backward (log scale)"),
    "batch": ("batch size", "batch size, rows per step (log scale)"),
}
Y_TITLE = "time per epoch (log scale)"
# Set true in the made-up sweep's env (ui/panels/samples/sweep.py), where it travels through the
# store with the sweep: the figure then marks the plot as sample data.
SAMPLE_KEY = "sample"
# The engine's words for a sweep without an accelerator (the note; the plot's title).
NO_ACCELERATOR = NO_ACCELERATOR_NOTE
NO_ACCELERATOR_TITLE = NO_ACCELERATOR_SERIES
MISFIT = "the model does not fit here"
_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def width_word(model: str = "mlp") -> str:
    """What a size along the widths is called: the MLP's ``hidden width``, a ``cnn width``
    (its channels) or a ``transformer width`` (its features)."""
    return "hidden width" if model == "mlp" else f"{model} width"


def axis_words(axis: str, model: str = "mlp") -> tuple[str, str]:
    """``AXES[axis]`` (combo label, axis title) in the words of the sweep's model."""
    label, title = AXES[axis]
    return label.replace("hidden width", width_word(model)), title.replace(
        "hidden width", width_word(model))


def is_sample(result: SweepResult | None) -> bool:
    """Whether ``result`` is made up (its env says so): never a measurement."""
    return bool(result is not None and result.env.get(SAMPLE_KEY))


def varies_batch(result: SweepResult | None) -> bool:
    """Whether ``result`` measured more than one batch size (the batch then is an axis)."""
    if result is None:
        return False
    return len(set(result.spec.batches) | {p.batch for p in result.points}) > 1


def axis_choices(result: SweepResult | None) -> list[str]:
    """The x axes that make sense for ``result``: the batch size only where it varies."""
    return [key for key in AXES if key != "batch" or varies_batch(result)]


def varies(result: SweepResult | None, axis: str) -> bool:
    """Whether ``result``'s points take more than one value along ``axis``."""
    if result is None:
        return False
    value = {"rows": lambda p: p.rows, "hidden": lambda p: p.hidden, "batch": lambda p: p.batch,
             "flops": lambda p: p.flops_per_epoch}[axis]
    return len({v for p in result.points if (v := value(p)) == v}) > 1  # NaN: no value


def first_axis(result: SweepResult | None) -> str:
    """The axis a sweep is first shown along: the batch size where it varies, else the first
    size it varies (rows, then width), so that no sweep stands in one column."""
    if varies_batch(result):
        return "batch"
    return next((axis for axis in ("rows", "hidden", "flops") if varies(result, axis)), "rows")


def slice_choices(axis: str, points: Iterable[SweepPoint],
                  model: str = "mlp") -> list[tuple[str, int | None]]:
    """What the plot may hold fixed along the other dimension: all sizes ("all", short enough
    for the narrowest view), or one of them (along the batch size, the row count: each hidden
    width is a line of its own)."""
    if axis == "flops":
        return [("all", None)]
    if axis == "batch":
        counts = sorted({p.rows for p in points})
        return [("all", None), *((f"{v:,} rows", v) for v in counts)]
    other = "hidden" if axis == "rows" else "rows"
    values = sorted({getattr(p, other) for p in points})
    if other == "hidden":
        each = "hidden" if model == "mlp" else width_word(model)
        return [("all", None), *((f"{each} {v:,}", v) for v in values)]
    return [("all", None), *((f"{v:,} rows", v) for v in values)]


def compact(value: float) -> str:
    """``120``, ``3.3k``, ``10k``, ``1M``: a count in at most three figures and a prefix."""
    for scale, prefix in _PREFIXES:
        if abs(value) >= scale:
            return f"{value / scale:.3g}{prefix}"
    return f"{value:.3g}"


def duration(us: float) -> str:
    """``40 µs``, ``1 ms``, ``2.5 s``."""
    if us >= 1e6:
        return f"{us / 1e6:.3g} s"
    if us >= 1e3:
        return f"{us / 1e3:.3g} ms"
    return f"{us:.3g} µs"


def throughout_sentences(crossovers: Iterable[Crossover]) -> list[str]:
    """The pairs that never crossed, one sentence per winner and range ("... was faster than A,
    B and C throughout ..."), as ``Crossover.sentence`` words one pair."""
    groups: dict[tuple, list[Crossover]] = {}
    for c in crossovers:
        if c.at is None:
            groups.setdefault((c.faster_above, c.axis, c.fixed, c.batch, c.hidden, c.low,
                               c.high, c.cpu_busy), []).append(c)
    sentences = []
    for group in groups.values():
        if len(group) == 1:
            sentences.append(group[0].sentence())
            continue
        first = group[0]
        losers = [c.b if c.faster_above == c.a else c.a for c in group]
        text = (f"{first.faster_above} was faster than {_and(losers)} throughout "
                f"{first.span()} ({first.where()})")
        sentences.append(not_a_finding(text) if first.cpu_busy else text)
    return sentences


def fit_sentence(fit: SeriesFit) -> str:
    """``cpu/eager/1 thread: 98 µs + work at 4.5 GFLOP/s (within 3% at 5 points)``; with
    mini-batches ``98 µs per step + work at ...``."""
    error = fit.max_rel_error
    within = f"within {error:.0%}" if error <= FIT_TOLERANCE else f"off by up to {error:.0%}"
    busy = (f"; {fit.busy_left_out} {WHILE_BUSY} left out" if fit.busy_left_out else "")
    if fit.busy_included:
        busy = f"; includes {fit.busy_included} {WHILE_BUSY}: {NO_FINDING}"
    step = " per step" if fit.mini_batch else ""
    return (f"{fit.series}: {fit.floor_us:,.0f} µs{step} + work at {gflops_text(fit.gflops)} "
            f"GFLOP/s ({within} at {fit.points} points{busy})")


def fits_title(result: SweepResult | None) -> str:
    """The model the fits are, as the findings head them."""
    if result is not None and any(f.mini_batch for f in result.fits):
        return "Fits: µs/epoch = steps × floor + work / throughput (steps: optimizer steps)"
    return "Fits: µs/epoch = floor + work / throughput"


def batch_size_text(batch: int) -> str:
    return f"batch {batch:,}" if batch else "full batch"


def misfit_sentence(series: str, rows: int, hidden: int, error: float,
                    batch: int | None = None, model: str = "mlp") -> str:
    """The point the model misses; ``batch`` named where the sweep varies it."""
    size = f"{rows:,} rows, {'hidden' if model == 'mlp' else width_word(model)} {hidden:,}"
    if batch is not None:
        size += f", {batch_size_text(batch)}"
    return (f"{MISFIT}: {series} at {size} "
            f"(the fit is {abs(error):.0%} {'above' if error > 0 else 'below'} the measurement)")


def status_notes(result: SweepResult) -> list[str]:
    """The sweep's own notes, led by the missing accelerator, each said once."""
    notes = []
    if result.env.get("accelerators") == []:
        notes.append(NO_ACCELERATOR)
    if result.status != "completed":
        notes.append(f"{result.status}: {result.message}" if result.message else result.status)
    busy = sum(1 for p in result.points if p.cpu_busy)
    if busy:
        notes.append(f"{busy} point{'s were' if busy > 1 else ' was'} {WHILE_BUSY} with other "
                     "work (even when measured again): their timings are not "
                     "comparable, the fits leave them out (or say they include them) and their "
                     "crossings are not findings")
    unread = sum(1 for p in result.points if p.measured and not p.load_measured)
    if unread:
        notes.append(f"{unread} point{'s' if unread > 1 else ''}' {LOAD_UNMEASURED} "
                     f"({NO_COUNTS}): other work may be in {'their' if unread > 1 else 'its'} "
                     "timings, which the fits use as they are")
    # A stored sweep's note in its former words is the same note.
    notes.extend(NO_ACCELERATOR if is_no_accelerator_note(n) else n for n in result.notes)
    return list(dict.fromkeys(notes))


def sweep_notes(result: SweepResult | None, axis: str) -> list[str]:
    """The notes over the findings and in a figure's key: the sweep's own; along the batch
    size, where its full batch is drawn; along the hidden width, that one width leaves nothing
    to compare."""
    if result is None:
        return []
    notes = status_notes(result)
    if axis == "batch" and any(p.batch == 0 for p in result.points):
        notes.append("along the batch size the full batch is drawn at its row count, one "
                     "step per epoch")
    if axis == "hidden" and result.points and len({p.hidden for p in result.points}) < 2:
        notes.append(f"one {width_word(result.spec.model)} was swept: sweep several (e.g. 10,100,1000) to "
                     "compare along it")
    return notes


def us_cell(epoch_us: float, iqr_us: float) -> str:
    # The one number style (engine/words/numbers.py): ".2g" wrote 85,965 ± 5.6e+02.
    return measured(epoch_us, iqr_us) if math.isfinite(epoch_us) else ""


def gflops_text(value: float) -> str:
    """Three significant figures, whole numbers from 100 on: ".3g" wrote 2,000 as 2e+03."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def number_cell(value: float) -> str:
    return "" if value is None or not math.isfinite(value) else gflops_text(value)


def error_cell(error: float | None) -> str:
    if error is None or not math.isfinite(error):
        return ""
    mark = "  ⚠ " + MISFIT if abs(error) > FIT_TOLERANCE else ""
    return f"{error:+.1%}{mark}"


def status_cell(status: str, message: str) -> str:
    return f"{status}: {message}" if message else status


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def log_tick_levels(low: float, high: float) -> tuple[list[float], list[float]]:
    """Tick positions (log10) between ``low`` and ``high``: the labelled ones (each decade; 2
    and 5 as well when under two decades are in view) and the unlabelled steps between."""
    labelled_steps = (1,) if high - low >= 2 else (1, 2, 5)
    labelled, plain = [], []
    for decade in range(math.floor(low), math.ceil(high) + 1):
        for step in range(1, 10):
            at = decade + math.log10(step)
            if low <= at <= high:
                (labelled if step in labelled_steps else plain).append(at)
    return labelled, plain


def tick_label(value: float, kind: str) -> str:
    """A labelled tick at log10 ``value``: a duration on the time axis, a count elsewhere."""
    return (duration if kind == "us" else compact)(10 ** value)




def findings_html(notes: list[str], crossings: list[tuple[int, Crossover, str]],
                  throughout: list[str], fits: list[str], misfits: list[str],
                  fits_heading: str = fits_title(None)) -> str:
    """What the sweep found, under the plot: notes, the numbered crossings (the numbers are the
    plot's tags), who was faster throughout, each series' fit and the points it misses."""
    parts = [_notes_html(notes)]
    found = [c for c in crossings if not c[1].cpu_busy]
    busy = [c for c in crossings if c[1].cpu_busy]
    plain = [s for s in throughout if not s.startswith(NOT_A_FINDING)]
    if found:
        parts.append(_section("Crossings (numbered on the plot)", _crossing_items(found)))
    if plain:
        parts.append(_section("Faster throughout", [escape(s) for s in plain]))
    # Under this heading each sentence goes without the heading's words in front of it.
    busy_items = [item.replace(f"{NOT_A_FINDING}: ", "", 1) for item in
                  _crossing_items(busy) + [escape(s) for s in throughout if s not in plain]]
    if busy_items:
        parts.append(_section(f"Not findings: {WHILE_BUSY}", busy_items))
    if fits:
        parts.append(_section(fits_heading, [escape(s) for s in fits]))
    if misfits:
        parts.append(_section("Off the model", [f'<span style="color:{CAUTION_TEXT}">'
                                                f"{escape(s)}</span>" for s in misfits]))
    return "".join(parts)


def caption_html(notes: list[str], crossings: list[tuple[int, Crossover, str]],
                 misfits: list[str]) -> str:
    """The key under an exported figure: its notes, numbered crossings and misfits."""
    lines = [f'<span style="color:{NOTE}">{escape(n)}</span>' for n in notes]
    lines += _crossing_items(crossings)
    lines += [f'<span style="color:{CAUTION_TEXT}">○ {escape(s)}</span>' for s in misfits]
    return "<br>".join(lines)


def _crossing_items(crossings: list[tuple[int, Crossover, str]]) -> list[str]:
    return [f'<b style="color:{colour}">{number}</b>&nbsp; {escape(c.sentence())}'
            for number, c, colour in crossings]


def _notes_html(notes: list[str]) -> str:
    return "".join(f'<p style="color:{CAUTION_TEXT}; margin:0 0 4px 0">{escape(n)}</p>'
                   for n in notes)


def _section(title: str, items: list[str]) -> str:
    rows = "".join(f"<li>{item}</li>" for item in items)
    return (f'<p style="margin:6px 0 0 0"><b>{escape(title)}</b></p>'
            f'<ul style="margin:2px 0 0 0; -qt-list-indent:1">{rows}</ul>')
