"""What a report says, gathered from stored runs (and a sweep): pure data, no Qt.

The figures are drawn from this by ``figures``; the pages lay it out. Every number is a stored
record's own (the table: ``table.results_table``; the explain sentences: the stored
breakdown's ``sentences()``), so the report never disagrees with the window or the CLI.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.compare import compare_groups
from iris_gui.engine.records.gpu_estimate import ESTIMATE_MARK
from iris_gui.engine.records.ladder import LadderRow, ladder_rows
from iris_gui.engine.records.note_list import NoteAnswer
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.standing_words import RERUN_HINT, load_unmeasured
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.engines import ENGINE_INFO
from iris_gui.engine.words.batch_words import batch_summary, data_file_summary, loader_words
from iris_gui.engine.words.labels import table_label
from iris_gui.engine.words.model_words import model_file_words, model_sentence
from iris_gui.engine.words.parallel_words import parallel_lines
from iris_gui.engine.words.regime_words import regime_rows
from iris_gui.engine.words.verdict import verdict
from iris_gui.report.table import HEADERS, results_table
from iris_gui.store.runs import StoredRun
from iris_gui.version import __version__

CommandFor = Callable[[RunConfig], str]
# Over a CPU run's estimate for a GPU, which never joins its measured sentences.
ESTIMATE_HEADING = f"On a GPU ({ESTIMATE_MARK}):"
WINS_HEADING = "When does the GPU win?"
WINS_INTRO = ("The study note lists when a GPU pays off; each item below is answered from the "
              "stored sweep that varies its size, on the devices that sweep measured.")


@dataclass(frozen=True)
class Curve:
    label: str
    losses: np.ndarray
    stride: int


@dataclass(frozen=True)
class RunSection:
    """One run's own part: how it ended, where its time goes, where it ran, how to repeat it."""

    run_id: int
    heading: str
    message: str  # a failed or stopped run's own words ("" when it completed)
    sentences: list[str]  # the explain breakdown's, when the run was explained
    environment: list[tuple[str, str]]
    command: str
    # On the CPU, the breakdown's estimate for a GPU, apart from the measured sentences.
    estimate: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Report:
    title: str
    version: str
    generated_at: str
    headers: tuple[str, ...]
    rows: list[list[str]]
    sections: list[RunSection]
    curves: list[Curve]
    ladder: list[LadderRow] = field(default_factory=list)  # when the runs span several engines
    sweep: SweepResult | None = None
    sweep_label: str = ""
    # The explained runs' breakdowns (label, Breakdown), for the explain chart; a stored
    # breakdown that cannot be read has its sentence in its section and no bar.
    breakdowns: list[tuple[str, Breakdown]] = field(default_factory=list)
    # One sentence under the table: which differences exceed the noise, which are no result.
    verdict: str = ""
    # The note's list of when the GPU wins, each item answered from the stored sweeps.
    wins: list[NoteAnswer] = field(default_factory=list)
    # Its model-size items' sweeps, drawn on one plot against FLOPs per step.
    families: list[tuple[NoteAnswer, SweepResult]] = field(default_factory=list)


def build_report(runs: list[StoredRun], command_for: CommandFor, sweep: SweepResult | None = None,
                 sweep_label: str = "", wins: list[NoteAnswer] | None = None,
                 families: list[tuple[NoteAnswer, SweepResult]] | None = None) -> Report:
    """The report of ``runs`` (full records, curves loaded), in the order given, with a sweep
    and the note's list answered when given."""
    ids = [run.id for run in runs]
    engines = {run.result.config.engine for run in runs}
    parts = ([f"run {ids[0]}"] if len(ids) == 1 else
             ["runs " + ", ".join(str(i) for i in ids)] if ids else [])
    # The title names what the report holds: a sweep of no points is not drawn, nor named.
    sweep = sweep if sweep is not None and sweep.points else None
    if sweep is not None:
        parts.append(sweep_label or "a sweep")
    if wins:
        parts.append("when the GPU wins")
    title = "iris-gui report: " + " and ".join(parts)
    return Report(
        title=title, version=__version__,
        generated_at=datetime.now().astimezone().isoformat(timespec="seconds"),
        headers=HEADERS, rows=results_table(runs),
        sections=[_section(run, command_for) for run in runs],
        # The legend names what each curve is: "run 3" alone said nothing in a six-run report.
        curves=[Curve(f"run {run.id}: {table_label(run.result.config)}", run.result.losses,
                      run.result.loss_stride)
                for run in runs if len(run.result.losses)],
        ladder=ladder_rows([run.result for run in runs], ids) if len(engines) > 1 else [],
        sweep=sweep, sweep_label=sweep_label if sweep is not None else "",
        breakdowns=[(f"run {run.id}", breakdown) for run in runs
                    if (breakdown := _breakdown(run)) is not None],
        verdict=(verdict(compare_groups([[run.result] for run in runs]))
                 if len(runs) > 1 else ""),
        wins=list(wins or []), families=list(families or []) if wins else [],
    )


