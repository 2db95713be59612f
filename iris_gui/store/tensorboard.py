"""Stored runs for TensorBoard (``iris-gui runs export --tensorboard DIR``, ``run.to_tensorboard``,
File → Export for TensorBoard…): a folder of event files per run, named so that the runs sort
and say what they are (store/tensorboard_run.py), and one HParams experiment for the folder
(store/tensorboard_experiment.py). A run's folder holds

- ``loss``: the recorded curve, each value at its epoch (``losses[i]`` is epoch
  ``i * stride``, as the window plots it) and at its moment on the run's own timeline;
- its settings as typed hparams (the run's folder name is the trial), how it ended, and its
  one-value figures (the phases, the steady state, the final losses, the epochs completed and
  the accuracies) as the HParams tab's metrics, each a scalar at the run's end;
- ``run/description``: the run in words, for the Text tab.

Written by the tensorboard package's own event writer and summary protos, the ones
``torch.utils.tensorboard.SummaryWriter`` wraps, without torch: the window exports too, and
its process never imports torch. Without the package (the ``tensorboard`` extra), one line
says so.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from iris_gui.store import tensorboard_experiment as experiment
from iris_gui.store import tensorboard_run as tb_run
from iris_gui.store.paths import StoreError
from iris_gui.store.run_rows import StoredRun

# Where the kernel, not a disk, answers: never a place for an export.
SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")


def write_tensorboard(runs: list[StoredRun], folder: Path) -> list[Path]:
    """One event folder per run under ``folder`` (made if missing), and the folder's
    experiment widened by them; the runs' folders. Every target is checked before any is
    written."""
    tb = _tensorboard()
    folder = _checked_folder(Path(folder))
    targets = [folder / name for name in tb_run.folder_names(runs)]
    for run, target in zip(runs, targets, strict=True):
        _refuse_taken(folder, target, run.id)
    now = time.time()
    hparams = [tb_run.hparams(run.result) for run in runs]
    values = experiment.values_of(hparams)
    earlier = experiment.earlier_values(folder, tb.api, tb.metadata, tb.loader)
    for name, seen in earlier.items():
        values.setdefault(name, set()).update(seen)
    # The experiment first: a run written later always falls inside its domains.
    _written(folder / experiment.FILE_NAME, folder, tb,
             lambda events: events.add(experiment.experiment_summary(values, tb, now), now),
             lambda written: experiment.place(written, folder))
    for run, target, settings in zip(runs, targets, hparams, strict=True):
        _written(target, folder, tb,
                 lambda events, run=run, name=target.name, settings=settings:
                 _write_run(run, name, settings, events, tb, now),
                 lambda written, target=target: os.rename(written, target))
    return targets


def _tensorboard() -> SimpleNamespace:
    try:
        from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
        from tensorboard.compat.proto.event_pb2 import Event
        from tensorboard.compat.proto.summary_pb2 import Summary
        from tensorboard.plugins.hparams import api_pb2, metadata, plugin_data_pb2
        from tensorboard.plugins.hparams import summary_v2 as hp
        from tensorboard.plugins.text.summary_v2 import text_pb
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
    except ImportError:
        raise StoreError("writing for TensorBoard needs the tensorboard package, which is not "
                         "installed here (pip install \"iris-gui[tensorboard]\")") from None
    return SimpleNamespace(loader=EventFileLoader, event=Event, summary=Summary, api=api_pb2,
                           metadata=metadata, plugin=plugin_data_pb2, hp=hp, text=text_pb,
                           writer=EventFileWriter)


def _refuse_taken(folder: Path, target: Path, run_id: int | None) -> None:
    if os.path.lexists(target):  # a dangling link too: it would be written through
        raise StoreError(f"{target} exists already: TensorBoard would show two runs as one; "
                         "choose another folder")
    if run_id and any(_exported_id(entry) == run_id for entry in os.listdir(folder)):
        raise StoreError(f"run {run_id} is in {folder} already: TensorBoard would show it "
                         "twice; choose another folder")


def _exported_id(name: str) -> int | None:
    """The run id a folder name of an export holds (``run-0002-...``, ``run-2``), or None."""
    parts = name.split("-")
    return int(parts[1]) if len(parts) > 1 and parts[0] == "run" and parts[1].isdigit() else None


def _checked_folder(folder: Path) -> Path:
    """``folder``, made if its parent exists; StoreError in one line where no export belongs
    (a file, a system folder, a missing parent, a folder this user may not write)."""
    where = f"cannot write for TensorBoard into {folder}"
    resolved = folder.resolve()
    if any(resolved == Path(p) or Path(p) in resolved.parents for p in SYSTEM_FOLDERS):
        raise StoreError(f"{where}: {resolved} is the system's, not a folder for files")
    if folder.exists() and not folder.is_dir():
        raise StoreError(f"{where}: it is not a folder")
    if not folder.exists():
        if not folder.parent.is_dir():
            raise StoreError(f"{where}: its parent {folder.parent} is not a folder")
        try:
            folder.mkdir()
        except OSError as error:
            raise StoreError(f"{where}: {error.strerror or error}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreError(f"{where}: this user may not write there")
    return folder


def _written(target: Path, folder: Path, tb: SimpleNamespace, write: Any, place: Any) -> None:
    """``write`` an event file in a hidden folder beside ``target``, then ``place`` that
    folder: a failure (a full disk) leaves nothing partial, and the export can simply be tried
    again."""
    try:
        temporary = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=folder))
    except OSError as error:
        raise StoreError(f"cannot write {target}: {error.strerror or error}") from None
    try:
        events = _Events(tb.writer(str(temporary)), tb)
        try:
            write(events)
        finally:
            events.writer.close()
        place(temporary)
    except Exception as error:  # noqa: BLE001 - the disk's or the writer's: one line
        shutil.rmtree(temporary, ignore_errors=True)
        why = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise StoreError(f"cannot write {target}: {why}; nothing of it was left") from None


class _Events:
    """One event file: scalars and summaries, each at its own moment."""

    def __init__(self, writer: Any, tb: SimpleNamespace) -> None:
        self.writer, self._tb = writer, tb

    def scalar(self, tag: str, value: float, step: int, when: float) -> None:
        value_pb = self._tb.summary.Value(tag=tag, simple_value=float(value))
        self.add(self._tb.summary(value=[value_pb]), when, step)

    def add(self, summary: Any, when: float, step: int = 0) -> None:
        self.writer.add_event(self._tb.event(wall_time=when, step=step, summary=summary))


def _write_run(run: StoredRun, name: str, settings: dict[str, Any], events: _Events,
               tb: SimpleNamespace, now: float) -> None:
    result = run.result
    times = tb_run.Timeline(result, now)
    start, end = times.start, times.end
    events.add(tb.hp.hparams_pb(settings, trial_id=name, start_time_secs=start), start)
    events.add(tb.text("run/description", tb_run.description(run.id, result)), start)
    for index, loss in enumerate(result.losses):
        epoch = index * result.loss_stride
        events.scalar("loss", float(loss), epoch, times.at(epoch))
    last = max(result.epochs_completed - 1, 0)
    for tag, value in tb_run.metrics(result).items():
        events.scalar(tag, value, last, end)
    events.add(_session_end(tb, result.status.value, end), end, last)


def _session_end(tb: SimpleNamespace, status: str, end: float) -> Any:
    """How the session ended, as the hparams plugin keeps it: it knows success and failure
    only, and a stop is what was asked (the ``status`` hparam says which)."""
    codes = {"completed": tb.api.STATUS_SUCCESS, "stopped": tb.api.STATUS_SUCCESS}
    info = tb.plugin.SessionEndInfo(status=codes.get(status, tb.api.STATUS_FAILURE),
                                    end_time_secs=end)
    data = tb.plugin.HParamsPluginData(session_end_info=info)
    return experiment.plugin_summary(tb, tb.metadata.SESSION_END_INFO_TAG, data)
