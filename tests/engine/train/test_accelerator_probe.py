"""The accelerator record read from this machine's own torch, and a refused device naming it."""

from __future__ import annotations

import pytest
import torch

from iris_gui.engine.records.accelerator import CPU_BUILD, PRESENT
from iris_gui.engine.spec.errors import DeviceUnavailable
from iris_gui.engine.train.devices import accelerator_record, discover_devices, resolve_device

CPU_ONLY = torch.version.cuda is None and not getattr(torch.version, "hip", None)


@pytest.mark.skipif(not CPU_ONLY, reason="this torch is not a CPU-only build")
def test_a_cpu_only_torch_is_said_to_be_a_cpu_only_build():
    record = accelerator_record()
    assert record.kind == CPU_BUILD
    assert record.why() == f"No GPU here: this torch ({torch.__version__}) is a CPU-only build."
    with pytest.raises(DeviceUnavailable) as refused:
        resolve_device("cuda:0")
    assert str(refused.value) == (
        "device 'cuda:0' is not available here (this torch is a CPU-only build); available: "
        + ", ".join(d.id for d in discover_devices()))


def test_the_record_agrees_with_the_devices_found():
    record = accelerator_record()
    accelerators = [d for d in discover_devices() if d.kind != "cpu"]
    assert (record.kind == PRESENT) == bool(accelerators)
    assert record.torch_build == str(torch.__version__) and record.cuda == torch.version.cuda
    assert bool(record.why()) != record.present


def test_a_device_that_is_no_accelerator_is_refused_without_a_why():
    with pytest.raises(DeviceUnavailable) as refused:
        resolve_device("quantum")
    assert "(" not in str(refused.value)
