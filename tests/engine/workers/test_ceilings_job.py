"""Measuring a device's ceilings through the job service: in the real warm worker (the
window's path), whose answer passes the check of what was asked, and in this process (the
command line's), kept in the store; the check refuses hand-made answers that are not what was
asked; a host's device is refused in one line. Nothing here asserts a measured figure."""

from __future__ import annotations

import math

import pytest

from iris_gui.engine.jobs.places import Places
from iris_gui.engine.jobs.service import JobService
from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.remote.host_runners import HostRunners
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.timing.stats import summarize
from iris_gui.engine.workers.in_process import InProcessRunner
from iris_gui.engine.workers.messages import Asked, CeilingsAsked, MessageError, checked
from iris_gui.store.runs import RunStore

QUICK = CeilingsAsked("cpu", 1, "float32", 3)


def _figures_are_read(found: Ceilings) -> None:
    assert (found.device, found.threads, found.precision) == ("cpu", 1, "float32")
    for figure in (found.flops, found.bandwidth, found.op_floor, found.bandwidth_one_thread):
        assert figure.n == 3 and figure.median > 0 and math.isfinite(figure.median)
    assert found.to_host.n == 0  # a CPU has no host copy: not measured, never made up


def test_the_warm_worker_measures_and_the_service_keeps_them(runner, tmp_path):
    with RunStore.open(tmp_path / "runs.sqlite3") as store:
        kept = JobService(Places(runner, HostRunners([]), "process"), store).ceilings(QUICK)
        _figures_are_read(kept.ceilings)
        assert kept.unsaved == "" and [e.id for e in store.list_ceilings()] == [
            kept.ceilings_id]
    # The worker answers the next job as before: its one answer ended the job.
    assert runner.alive


def test_this_process_measures_telling_each_figure_as_it_starts(tmp_path):
    told: list[str] = []
    service = JobService(Places(InProcessRunner(), HostRunners([]), "in-process"))
    kept = service.ceilings(QUICK, tell=told.append)
    _figures_are_read(kept.ceilings)
    assert kept.ceilings_id is None and told == ["arithmetic", "memory", "per-op floor"]


def test_a_hosts_device_is_measured_on_the_host():
    service = JobService(Places(InProcessRunner(), HostRunners([]), "in-process"))
    with pytest.raises(ConfigError, match=r"^--device lab:cuda:0: a host's ceilings are "
                                          r"measured on the host \(iris-gui ceilings --device "
                                          r"cuda:0 there\)$"):
        service.ceilings(CeilingsAsked("lab:cuda:0"))


@pytest.mark.parametrize(("change", "words"), [
    ({"device": "cuda:0"}, "measured 'cuda:0' at 'float32', not the cpu at float32 asked"),
    ({"flops": summarize([-1.0])}, "gives flops as -1.0"),
    ({"op_floor": summarize([0.0])}, "gives op_floor as 0.0"),
])
def test_the_check_refuses_an_answer_that_is_not_what_was_asked(change, words):
    made = Ceilings("cpu", "Test CPU", flops=summarize([90e9]), bandwidth=summarize([27e9]),
                    op_floor=summarize([2.8e-6]))
    asked = Asked(0, "ceilings", QUICK.config)
    assert checked("ceilings", made.to_dict(), asked).flops.median == 90e9
    bad = Ceilings(**{**{f: getattr(made, f) for f in made.__dataclass_fields__}, **change})
    with pytest.raises(MessageError, match="its 'ceilings' message") as refused:
        checked("ceilings", bad.to_dict(), asked)
    assert words in str(refused.value)
    with pytest.raises(MessageError, match="a 'chunk' message came during a ceilings"):
        checked("chunk", {}, asked)
