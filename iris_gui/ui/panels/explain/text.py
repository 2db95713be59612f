"""The explain panel's text pane: one run's answer to the note's question first, then its
sentences (visible without scrolling in a docked pane), the estimate for a GPU in a box of its
own, then the counts as a table and the notes.

Kept apart from the panel's chart so each stays small; all of it reads only the ``Breakdown``.
"""

from __future__ import annotations

import html
import math

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.breakdown_text import op_kind_words, overhead_words
from iris_gui.engine.records.gpu_estimate import ESTIMATE_MARK, GpuEstimate, range_us
from iris_gui.engine.records.standing_words import BUSY
from iris_gui.engine.words.numbers import plain
from iris_gui.figures.plot_theme import NOTE

COUNT_COLUMNS = 3  # name/value pairs per table row
ESTIMATE_TITLE = f"On a GPU — {ESTIMATE_MARK}"


def breakdown_html(label: str, breakdown: Breakdown, hint: str = "", regime: str = "") -> str:
    """The answer, the regime (against the device's kept ceilings), the sentences as a list,
    the run's head, then the estimate, the counts as a table, the notes small and grey."""
    aside = f' <span style="color:{NOTE}">({html.escape(hint)})</span>' if hint else ""
    # The label names the device; the head adds what it is and the window's sizes.
    head = (f"<b>{html.escape(label)}</b>{aside} · {html.escape(breakdown.device_name)}: "
            f"{breakdown.epochs_profiled:,} epochs profiled after {breakdown.warmup_epochs:,} "
            f"warm-up, {breakdown.replicates} replicates")
    # The answer to the note's question first and its measured sentences: what a docked pane
    # shows without scrolling; then which run and window they are of.
    text = (f'<p style="margin-top:0px; margin-bottom:0px"><b>{html.escape(breakdown.answer())}'
            "</b></p>")
    if regime:
        text += (f'<p style="margin-top:0px; margin-bottom:0px"><span style="color:{NOTE}">'
                 f"regime</span> {html.escape(regime)}</p>")
    sentences = "".join(f"<li>{html.escape(s)}</li>" for s in breakdown.sentences())
    text += f'<ul style="margin-top:0px; margin-bottom:0px">{sentences}</ul>'
    text += f'<p style="margin-top:0px; margin-bottom:2px">{head}</p>'
    text += estimate_html(breakdown)
    cells = [f'<td style="color:{NOTE}">{html.escape(name)}</td>'
             f'<td style="padding-right:18px">{html.escape(value)}</td>'
             for name, value in count_rows(breakdown)]
    rows = "".join("<tr>" + "".join(cells[i:i + COUNT_COLUMNS]) + "</tr>"
                   for i in range(0, len(cells), COUNT_COLUMNS))
    text += f'<table cellspacing="2">{rows}</table>'
    if kinds := op_kind_words(breakdown):
        text += (f'<p style="margin:0px"><span style="color:{NOTE}">by op kind</span> '
                 f"{html.escape(kinds)}</p>")
    notes = "<br>".join(html.escape(note) for note in breakdown.notes)
    if notes:
        text += f'<p style="color:{NOTE}; font-size:small">{notes}</p>'
    return text


def estimate_html(breakdown: Breakdown) -> str:
    """The estimate's box: its title, its sentences, its figures and their sources; dashed, so
    that it never reads as one of the measured figures around it. "" on an accelerator."""
    sentences = breakdown.estimate_sentences()
    if not sentences:
        return ""
    estimate = breakdown.gpu_estimate
    # The first says what cannot be measured here: beside the title, a line saved. The
    # estimate's own sentence is the pane's first line already, in the answer; its figures
    # are in the table below.
    said = estimate.sentence(busy=breakdown.busy_words) if estimate is not None else ""
    first, rest = sentences[0], [s for s in sentences[1:] if s != said]
    items = "".join(f"<li>{html.escape(s)}</li>" for s in rest)
    figures = ""
    if estimate is not None and estimate.estimated:
        figures = "".join(f'<tr><td style="color:{NOTE}">{html.escape(name)}</td>'
                          f"<td>{html.escape(value)}</td></tr>"
                          for name, value in estimate_rows(estimate))
        figures = f'<table cellspacing="2">{figures}</table>'
    notes = "" if estimate is None else "<br>".join(html.escape(n) for n in estimate.notes)
    if notes:
        notes = f'<p style="color:{NOTE}; font-size:small; margin:0px">{notes}</p>'
    return (f'<table border="1" cellspacing="0" cellpadding="2" width="100%" '
            f'style="border-style:dashed; border-color:{NOTE}; margin-bottom:4px"><tr><td>'
            f"<b>{html.escape(ESTIMATE_TITLE)}:</b> {html.escape(first)}"
            f'<ul style="margin-top:0px; margin-bottom:0px">{items}</ul>{figures}{notes}'
            "</td></tr></table>")


