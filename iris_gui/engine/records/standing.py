"""Whether a speedup between two runs is a result, and if not, why: the one rule that the
results table, Details, the Ladder, ``compare``, ``runs list``, sweeps, the note's list and the
report read.

A ratio of two steady states answers "which is faster" only when both were measured on a
quiet machine, on the same data, and they differ by more than their own spread. Otherwise the
figure is the machine's load, another workload or the noise, and every view says so instead of
printing it as a finding. The order of the checks is the order of the reasons' weight: a run
that failed part-way has no whole figure at all; other data is another question; a busy CPU
(``Timings.cpu_busy``) or a noisy steady state (``Timings.noisy``) makes the figure unreliable;
overlapping spreads make the difference too small to call. A run whose wait for a core could not
be read (no schedstat: Windows, macOS) is neither quiet nor busy: its ratio stands, marked
``LOAD_UNMEASURED``, so a learner on those systems still gets an answer that says what it lacks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from iris_gui.engine.records import standing_words as words
from iris_gui.engine.records.result import RunResult, Timings
from iris_gui.engine.spec.config import RunConfig


class Kind(Enum):
    RESULT = "result"
    WITHIN_NOISE = "within-noise"
    PARTIAL = "partial"
    OTHER_DATA = "other-data"
    BUSY = "busy"
    NOISY = "noisy"
    UNMEASURED = "load-not-measured"


# The table cell's word where a kind is not a result.
SHORT = {Kind.PARTIAL: words.PARTIAL, Kind.OTHER_DATA: words.OTHER_DATA, Kind.BUSY: words.BUSY,
         Kind.NOISY: words.NOISY}


@dataclass(frozen=True)
class Standing:
    kind: Kind
    reason: str = ""  # one sentence, without its full stop; "" for a plain result

    @property
    def is_result(self) -> bool:
        """The figure may be shown as a finding (a within-noise one with its mark)."""
        return self.kind in (Kind.RESULT, Kind.WITHIN_NOISE, Kind.UNMEASURED)

    @property
    def short(self) -> str:
        """The word a table shows instead of the figure; "" where the figure stands."""
        return SHORT.get(self.kind, "")

    @property
    def rerun_helps(self) -> bool:
        """Measuring again on a quieter machine could turn it into a result."""
        return self.kind in (Kind.BUSY, Kind.NOISY)


RESULT = Standing(Kind.RESULT)


def mark_busy(text: str, timings: Timings) -> str:
    """``text``, a steady state's figure (perhaps marked noisy), with the busy mark in place of
    the noisy one when the run waited for a core; "-" (no figure) stays as it is."""
    if not timings.cpu_busy or text == "-":
        return text
    return text.removesuffix(words.NOISY_SUFFIX) + words.BUSY_SUFFIX


def data_identity(result: RunResult) -> tuple[object, ...]:
    """What makes two runs train the same data: the data set (its shape when synthetic, its
    file's content and target when a CSV) and the split."""
    c = result.config
    shape: tuple[object, ...] = ()
    if c.dataset == "synthetic":
        shape = (c.synthetic_rows, c.synthetic_features, c.synthetic_classes)
    elif c.dataset == "csv":
        shape = (result.data_file.get("sha256") or c.data_file, c.target)
    return (c.dataset, *shape, c.test_size, c.split_seed)


def data_words(config: RunConfig) -> str:
    """"iris", "synthetic 1,000 × 20", "wine.csv": the data set as a standing names it."""
    if config.dataset == "synthetic":
        return f"synthetic {config.synthetic_rows:,} × {config.synthetic_features:,}"
    if config.dataset == "csv":
        return config.data_file.replace("\\", "/").rsplit("/", 1)[-1] or "a CSV file"
    return config.dataset


def overlaps(a: Timings, b: Timings) -> bool:
    """The two steady states' interquartile ranges (median ± IQR/2) overlap. A steady state
    without a spread (a mean, one chunk) cannot be judged and does not overlap."""
    if not (a.has_spread and b.has_spread):
        return False
    return abs(a.epoch_us - b.epoch_us) <= (a.epoch_us_iqr + b.epoch_us_iqr) / 2


def standing(baseline: RunResult, result: RunResult, name: str = "this run",
             baseline_name: str = "the baseline") -> Standing:
    """The standing of ``result``'s speedup over ``baseline`` (``name`` and ``baseline_name``
    say which run is which in the reason)."""
    for run, who in ((result, name), (baseline, baseline_name)):
        if run.timing_is_partial:
            return Standing(Kind.PARTIAL, f"{who} failed part-way: its timings cover only the "
                                          "epochs before the failure")
    if data_identity(result) != data_identity(baseline):
        return Standing(Kind.OTHER_DATA, f"{name} trains {data_words(result.config)}, "
                                         f"{baseline_name} {data_words(baseline.config)}: "
                                         "a speedup across data sets is not a result")
    for run, who in ((result, name), (baseline, baseline_name)):
        if run.timings.cpu_busy:
            share = run.timings.cpu_wait_share
            return Standing(Kind.BUSY, f"{words.WAS_BUSY} during {who} ({share:.0%} of its "
                                       "loop waited for a core): the ratio is the machine's load "
                                       f"as much as the work; {words.RERUN_HINT}")
    for run, who in ((result, name), (baseline, baseline_name)):
        if run.timings.noisy:
            return Standing(Kind.NOISY, f"{who}'s steady state is {words.NOISY} (IQR over 10% of "
                                        f"its median): the ratio is not a result; "
                                        f"{words.RERUN_HINT}")
    if overlaps(result.timings, baseline.timings):
        return Standing(Kind.WITHIN_NOISE, "the two steady states' ranges (median ± IQR/2) "
                                           "overlap: neither is faster beyond the noise")
    for run, who in ((result, name), (baseline, baseline_name)):
        if not run.timings.load_measured:
            return Standing(Kind.UNMEASURED, words.load_unmeasured(who))
    return RESULT


def measurable(result: RunResult, name: str = "this run") -> Standing:
    """A run's own standing, with no baseline: whether its timing can stand in a comparison
    at all (not partial, busy or noisy; its load perhaps not measured), for lists of runs and
    for a baseline row."""
    stand = standing(result, result, name, name)
    if stand.kind is not Kind.WITHIN_NOISE:  # a run overlaps itself: that is no caveat
        return stand
    if not result.timings.load_measured:
        return Standing(Kind.UNMEASURED, words.load_unmeasured(name))
    return RESULT


def verdict(ratio: float, stand: Standing) -> str:
    """"faster", "slower", "as fast", "within the noise", "faster (CPU load not measured)" or
    "not comparable: CPU busy"."""
    if not stand.is_result:
        return f"{words.NOT_COMPARABLE}: {stand.short}"
    if stand.kind is Kind.WITHIN_NOISE:
        return words.WITHIN_NOISE
    if not math.isfinite(ratio):
        return words.NOT_MEASURED
    said = "faster" if ratio > 1 else "slower" if ratio < 1 else "as fast"
    return f"{said} ({words.LOAD_UNMEASURED})" if stand.kind is Kind.UNMEASURED else said
