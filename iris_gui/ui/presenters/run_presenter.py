"""RunPresenter: the path of a run through the window.

Controls ask for runs -> the controller queues them -> chunks grow the live curve and the
status bar -> the job service saves the result in one transaction -> its row appears and is
selected, and its curve stays in the plot as that stored run.
"""

from __future__ import annotations

import logging
import math
from pathlib import PurePath
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox

from iris_gui.engine.records.ladder import ladder_configs
from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.records.standing import measurable
from iris_gui.engine.records.standing_words import (
    LOAD_UNMEASURED,
    MARK,
    NOT_COMPARABLE,
    UNMEASURED_MARK,
    busy_share,
)
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import EngineError
from iris_gui.engine.spec.models import input_shape
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.labels import model_words, run_label, setting_parts
from iris_gui.engine.words.machine_steps import ready_line
from iris_gui.engine.words.numbers import figure
from iris_gui.ui.jobs.run_state import RunState
from iris_gui.ui.panels.loss_plot.panel import PlotCurve
from iris_gui.ui.panels.run.items import DATASET_SHAPES
from iris_gui.ui.panels.samples.runs import is_sample
from iris_gui.ui.panels.shared.plain_text import plain
from iris_gui.ui.presenters.rerun_files import own_code_asked

if TYPE_CHECKING:
    from iris_gui.ui.presenters.ladder_presenter import LadderPresenter
    from iris_gui.ui.presenters.views import Views

log = logging.getLogger(__name__)

# The note's experiment: each device with each way of bringing the loss back.
EXPERIMENT_RECORDS = ("every-epoch", "every:200", "device", "none")
# What the status bar says while a state lasts: it goes with the state (a stopped run's end is
# said beside the progress bar), unless another message has taken its place since.
STATE_MESSAGES = {RunState.LOADING: "Starting the training worker (loading torch)…",
                  RunState.STOPPING: "Stopping…"}


def dataset_words(config: RunConfig) -> tuple[str, str]:
    """The data set's name and the MLP on it (``Iris``, ``a 4-10-3 MLP``); a CSV file is named
    by its file name, and its MLP by the hidden widths alone (its inputs and classes are known
    only once the file is read, which the window does not do to say this)."""
    hidden = [str(width) for width in config.hidden]
    model = model_words(config)
    if config.dataset == "csv":
        name = PurePath(config.data_file).name
        return name, f"a {model}" if model else f"an MLP with hidden layers of {', '.join(hidden)} units"
    if config.dataset in ("synthetic", "images", "sequences"):
        name = {"synthetic": "synthetic data", "images": "synthetic images",
                "sequences": "synthetic sequences"}[config.dataset]
        features = math.prod(input_shape(config, config.synthetic_features))
        classes = config.synthetic_classes
    else:
        name, _, features, classes = DATASET_SHAPES[config.dataset]
    if model:
        return name, f"a {model}"
    return name, "a " + "-".join([str(features), *hidden, str(classes)]) + " MLP"


def empty_plot_hint(config: RunConfig) -> str:
    """What the empty plot says: Train, and what it would run."""
    name, shape = dataset_words(config)
    where = "" if config.device == "cpu" else f" on {config.device}"
    parts = setting_parts(config)
    # The data's file and the model are named already, as the data and its shape.
    parts = parts[(config.dataset == "csv") + bool(model_words(config)):]
    more = "".join(f", {part}" for part in parts)
    what = f"{shape} on {name}, {config.epochs:,} epochs{where}{more}"
    if config == RunConfig(device=config.device):
        what = f"the note's experiment: {what}"
    return f"Press Train (Ctrl+Return) to run {what}"


def result_summary(run_id: int | None, result: RunResult) -> str:
    t = result.timings
    saved = f"Run {run_id}" if run_id is not None else "Run (not saved)"
    text = f"{saved} {result.status.value}: {result.epochs_completed:,} epochs"
    if t.train_seconds == t.train_seconds:
        text += f" in {t.train_seconds:.2f} s"
    if t.epoch_us == t.epoch_us:
        text += f" ({figure(t.epoch_us)} µs/epoch)"
    if t.cpu_busy:
        text += f" {MARK} {busy_share(t.cpu_wait_share)}: {NOT_COMPARABLE}"
    elif result.load_unread:
        text += f" {UNMEASURED_MARK} {LOAD_UNMEASURED}"
    return text + (f" — {result.message}" if result.message else "")