def timing_standing(result: RunResult) -> str:
    """A run's own timing caveat for its section: the busy CPU's sentence, a noisy steady
    state's, that its CPU load was not measured, or "" when its figures stand."""
    if result.contention:
        return f"{result.contention}; {RERUN_HINT}"
    if result.timings.noisy:
        return ("noisy: the steady state's IQR is over 10% of its median, so small "
                "differences are not results; re-run it on a quieter machine")
    if result.load_unread:
        return load_unmeasured()
    return ""


def _section(run: StoredRun, command_for: CommandFor) -> RunSection:
    result, config, env = run.result, run.result.config, run.result.env
    # The call style only where the engine calls the module: the others have none to name.
    call = f", {config.call}" if ENGINE_INFO[config.engine].module_call else ""
    batch = f", batch {config.batch_label}" if config.batch else ""
    loader = f", {loader_words(config)}" if config.data_path == "loader" else ""
    precision = f", {config.precision}" if config.precision != "float32" else ""
    heading = (f"Run {run.id}: {config.dataset} on {config.device}, {config.engine}, "
               f"record {config.record}{call}{batch}{loader}{precision}")
    sentences = _sentences(run) if run.breakdown else []
    environment = [
        ("timing", timing_standing(result)),
        ("model", model_sentence(result)), ("model file", model_file_words(result.model_file)),
        *((name.lower(), text) for name, text in placement_rows(run)),
        ("device", env.device_name or env.device or config.device),
        ("driver model", env.driver_model),
        ("host", f"{env.host} ({env.host_destination}), over ssh" if env.host else ""),
        ("placed", env.host_placement),
        ("torch", env.torch_version), ("CPU", env.cpu_model), ("OS", env.os),
        ("Python", env.python), ("threads", str(env.threads)), ("execution", env.execution),
        ("warm-up", env.warm_up), ("started", result.started_at), ("saved", run.created_at),
        ("batches", batch_summary(result, ascii=False)), ("data file", data_file_summary(result)),
        ("data changed", result.data_changed),
        *parallel_lines(result.parallel),
    ]
    return RunSection(run.id, heading, result.message, sentences,
                      [(name, value) for name, value in environment if value],
                      command_for(config), _estimate_sentences(run))


def placement_rows(run: StoredRun) -> list[tuple[str, str]]:
    """The run against its device's kept ceilings (words/regime_words.py); none for a run
    not read from a store."""
    return regime_rows(run.result, run.placement) if run.placement is not None else []


def _breakdown(run: StoredRun) -> Breakdown | None:
    if not run.breakdown:
        return None
    try:
        return Breakdown.from_dict(run.breakdown)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None  # said in the run's own section (_sentences)


def _estimate_sentences(run: StoredRun) -> list[str]:
    breakdown = _breakdown(run)  # an unreadable one has said so in its sentences
    return breakdown.estimate_sentences() if breakdown is not None else []


def _sentences(run: StoredRun) -> list[str]:
    # A record no version of explain wrote (a tampered or damaged store) costs its own
    # sentences, said in one, never the whole report.
    try:
        breakdown = Breakdown.from_dict(run.breakdown)
        return [breakdown.answer(), *breakdown.sentences()]
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        return [(f"The stored explain breakdown of run {run.id} cannot be read ({error}); "
                 "explain the run again to replace it.")]
