"""The accelerator record: why a machine has no GPU, from the facts the worker reads, for each
case without a GPU or a driver; and what this machine's own torch says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from iris_gui.engine.records.accelerator import (
    CPU_BUILD,
    NO_BACKEND_DEVICE,
    NO_DEVICE,
    NO_DRIVER,
    PRESENT,
    AcceleratorRecord,
    classify,
)
from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.words.machine_steps import (
    CUDA_TORCH_INSTALL,
    TORCH_RANGE,
    ready_line,
    steps_text,
)

TOO_OLD = ("CUDA initialization: The NVIDIA driver on your system is too old (found version "
           "11040). Please update your GPU driver by downloading and installing a new version "
           "from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: "
           "https://pytorch.org to install a PyTorch version that has been compiled with your "
           "version of the CUDA driver.")
CPU = DeviceInfo("cpu", "cpu", "Test CPU")


def test_a_cpu_only_build_says_so():
    record = classify("2.13.0+cpu")
    assert record.kind == CPU_BUILD and not record.present
    assert record.why() == "No GPU here: this torch (2.13.0+cpu) is a CPU-only build."
    assert record.short() == "CPU-only torch build"
    assert record.refusal() == "this torch is a CPU-only build"
    assert CUDA_TORCH_INSTALL in steps_text(record)


def test_a_cuda_build_without_a_driver_says_no_driver_is_loaded():
    record = classify("2.11.0+cu130", cuda="13.0", driver=False)
    assert record.kind == NO_DRIVER
    assert record.why() == ("No GPU here: this torch (2.11.0+cu130) is a CUDA 13.0 build, but "
                            "no NVIDIA driver is loaded.")
    assert record.short() == "no NVIDIA driver loaded"
    text = steps_text(record)
    assert "install the NVIDIA driver" in text and CUDA_TORCH_INSTALL not in text


def test_a_driver_too_old_for_the_build_is_named_in_torchs_words_cut_to_one_sentence():
    record = classify("2.11.0+cu130", cuda="13.0", driver=True, error=TOO_OLD)
    assert record.kind == NO_DEVICE and record.driver_too_old
    assert record.why() == (
        "No GPU here: this torch (2.11.0+cu130) is a CUDA 13.0 build and an NVIDIA driver is "
        "loaded, but torch finds no CUDA device: the NVIDIA driver on your system is too old "
        "(found version 11040).")
    assert record.short() == "NVIDIA driver too old"
    assert "http" not in record.why() and "\n" not in record.refusal()
    assert "update the NVIDIA driver to one for CUDA 13.0" in steps_text(record)


def test_a_driver_and_no_device_without_words_still_says_why():
    record = classify("2.11.0+cu130", cuda="13.0", driver=True)
    assert record.kind == NO_DEVICE and record.short() == "no CUDA device found"
    assert record.why().endswith("but torch finds no CUDA device.")


def test_accelerators_present_leave_nothing_to_say():
    record = classify("2.11.0+cu130", cuda="13.0", driver=True, devices=1)
    assert record.kind == PRESENT and record.present
    assert record.why() == record.short() == record.refusal() == steps_text(record) == ""


def test_another_backend_built_in_but_absent_is_named():
    record = classify("2.13.0", backends=("MPS",))
    assert record.kind == NO_BACKEND_DEVICE
    assert record.why() == ("No GPU here: this torch (2.13.0) is built for MPS, but torch finds "
                            "no such device.")


@pytest.mark.parametrize("record", [classify("2.13.0+cpu"),
                                    classify("2.11.0+cu130", "13.0", True, error=TOO_OLD)])
def test_the_record_travels_as_plain_data(record):
    data = record.to_dict()
    assert data["why"] == record.why()
    assert AcceleratorRecord.from_dict(data) == record


def test_the_status_bar_says_cpu_only_and_why_in_a_few_words():
    record = classify("2.13.0+cpu")
    assert ready_line([CPU], record) == "Ready: cpu only — no GPU here (CPU-only torch build)"
    # A host's GPU is a GPU in the lists: the plain count then.
    gpu = DeviceInfo("lab:cuda:0", "cuda", "NVIDIA H200")
    assert ready_line([CPU, gpu], record) == "Ready: 2 devices — cpu, lab:cuda:0"
    assert ready_line([CPU], None) == "Ready: 1 device — cpu"


def test_the_pip_line_asks_for_pyprojects_torch_range():
    pyproject = Path(__file__).resolve().parents[3] / "pyproject.toml"
    declared = re.search(r'^\s*"torch([<>=!~][^"]*)"', pyproject.read_text(), re.MULTILINE)
    assert declared is not None
    assert sorted(declared.group(1).split(",")) == sorted(TORCH_RANGE.split(","))
    assert f'"torch{TORCH_RANGE}"' in CUDA_TORCH_INSTALL
