"""An export read back as TensorBoard reads it: the scalars by EventAccumulator, and the
HParams tab's experiment and session groups by the hparams plugin's own handlers over the
data provider a served TensorBoard builds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.context import RequestContext
from tensorboard.plugins import base_plugin
from tensorboard.plugins.hparams import (
    api_pb2,
    backend_context,
    get_experiment,
    list_session_groups,
)


def events(folder: Path) -> EventAccumulator:
    read = EventAccumulator(str(folder), size_guidance={"scalars": 0, "tensors": 0})
    read.Reload()
    return read


class HParamsTab:
    """What the HParams tab of a TensorBoard over ``logdir`` is given."""

    def __init__(self, logdir: Path) -> None:
        mux = plugin_event_multiplexer.EventMultiplexer()
        mux.AddRunsFromDirectory(str(logdir))
        mux.Reload()
        provider = data_provider.MultiplexerDataProvider(mux, str(logdir))
        self._context = backend_context.Context(base_plugin.TBContext(
            data_provider=provider, logdir=str(logdir), multiplexer=mux))
        request = api_pb2.GetExperimentRequest(include_metrics=True)
        self.experiment = get_experiment.Handler(RequestContext(), self._context, "",
                                                 request).run()

    def hparam(self, name: str) -> Any:
        (info,) = [h for h in self.experiment.hparam_infos if h.name == name]
        return info

    def domain(self, name: str) -> tuple[str, Any]:
        """(type name, the discrete values or the interval) of an hparam."""
        info = self.hparam(name)
        kind = api_pb2.DataType.Name(info.type)
        if info.HasField("domain_interval"):
            return kind, (info.domain_interval.min_value, info.domain_interval.max_value)
        return kind, sorted(info.domain_discrete)

    def metric_tags(self) -> list[str]:
        return [m.name.tag for m in self.experiment.metric_infos]

    def sessions(self) -> dict[str, dict[str, Any]]:
        """Each session group by name: its hparams (plain values), its metrics, its session's
        status name and start and end times."""
        request = api_pb2.ListSessionGroupsRequest(
            start_index=0, slice_size=1000, include_metrics=True,
            allowed_statuses=list(api_pb2.Status.values()))
        for info in self.experiment.hparam_infos:
            request.col_params.add(hparam=info.name)
        for metric in self.experiment.metric_infos:
            request.col_params.add(metric=metric.name)
        groups = list_session_groups.Handler(RequestContext(), self._context, "",
                                             request).run().session_groups
        return {group.name: {
            "hparams": {k: getattr(v, v.WhichOneof("kind")) for k, v in group.hparams.items()},
            "metrics": {m.name.tag: m.value for m in group.metric_values},
            "status": api_pb2.Status.Name(group.sessions[0].status),
            "start": group.sessions[0].start_time_secs,
            "end": group.sessions[0].end_time_secs} for group in groups}
