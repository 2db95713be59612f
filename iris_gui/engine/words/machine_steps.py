"""What a learner can still measure on a machine without a GPU, and how to get GPU figures:
the next steps after an ``AcceleratorRecord``'s why, each named once with its place in the
window and its command, so the window's notice and ``iris-gui devices`` say the same."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from iris_gui.engine.records.accelerator import CPU_BUILD, NO_DEVICE, NO_DRIVER, AcceleratorRecord
from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.words.counted import counted

# pyproject.toml's torch range (a test holds them together) and the CUDA build's wheel index.
TORCH_RANGE = ">=2.4,<2.14"
CUDA_INDEX_URL = "https://download.pytorch.org/whl/cu130"
# In double quotes: the one quoting cmd.exe, PowerShell and POSIX shells all read alike (in
# cmd single quotes are characters, and its < and > redirect).
CUDA_TORCH_INSTALL = f'python -m pip install "torch{TORCH_RANGE}" --index-url {CUDA_INDEX_URL}'


@dataclass(frozen=True)
class Step:
    what: str
    window: str = ""  # where the window does it
    command: str = ""  # the command line that does it
    why: str = ""  # what it shows (the command line's list says it; the window's bar is brief)
    brief: str = ""  # the window's words for it, where shorter than ``what`` and ``why``
    shell: bool = False  # a line to type in a shell, wherever it is shown


HERE = (
    Step("the engine ladder", "Run → Run the Ladder", "iris-gui compare --engines all",
         "what each engine saves per epoch on this CPU"),
    Step("Explain", "the Explain view", "iris-gui explain",
         "where an epoch's time goes here, with its estimate (not a measurement) of what a "
         "GPU's launches and syncs would cost", brief="Explain, with its GPU estimate"),
    Step("a CPU crossover", "the Crossover view", "iris-gui sweep",
         "where one thread and all threads, and the engines, cross as the problem grows",
         brief="a CPU crossover of threads and engines"),
)
GPU_HOST = Step("add a GPU host", "Run → Hosts…", "iris-gui hosts add NAME USER@HOST",
                "its devices join this machine's")
GPU_CHECK = Step("run scripts/gpu_check.sh on a GPU server for its figures")


def elsewhere(record: AcceleratorRecord) -> tuple[Step, ...]:
    """The ways to GPU figures, this machine's own fix first where it has one."""
    fix = {
        CPU_BUILD: Step("on a machine with an NVIDIA GPU, install a CUDA build of torch (CUDA 13 "
                        "needs a driver of 580 or newer)", command=CUDA_TORCH_INSTALL,
                        brief="on a machine with an NVIDIA GPU, install a CUDA build of torch",
                        shell=True),
        NO_DRIVER: Step("install the NVIDIA driver (nvidia-smi then lists the GPU) and detect "
                        "the devices again", "Run → Refresh Devices", "iris-gui devices"),
        NO_DEVICE: Step(f"update the NVIDIA driver to one for CUDA {record.cuda} (nvidia-smi "
                        "names the version) and detect the devices again",
                        "Run → Refresh Devices", "iris-gui devices"),
    }.get(record.kind)
    return (*([fix] if fix else []), GPU_HOST, GPU_CHECK)


def step_line(step: Step, surface: str) -> str:
    """One step as the window's bar (``surface="window"``: brief, with where the window does
    it) or the command line's list (with the command and what it shows) says it."""
    window = surface == "window"
    what = step.brief or step.what if window else step.what
    if step.shell:
        return f"{what}: {step.command}"
    place = step.window if window else step.command
    line = f"{what} ({place})" if place else what
    return f"{line}: {step.why}" if step.why and not window else line


def steps_text(record: AcceleratorRecord) -> str:
    """The why and the next steps, for the command line; "" when a GPU is here."""
    if record.present:
        return ""
    return "\n".join([
        record.why(), "What this machine can measure:",
        *(f"  - {step_line(s, 'cli')}" for s in HERE), "For GPU figures:",
        *(f"  - {step_line(s, 'cli')}" for s in elsewhere(record))])


def ready_line(devices: Sequence[DeviceInfo], record: AcceleratorRecord | None) -> str:
    """The status bar's word once the devices are known: no GPU among them says why in a few
    words (``Ready: cpu only — no GPU here (CPU-only torch build)``)."""
    ids = ", ".join(d.id for d in devices)
    if record is None or record.present or any(d.kind != "cpu" for d in devices):
        return f"Ready: {counted(len(devices), 'device')} — {ids}"
    listed = f"{ids} only" if len(devices) == 1 else f"{counted(len(devices), 'device')} — {ids}"
    return f"Ready: {listed} — no GPU here ({record.short()})"
