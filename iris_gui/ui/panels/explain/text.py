"""The explain panel's text pane: one run's counts as a table, its sentences, its notes.

Kept apart from the panel's chart so each stays small; both read only the ``Breakdown``.
"""

from __future__ import annotations

import html
import math

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.figures.plot_theme import NOTE

COUNT_COLUMNS = 3  # name/value pairs per table row


def breakdown_html(label: str, breakdown: Breakdown, hint: str = "") -> str:
    """The counts as a table, the sentences as a list, the notes small and grey."""
    cells = [f'<td style="color:{NOTE}">{html.escape(name)}</td>'
             f'<td style="padding-right:18px">{html.escape(value)}</td>'
             for name, value in count_rows(breakdown)]
    rows = "".join("<tr>" + "".join(cells[i:i + COUNT_COLUMNS]) + "</tr>"
                   for i in range(0, len(cells), COUNT_COLUMNS))
    sentences = "".join(f"<li>{html.escape(s)}</li>" for s in breakdown.sentences())
    notes = "<br>".join(html.escape(note) for note in breakdown.notes)
    aside = f' <span style="color:{NOTE}">({html.escape(hint)})</span>' if hint else ""
    head = (f"<b>{html.escape(label)}</b>{aside}<br>{html.escape(breakdown.device_name)} "
            f"({html.escape(breakdown.device)}): {breakdown.epochs_profiled} epochs profiled "
            f"after {breakdown.warmup_epochs} warm-up, {breakdown.replicates} replicates")
    text = f'<p>{head}</p><table cellspacing="2">{rows}</table><ul style="margin-top:6px; margin-bottom:0px">{sentences}</ul>'
    if notes:
        text += f'<p style="color:{NOTE}; font-size:small">{notes}</p>'
    return text


def count_rows(breakdown: Breakdown) -> list[tuple[str, str]]:
    """(name, value) for each count; accelerator-only ones say why they are missing. A run
    that fetches batches (mini-batches, the loader) first has its per-step view."""
    missing = ("n/a on the CPU" if not breakdown.on_accelerator
               else f"n/a: the profiler saw no activity on {breakdown.device}")

    def shown(value: float | None, unit: str = "") -> str:
        return missing if value is None else f"{value:g}{unit}"

    def measured(value: float, spec: str, unit: str = "") -> str:
        # NaN: a figure an older or partial record does not hold.
        return f"{value:{spec}}{unit}" if math.isfinite(value) else "not in this record"

    copies = shown(breakdown.copies_per_epoch)
    if breakdown.copies_per_epoch is not None and breakdown.copy_bytes_per_epoch is not None:
        copies += f" ({breakdown.copy_bytes_per_epoch:g} bytes)"
    steps = []
    if breakdown.batched:
        batch = breakdown.config.get("batch")
        share = breakdown.data_pct
        data = "inside the step" if share is None else f"{share:.0f}% of each step"
        source = breakdown.data_source
        if math.isfinite(breakdown.data_wait_pct):
            source += f"; {breakdown.data_wait_pct:.0f}% unprofiled"
        kernels = breakdown.kernels_per_step
        # One table row of its own (COUNT_COLUMNS): the step, what it makes, what it waits for.
        steps = [
            ("steps per epoch", f"{breakdown.steps_per_epoch}"
                                + (f" of {batch} rows" if batch else " (full batch)")),
            ("per step", f"{measured(breakdown.syncs_per_step, '.3g')} "
                         f"sync{'' if breakdown.syncs_per_step == 1 else 's'}, "
                         + (f"{kernels:.3g} kernels" if kernels is not None
                            else f"kernels {missing}")),
            ("fetching data", f"{data} ({source})"),
        ]
    return [
        *steps,
        ("syncs per epoch", measured(breakdown.syncs_per_epoch, "g")),
        ("kernels per epoch", shown(breakdown.kernels_per_epoch)),
        ("kernel launches", shown(breakdown.launch_us_per_epoch, " µs per epoch")),
        ("device busy", shown(breakdown.device_busy_pct, "% of the epoch")),
        ("copies per epoch", copies),
        ("epoch, profiled", measured(breakdown.epoch_us_profiled, ".0f", " µs")),
        ("epoch, unprofiled", measured(breakdown.epoch_us_unprofiled, ".0f", " µs")),
        ("profiler overhead", measured(breakdown.profiler_overhead_pct, ".0f", "%")),
        ("accounted for", measured(breakdown.accounted_pct, ".0f", "% of the profiled epoch")),
    ]