class RunPresenter(QObject):
    def __init__(self, views: Views, ladder: LadderPresenter,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.views, self.controller, self.ladder = views, views.controller, ladder
        controller = views.controller
        # While the window closes: the run the close stopped, for the next launch to name.
        self.closing = False
        self.stopped_on_close: tuple[int, int] | None = None
        # The stored run the status bar's progress text names, if any: deleted, it goes.
        self.named_run: int | None = None
        w = views
        controller.state_changed.connect(self._on_state)
        controller.devices_ready.connect(self._on_devices)
        controller.run_started.connect(self._on_started)
        controller.chunk_ready.connect(w.plot.append_chunk)
        controller.chunk_ready.connect(w.status.update_chunk)
        controller.run_kept.connect(self._on_finished)
        controller.run_refused.connect(self._on_refused)
        controller.message.connect(self._on_problem)
        controller.queue_changed.connect(self._on_queue)
        w.controls.train_requested.connect(
            lambda config: controller.train([config], w.controls.execution()))
        w.controls.run_all_requested.connect(self._run_everywhere)
        w.actions.rerun_busy.triggered.connect(self.rerun_busy)
        w.controls.ladder_requested.connect(lambda base: self.run_ladder(base, everywhere=False))
        w.controls.stop_requested.connect(controller.stop)
        w.controls.model_check_requested.connect(controller.check_model)
        controller.model_checked.connect(
            lambda config, cost, reason: w.controls.form.model.show_check(config.model, cost,
                                                                          reason))
        w.controls.refresh_devices_requested.connect(self.refresh_devices)
        w.results.selection_changed.connect(self._show_curves)
        w.results.message.connect(lambda text: w.status.showMessage(text, 8000))
        w.results.model.modelReset.connect(self._forget_deleted)
        self._on_state(controller.state)

    def refresh_devices(self) -> None:
        self.controller.refresh_devices()

    def _on_state(self, state: RunState) -> None:
        w = self.views
        w.controls.set_state(state)
        w.actions.train.setEnabled(state.can_train)
        w.actions.run_all.setEnabled(state.can_train)
        w.actions.run_ladder.setEnabled(state.can_train)
        w.actions.run_ladder_everywhere.setEnabled(state.can_train)
        w.actions.rerun_busy.setEnabled(state.can_train)
        w.actions.stop.setEnabled(state.can_stop)
        if state in STATE_MESSAGES:
            w.status.showMessage(STATE_MESSAGES[state])
        elif w.status.currentMessage() in STATE_MESSAGES.values():
            w.status.clearMessage()

    def _on_devices(self, devices: list) -> None:
        self.views.controls.set_devices(devices)
        self.views.status.showMessage(ready_line(devices, self.controller.accelerator), 8000)

    def _on_queue(self, waiting: int) -> None:
        if waiting:
            self.views.status.showMessage(f"{counted(waiting, 'run')} queued", 4000)

    def rerun_busy(self) -> list[int]:
        """Queue again the stored runs whose timing is no result on its own (a busy CPU, a
        noisy steady state: ``records/standing.measurable``), each with its own settings;
        the ids queued, said in the status bar."""
        w = self.views
        busy = [run for run in w.results.model.runs
                if measurable(run.result).rerun_helps]
        if not busy:
            w.status.showMessage("No stored run was measured on a busy CPU or is noisy: "
                                 "nothing to re-run", 8000)
            return []
        busy, refused = own_code_asked(busy, w.status.window())
        if busy:
            self.controller.train([run.result.config for run in busy], w.controls.execution())
        ids = ", ".join(str(run.id) for run in busy)
        w.status.showMessage((f"Re-running {counted(len(busy), 'busy run')} ({ids}): the new "
                              "rows are their measurements on this machine as it is now"
                              if busy else "No busy run re-run") + refused, 8000)
        return [run.id for run in busy]

    def _run_everywhere(self, base: RunConfig) -> None:
        devices = self.controller.devices or []
        configs = [base.replace(device=d.id, record=r) for d in devices for r in EXPERIMENT_RECORDS]
        self.controller.train(configs, self.views.controls.execution())

    def run_ladder(self, base: RunConfig, everywhere: bool) -> None:
        """Queue the engine ladder on the selected device (or every device): the note's loop,
        then every rung that can run there; say which were left out and why."""
        devices = self.controller.devices or []
        if not everywhere:
            devices = [d for d in devices if d.id == base.device]
        configs, skipped = ladder_configs(base, devices)
        # Each finished run joins the selection, so the Ladder grows rung by rung.
        self.views.results.select_ids([])
        self.views.ladder_dock.raise_()
        self.controller.train(configs, self.views.controls.execution())
        self.ladder.queued(len(configs), skipped)

    def name_run(self, run_id: int, text: str) -> None:
        """Put ``text``, about stored run ``run_id``, beside the progress bar."""
        self.views.status.progress_label.setText(text)
        self.named_run = run_id

    def _forget_deleted(self) -> None:
        if self.named_run is not None and self.named_run not in {
                run.id for run in self.views.results.model.runs}:
            self.views.status.progress_label.setText("")
            self.named_run = None

    def _on_started(self, token: int, config: RunConfig) -> None:
        self.named_run = None  # the progress text is the new run's from here on
        label = run_label(config)
        self.views.plot.begin_live(token, label, config.epochs, config.recording.stride)
        self.views.status.begin(token, label, config.epochs)

    def _on_finished(self, token: int, result: RunResult, run_id: int | None,
                     unsaved: str) -> None:
        """The run ended and the job service has saved it (in the worker's thread)."""
        w = self.views
        if unsaved:
            self._on_problem(f"The run could not be saved: {unsaved}")
        if result.status is RunStatus.FAILED:  # Help → Open Log Folder finds it there too
            log.warning("run %s (%s) %s: %s", run_id if run_id is not None else "(not saved)",
                        run_label(result.config), result.failed_at, result.message)
        if self.closing and run_id is not None and result.status.value == "stopped":
            self.stopped_on_close = (run_id, result.epochs_completed)
        w.status.end(token, result_summary(run_id, result))
        self.named_run = run_id
        w.plot.end_live(token)
        if run_id is None:
            return
        previous = w.results.selected_ids()
        w.watch.absorb()  # the window's own save: the watch need not reload for it
        w.results.refresh()
        w.plot.clear_live()  # the stored run's own curve takes its place
        w.results.select_ids([*previous, run_id])

    def _on_refused(self, token: int, text: str) -> None:
        """A run that ended without a result (its settings refused, its stop while starting):
        its live curve leaves the plot and its legend, and the status bar says it was not run."""
        w = self.views
        w.status.end(token, f"Not run: {text}" if text else "Stopped before it started")
        w.plot.drop_live(token)

    def _on_problem(self, text: str) -> None:
        self.views.status.showMessage(text, 15000)
        box = QMessageBox(QMessageBox.Warning, "iris-gui", text, QMessageBox.Ok, self.views.status.window())
        plain(box)  # a host's error line, as written
        box.open()  # not exec(): a modal loop here would stall the plot and the worker's signals

    def _show_curves(self, ids: list[int]) -> None:
        w = self.views
        try:
            curves = w.store.curves(ids)
        except EngineError as error:
            w.status.showMessage(str(error), 8000)
            return
        labels = {run.id: run for run in w.results.model.runs}
        w.plot.set_sample(any(is_sample(labels[i].result) for i in ids if i in labels))
        overlays = []
        for run_id, (losses, stride) in curves.items():
            run = labels.get(run_id)
            text = f"run {run_id}: {run_label(run.result.config)}" if run else f"run {run_id}"
            if run is not None and run.result.status.value == "failed":
                text += f" ({run.result.failed_at})"
            overlays.append(PlotCurve(key=f"run {run_id}", label=text, losses=losses, stride=stride))
        w.plot.set_overlays(overlays)
