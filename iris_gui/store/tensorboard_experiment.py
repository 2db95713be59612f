"""The HParams tab's experiment for an export folder: every setting typed (words as discrete
strings, amounts as real intervals, switches as booleans) over the values of every run
exported there, and the runs' one-value figures as its metrics.

TensorBoard reads one experiment a folder (the first it finds), so there is one, at the
folder's top, in a file of a fixed name: an export into a folder that holds earlier exports
widens the earlier experiment's domains by its own runs' values, so that no run falls outside
a filter it never set.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from iris_gui.store.tensorboard_run import METRICS

FILE_NAME = "events.out.tfevents.iris-gui.hparams"
# Far past what any export of ours writes: a larger file is not ours to read.
MOST_BYTES = 4 << 20
DESCRIPTIONS = {
    "status": "how the run ended: completed, stopped (by you), diverged or failed",
    "epochs": "the epochs asked for; result/epochs_completed says how many ran",
    "batch": "rows per optimizer step; full is the note's whole training set",
    "result/loss_after_training": "the trained model's loss on the training rows, after the "
                                 "last update",
    "result/loss_last_recorded": "the loss curve's last point: the loss of its epoch, before "
                                "that epoch's update",
    "timings/steady_us_per_epoch": "the median of the synchronised chunks after the first, "
                                   "µs per epoch",
}

Values = dict[str, set[Any]]


def values_of(runs: Iterable[dict[str, Any]]) -> Values:
    """Each hparam's values over the runs' hparams."""
    seen: Values = {}
    for hparams in runs:
        for name, value in hparams.items():
            seen.setdefault(name, set()).add(value)
    return seen


def earlier_values(folder: Path, api: Any, metadata: Any, loader: Any) -> Values:
    """The values the folder's earlier experiment covers, or none where it holds none (or a
    file of that name that is not an experiment of ours)."""
    path = folder / FILE_NAME
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MOST_BYTES:
            return {}
        for event in loader(str(path)).Load():
            for value in event.summary.value:
                if value.tag == metadata.EXPERIMENT_TAG:
                    data = metadata.parse_experiment_plugin_data(
                        value.metadata.plugin_data.content)
                    return {info.name: _domain_values(info, api)
                            for info in data.hparam_infos}
    except Exception:  # noqa: BLE001 - a damaged file: this export's experiment replaces it
        return {}
    return {}


def _domain_values(info: Any, api: Any) -> set[Any]:
    if info.HasField("domain_interval"):
        return {info.domain_interval.min_value, info.domain_interval.max_value}
    kind = "bool_value" if info.type == api.DATA_TYPE_BOOL else "string_value"
    return {getattr(value, kind) for value in info.domain_discrete.values}


def experiment_summary(values: Values, tb: Any, created: float) -> Any:
    """The experiment's summary over ``values``: each hparam's domain by its values' type
    (a name whose values mix types is the words they say), those that differ between runs
    marked so, which the HParams tab lists and shows first."""
    hp, hparams = tb.hp, []
    for name in sorted(values):
        seen = values[name]
        if all(isinstance(v, bool) for v in seen):
            domain = hp.Discrete(sorted(seen))
        elif all(isinstance(v, int | float) and not isinstance(v, bool) for v in seen):
            domain = hp.RealInterval(float(min(seen)), float(max(seen)))
        else:
            domain = hp.Discrete(sorted(str(v) for v in seen))
        info = tb.api.HParamInfo(name=name, description=DESCRIPTIONS.get(name, ""),
                                 differs=len(seen) > 1)
        domain.update_hparam_info(info)
        hparams.append(info)
    metrics = [hp.Metric(tag, description=DESCRIPTIONS.get(tag)).as_proto() for tag in METRICS]
    data = tb.plugin.HParamsPluginData(experiment=tb.api.Experiment(
        hparam_infos=hparams, metric_infos=metrics, time_created_secs=created))
    return plugin_summary(tb, tb.metadata.EXPERIMENT_TAG, data)


def plugin_summary(tb: Any, tag: str, data: Any) -> Any:
    """A summary holding the hparams plugin's ``data`` under ``tag``, as its own writer
    makes it."""
    summary = tb.summary()
    summary.value.add(tag=tag, metadata=tb.metadata.create_summary_metadata(data),
                      tensor=tb.metadata.NULL_TENSOR)
    return summary


def place(written: Path, folder: Path) -> None:
    """Put the experiment written in ``written`` (a hidden folder of its own, one event
    file) in its place at the folder's top, over the earlier one in one step."""
    (event_file,) = written.iterdir()
    os.replace(event_file, folder / FILE_NAME)
    written.rmdir()
