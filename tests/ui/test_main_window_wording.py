"""What the window's status bar and curve labels say: counts in English ("1 device", never
"1 device(s)") and no call style for an engine that calls no module."""

from __future__ import annotations

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.words.labels import run_label

CPU = DeviceInfo("cpu", "cpu", "Test CPU")
GPU = DeviceInfo("cuda:0", "cuda", "NVIDIA H200", 150_110_000_000, "9.0")


def test_the_ready_message_counts_devices_in_english(window_on, store):
    window = window_on(store)
    window.controller.devices_ready.emit([CPU])
    assert window.status.currentMessage() == "Ready: 1 device — cpu"
    window.controller.devices_ready.emit([CPU, GPU])
    assert window.status.currentMessage() == "Ready: 2 devices — cpu, cuda:0"
    window.controller.queue_changed.emit(1)
    assert window.status.currentMessage() == "1 run queued"


def test_a_curve_label_names_a_call_style_only_where_a_module_is_called():
    assert run_label(RunConfig()) == "cpu · eager · every-epoch · forward"
    assert run_label(RunConfig(engine="lean", call="call")) == "cpu · lean · every-epoch · call"
    assert run_label(RunConfig(engine="compiled", record="device")) == "cpu · compiled · device"


def test_a_csv_run_is_labelled_with_its_file_name() -> None:
    from iris_gui.engine.spec.config import RunConfig
    from iris_gui.engine.words.labels import run_label, table_label

    config = RunConfig(dataset="csv", data_file="/data/flowers.csv", target="kind")
    assert run_label(config) == "cpu · eager · every-epoch · forward · flowers.csv"
    assert table_label(config) == "cpu/every-epoch/forward/flowers.csv"
