"""The engine ladder's plumbing: names and rules, availability, the shared loop, the ladder as
data. The rungs' own numbers are tested per rung (test_rungs_*.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.records.ladder import curve_deviation, ladder_configs, ladder_rows
from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.rungs import availability, engines_on
from iris_gui.engine.spec.config import ConfigError, RunConfig
from iris_gui.engine.spec.engines import ENGINES
from iris_gui.engine.train.devices import describe_devices
from iris_gui.engine.train.trainer import train


@pytest.mark.parametrize("changes, fragment", [
    ({"engine": "native"}, "cannot record the loss 'every-epoch'"),
    ({"engine": "graph", "record": "every:10"}, "cannot record the loss 'every:N'"),
    ({"engine": "native", "record": "device", "optimizer": "adam"}, "implements sgd only"),
    ({"engine": "manual", "call": "call"}, "applies only to the eager and lean engines"),
    ({"engine": "turbo"}, "engine 'turbo' is not allowed; choose one of: eager, lean"),
])
def test_a_choice_a_rung_cannot_run_is_one_line_before_anything_runs(changes, fragment):
    with pytest.raises(ConfigError) as error:
        RunConfig(**changes)
    assert fragment in str(error.value) and "\n" not in str(error.value)


def test_every_engine_is_either_available_or_says_why_on_each_device():
    for device in describe_devices():
        assert list(device.engines) == list(ENGINES)
        assert device.engines["eager"] is None and device.engines["lean"] is None
    cpu = engines_on(torch.device("cpu"))
    assert cpu["graph"] == "the graph engine runs on CUDA GPUs only"
    if not torch.cuda.is_available():
        assert availability("graph", torch.device("cpu")) is not None


def test_an_unavailable_rung_is_refused_with_its_reason():
    with pytest.raises(ConfigError, match=r"the graph engine runs on CUDA GPUs only \(here: cpu\)"):
        train(RunConfig(engine="graph", record="device", epochs=10))


@pytest.mark.parametrize("engine", ["eager", "lean"])
def test_the_autograd_rungs_agree_with_the_notes_loop(engine):
    note = train(RunConfig(epochs=600))
    rung = train(RunConfig(epochs=600, engine=engine, record="device", momentum=0.0))
    assert rung.status is RunStatus.COMPLETED and rung.config.engine == engine
    assert curve_deviation(rung.losses, 1, note.losses, 1) < 1e-5
    assert rung.test_accuracy == note.test_accuracy
    assert rung.timings.compile_seconds == 0.0  # nothing to prepare: build time is setup


def test_curve_deviation_is_the_largest_relative_difference():
    reference = np.array([1.0, 0.5, 0.25, 0.2], np.float32)
    assert curve_deviation(reference * 1.001, 1, reference, 1) == pytest.approx(1e-3, rel=1e-3)
    shifted = reference.copy()
    shifted[2] = 0.26
    assert curve_deviation(shifted, 1, reference, 1) == pytest.approx(0.04, rel=1e-5)
    # A curve kept every 2 epochs is compared with every other point of the reference.
    assert curve_deviation(reference[::2], 2, reference, 1) == 0.0
    assert math.isnan(curve_deviation(np.zeros(0), 1, reference, 1))


def _devices() -> list[DeviceInfo]:
    return [
        DeviceInfo("cpu", "cpu", "CPU", engines={e: None for e in ENGINES} | {
            "graph": "the graph engine runs on CUDA GPUs only",
            "persistent": "the persistent engine runs on CUDA GPUs"}),
        DeviceInfo("cuda:0", "cuda", "GPU", engines={e: None for e in ENGINES} | {
            "native": "the native engine runs on the CPU only"}),
    ]


def test_the_ladder_runs_the_notes_loop_then_each_rung_and_says_what_it_left_out():
    base = RunConfig(epochs=500, lr=0.05, hidden=(8,), record="every:7", call="call")
    configs, skipped = ladder_configs(base, _devices())
    assert [(c.device, c.engine, c.record) for c in configs] == [
        ("cpu", "eager", "every-epoch"), ("cpu", "eager", "device"), ("cpu", "lean", "device"),
        ("cpu", "manual", "device"), ("cpu", "compiled", "device"), ("cpu", "native", "device"),
        ("cuda:0", "eager", "every-epoch"), ("cuda:0", "eager", "device"),
        ("cuda:0", "lean", "device"), ("cuda:0", "manual", "device"),
        ("cuda:0", "compiled", "device"), ("cuda:0", "graph", "device"),
        ("cuda:0", "persistent", "device"),
    ]
    assert all(c.call == "forward" and c.epochs == 500 and c.lr == 0.05 for c in configs)
    assert [(s.device, s.engine) for s in skipped] == [
        ("cpu", "graph"), ("cpu", "persistent"), ("cuda:0", "native")]
    _, with_adam = ladder_configs(base.replace(optimizer="adam"), _devices()[:1])
    assert [(s.engine, "sgd only" in s.reason) for s in with_adam] == [
        ("graph", False), ("persistent", False), ("native", True)]


def test_ladder_rows_compare_each_rung_with_the_notes_loop_on_its_device():
    note = train(RunConfig(epochs=400))
    lean = train(RunConfig(epochs=400, engine="lean", record="device"))
    rows = ladder_rows([lean, note], [2, 1])
    assert [(r.engine, r.record, r.run_id) for r in rows] == [
        ("eager", "every-epoch", 1), ("lean", "device", 2)]
    assert rows[0].speedup == 1.0
    assert rows[1].speedup == pytest.approx(note.timings.epoch_us / lean.timings.epoch_us)
    assert rows[1].curve_deviation < 1e-5 and rows[0].curve_deviation == 0.0
    assert rows[1].to_dict()["device"] == "cpu"


def test_each_engine_has_a_default_recording_it_can_make_and_a_line_saying_so():
    from iris_gui.engine.spec.engines import ENGINE_INFO, default_recording, recording_note

    for engine in ENGINES:
        chosen = default_recording(engine)
        assert chosen in ENGINE_INFO[engine].recordings
        RunConfig(engine=engine, record=chosen)  # valid as it stands
    assert {e: default_recording(e) for e in ("eager", "manual", "compiled", "native")} == \
        {"eager": "every-epoch", "manual": "every-epoch", "compiled": "device", "native": "device"}
    assert recording_note("compiled") == ("recording: device (the compiled engine keeps every "
                                          "loss in a buffer on the device)")