def estimate_rows(estimate: GpuEstimate) -> list[tuple[str, str]]:
    """(name, value) for each figure of the estimate, every value marked as estimated."""
    kernels = estimate.kernels_per_epoch or 0.0
    launch, sync = estimate.launch, estimate.sync
    return [
        ("kernel launches per epoch", f"≈ {kernels:g} (estimated)"),
        ("syncs per epoch", f"≈ {estimate.syncs_per_epoch:g} (estimated)"),
        ("per launch", f"{range_us(launch.low_us, launch.high_us)} µs ({launch.source})"),
        ("per sync", f"{range_us(sync.low_us, sync.high_us)} µs ({sync.source})"),
        ("overhead per epoch",
         f"{range_us(estimate.overhead_low_us, estimate.overhead_high_us)} µs (estimated)"),
    ]


def count_rows(breakdown: Breakdown) -> list[tuple[str, str]]:
    """(name, value) for each measured count; accelerator-only ones say why they are missing.
    A run that fetches batches (mini-batches, the loader) first has its per-step view."""
    missing = ("n/a on the CPU" if not breakdown.on_accelerator
               else f"n/a: the profiler saw no activity on {breakdown.device}")
    busy = f" ({BUSY})" if breakdown.cpu_busy else ""

    def shown(value: float | None, unit: str = "") -> str:
        return missing if value is None else f"{value:g}{unit}"

    def measured(value: float, unit: str = "", mark: str = "") -> str:
        # NaN: a figure an older or partial record does not hold.
        return f"{plain(value, 0)}{unit}{mark}" if math.isfinite(value) else "not in this record"

    copies = shown(breakdown.copies_per_epoch)
    if breakdown.copies_per_epoch is not None and breakdown.copy_bytes_per_epoch is not None:
        copies += f" ({breakdown.copy_bytes_per_epoch:g} bytes)"
    syncs = breakdown.syncs_per_epoch
    return [
        *_step_rows(breakdown, missing),
        ("syncs per epoch", f"{syncs:g}" if math.isfinite(syncs) else "not in this record"),
        ("kernels per epoch", shown(breakdown.kernels_per_epoch)),
        ("kernel launches", shown(breakdown.launch_us_per_epoch, " µs per epoch")),
        ("device busy", shown(breakdown.device_busy_pct, "% of the epoch")),
        ("copies per epoch", copies),
        ("epoch, profiled", measured(breakdown.epoch_us_profiled, " µs", busy)),
        ("epoch, unprofiled", measured(breakdown.epoch_us_unprofiled, " µs", busy)),
        ("profiler overhead", overhead_words(breakdown)),
        ("accounted for", measured(breakdown.accounted_pct, "% of the profiled epoch")),
    ]


def _step_rows(breakdown: Breakdown, missing: str) -> list[tuple[str, str]]:
    """One table row of its own (COUNT_COLUMNS): the step, what it makes, what it waits for."""
    if not breakdown.batched:
        return []
    batch = breakdown.config.get("batch")
    share = breakdown.data_pct
    data = "inside the step" if share is None else f"{share:.0f}% of each step"
    source = breakdown.data_source
    if math.isfinite(breakdown.data_wait_pct):
        source += f"; {breakdown.data_wait_pct:.0f}% unprofiled"
    kernels = breakdown.kernels_per_step
    syncs = breakdown.syncs_per_step
    return [
        ("steps per epoch", f"{breakdown.steps_per_epoch}"
                            + (f" of {batch} rows" if batch else " (full batch)")),
        ("per step", (f"{syncs:.3g}" if math.isfinite(syncs) else "not in this record")
                     + f" sync{'' if syncs == 1 else 's'}, "
                     + (f"{kernels:.3g} kernels" if kernels is not None
                        else f"kernels {missing}")),
        ("fetching data", f"{data} ({source})"),
    ]
