"""Device and CPU names as each platform gives them (mocked where this machine is not that
platform): an AMD GPU's architecture as ROCm names it, a Mac's and a Windows PC's CPU by their
brand string rather than "arm" or "Intel64 Family 6 ..."."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest
import torch

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.train import devices, environment


@pytest.fixture
def fresh_names():
    environment.cpu_model.cache_clear()
    devices.discover_devices.cache_clear()
    yield
    environment.cpu_model.cache_clear()
    devices.discover_devices.cache_clear()


def test_an_amd_gpu_is_named_by_its_rocm_architecture(monkeypatch, fresh_names):
    # Mocked: a ROCm build of torch with one MI300X (torch's "cuda" device on AMD GPUs).
    props = SimpleNamespace(name="AMD Instinct MI300X", total_memory=192 * 2**30, major=9,
                            minor=4, gcnArchName="gfx942:sramecc+:xnack-")
    monkeypatch.setattr(torch.version, "hip", "6.2.41133", raising=False)
    monkeypatch.setattr(devices, "cuda_start", lambda: (True, ""))
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: props)
    gpu = devices.discover_devices()[1]
    assert gpu.capability == "gfx942"
    assert gpu.describe() == "cuda:0 — AMD Instinct MI300X (192.0 GiB, gfx942)"
    nvidia = DeviceInfo("cuda:0", "cuda", "NVIDIA H200", 150 * 10**9, "9.0")
    assert nvidia.describe() == "cuda:0 — NVIDIA H200 (139.7 GiB, sm 9.0)"


def test_a_macs_cpu_is_named_by_sysctl(monkeypatch, fresh_names):
    # Mocked: macOS, where platform.processor() says "arm".
    monkeypatch.setattr(environment.platform, "system", lambda: "Darwin")
    monkeypatch.setattr(environment.platform, "processor", lambda: "arm")
    asked = []

    def sysctl(args, **kwargs):
        asked.append(args)
        return subprocess.CompletedProcess(args, 0, "Apple M2 Pro\n", "")

    monkeypatch.setattr(environment.subprocess, "run", sysctl)
    assert environment.cpu_model() == "Apple M2 Pro"
    assert asked == [["sysctl", "-n", "machdep.cpu.brand_string"]]


def test_a_windows_pcs_cpu_is_named_by_its_registry(monkeypatch, fresh_names):
    # Mocked: Windows' winreg, where platform.processor() says "Intel64 Family 6 ...".
    opened = []

    class Key:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    winreg = SimpleNamespace(
        HKEY_LOCAL_MACHINE="HKLM",
        OpenKey=lambda root, path: opened.append((root, path)) or Key(),
        QueryValueEx=lambda key, name: ("12th Gen Intel(R) Core(TM) i7-12700H  ", 1))
    monkeypatch.setitem(sys.modules, "winreg", winreg)
    monkeypatch.setattr(environment.platform, "system", lambda: "Windows")
    monkeypatch.setattr(environment.platform, "processor",
                        lambda: "Intel64 Family 6 Model 154 Stepping 3, GenuineIntel")
    assert environment.cpu_model() == "12th Gen Intel(R) Core(TM) i7-12700H"
    assert opened == [("HKLM", r"HARDWARE\DESCRIPTION\System\CentralProcessor\0")]


def test_a_platform_that_says_nothing_falls_back_to_pythons_words(monkeypatch, fresh_names):
    monkeypatch.setattr(environment.platform, "system", lambda: "Darwin")
    monkeypatch.setattr(environment.subprocess, "run",
                        lambda *a, **k: (_ for _ in ()).throw(FileNotFoundError("sysctl")))
    monkeypatch.setattr(environment.platform, "processor", lambda: "arm")
    assert environment.cpu_model() == "arm"



def _smi(stdout: str, returncode: int = 0):
    """nvidia-smi's answer, for ``driver_model``'s ``run``; it records what was asked."""
    asked = []

    def run(command, **_):
        asked.append(command)
        return SimpleNamespace(returncode=returncode, stdout=stdout)

    run.asked = asked
    return run


def test_an_nvidia_gpus_driver_model_is_read_on_windows_only():
    # Mocked: nvidia-smi on a GeForce laptop (WDDM) and a workstation with two kinds of GPU.
    laptop = _smi("NVIDIA GeForce RTX 4070 Laptop GPU, WDDM\n")
    assert environment.driver_model("cuda:0", "NVIDIA GeForce RTX 4070 Laptop GPU", "Windows",
                                    laptop) == "WDDM"
    assert "--query-gpu=name,driver_model.current" in laptop.asked[0]
    two = _smi("NVIDIA RTX A6000, TCC\nNVIDIA GeForce RTX 3060, WDDM\n")
    assert environment.driver_model("cuda:1", "NVIDIA RTX A6000", "Windows", two) == "TCC"
    assert environment.driver_model("cuda:0", "NVIDIA GeForce RTX 3060", "Windows",
                                    two) == "WDDM"
    # Elsewhere, for other devices, or where nvidia-smi cannot say: nothing, and not asked.
    quiet = _smi("NVIDIA H100, N/A\n")
    assert environment.driver_model("cuda:0", "NVIDIA H100", "Linux", quiet) == ""
    assert environment.driver_model("cpu", "AMD EPYC", "Windows", quiet) == ""
    assert quiet.asked == []
    assert environment.driver_model("cuda:0", "NVIDIA H100", "Windows", quiet) == ""
    assert environment.driver_model("cuda:0", "X", "Windows", _smi("", returncode=9)) == ""

    def missing(*_, **__):
        raise FileNotFoundError("nvidia-smi")

    assert environment.driver_model("cuda:0", "X", "Windows", missing) == ""
