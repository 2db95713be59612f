"""The notice of what this machine can measure: on a machine without a GPU, the first launch
says why and what to do, in a bar above the plot (never a dialog); "Don't show again" is
remembered, Help → What This Machine Can Measure… opens it again, and the status bar says
"cpu only" and why in a few words."""

from __future__ import annotations

import html

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from iris_gui.engine.records.accelerator import classify
from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.words.machine_steps import CUDA_TORCH_INSTALL

CPU = DeviceInfo("cpu", "cpu", "Test CPU")
GPU = DeviceInfo("cuda:0", "cuda", "NVIDIA H200", 150_110_000_000, "9.0")
CPU_BUILD = classify("2.13.0+cpu")
WITH_GPU = classify("2.11.0+cu130", "13.0", driver=True, devices=1)


def machine_action(window):
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    return next(a for a in help_menu.actions() if a.text() == "What This Machine Can &Measure…")


def ready(window, devices, record) -> None:
    """What the worker's ready does: this machine's record, then the devices."""
    window.controller._on_ready(devices, record.torch_build, record)


def test_a_first_launch_without_a_gpu_says_why_and_what_to_do(qtbot, window_on, store):
    window = window_on(store)
    notice = window.machine_notice
    assert not notice.isVisible()  # nothing known before the worker is ready
    ready(window, [CPU], CPU_BUILD)
    assert window.status.currentMessage() == "Ready: cpu only — no GPU here (CPU-only torch build)"
    qtbot.waitUntil(notice.isVisible)
    shown = notice.label.text()
    assert "No GPU here: this torch (2.13.0+cpu) is a CPU-only build." in shown
    for words in ("Run → Run the Ladder", "the Explain view", "the Crossover view",
                  "Run → Hosts…", "scripts/gpu_check.sh"):
        assert words in shown, words
    assert html.escape(CUDA_TORCH_INSTALL) in shown
    # Above the plot, across its width; the window goes on working under it.
    assert notice.mapTo(window, notice.rect().bottomLeft()).y() <= window.plot.mapTo(
        window, window.plot.rect().topLeft()).y()
    assert QApplication.activeModalWidget() is None


def test_dont_show_again_is_remembered_and_help_shows_it_again(qtbot, window_on, store):
    first = window_on(store)
    ready(first, [CPU], CPU_BUILD)
    qtbot.waitUntil(first.machine_notice.isVisible)
    qtbot.mouseClick(first.machine_notice.never_button, Qt.MouseButton.LeftButton)
    assert not first.machine_notice.isVisible()
    assert first.settings.machine_notice_hidden
    first.close()
    again = window_on(store)  # the next launch, on the same settings file
    ready(again, [CPU], CPU_BUILD)
    qtbot.wait(50)
    assert not again.machine_notice.isVisible()
    assert "no GPU here" in again.status.currentMessage()
    machine_action(again).trigger()
    qtbot.waitUntil(again.machine_notice.isVisible)
    assert "CPU-only build" in again.machine_notice.label.text()


def test_closing_it_hides_it_for_the_session_only(qtbot, window_on, store):
    window = window_on(store)
    ready(window, [CPU], CPU_BUILD)
    qtbot.waitUntil(window.machine_notice.isVisible)
    qtbot.mouseClick(window.machine_notice.close_button, Qt.MouseButton.LeftButton)
    assert not window.machine_notice.isVisible()
    ready(window, [CPU], CPU_BUILD)  # the devices detected again: it stays closed
    qtbot.wait(50)
    assert not window.machine_notice.isVisible()
    assert not window.settings.machine_notice_hidden


def test_with_a_gpu_no_notice_opens_and_help_says_it_is_here(qtbot, window_on, store):
    window = window_on(store)
    ready(window, [CPU, GPU], WITH_GPU)
    qtbot.wait(50)
    assert not window.machine_notice.isVisible()
    assert window.status.currentMessage() == "Ready: 2 devices — cpu, cuda:0"
    machine_action(window).trigger()
    qtbot.waitUntil(window.machine_notice.isVisible)
    assert "cuda:0 is here" in window.machine_notice.label.text()
    assert not window.machine_notice.never_button.isVisible()


def test_the_hosts_button_opens_the_hosts_dialog(qtbot, window_on, store):
    window = window_on(store)
    opened = []
    window.actions.hosts.triggered.disconnect()  # not the real dialog: only that it is asked
    window.actions.hosts.triggered.connect(lambda: opened.append(True))
    ready(window, [CPU], CPU_BUILD)
    qtbot.waitUntil(window.machine_notice.isVisible)
    qtbot.mouseClick(window.machine_notice.hosts_button, Qt.MouseButton.LeftButton)
    assert opened == [True]


def test_the_worker_brings_this_machines_record_to_the_window(qtbot, open_window):
    from iris_gui.engine.train.devices import accelerator_record

    expected = accelerator_record()  # read here too: this test's process may import torch
    window = open_window()
    qtbot.waitUntil(lambda: window.controller.accelerator is not None)
    assert window.controller.accelerator == expected
    assert window.machine_notice.isVisible() is not expected.present
    if not expected.present:
        assert window.status.currentMessage().endswith(f"no GPU here ({expected.short()})")
        assert expected.why() in window.machine_notice.label.text()


def test_a_run_on_an_absent_gpu_is_refused_with_the_why(qtbot, open_window):
    from iris_gui.engine.spec.config import RunConfig
    from iris_gui.engine.train.devices import accelerator_record

    expected = accelerator_record()
    if expected.present:
        pytest.skip("an accelerator is here")
    window = open_window()
    window.controller.train([RunConfig(device="cuda:0", epochs=5)], "process")
    refusal = f"device 'cuda:0' is not available here ({expected.refusal()}); available: cpu"
    qtbot.waitUntil(lambda: window.status.currentMessage() == refusal, timeout=30_000)
