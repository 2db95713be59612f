"""Why this machine has no accelerator, as a record: what the worker found of torch's build,
the NVIDIA driver and the devices, classified once, so the window, the command line and a
refused device all say the same why. No torch here: the worker fills in the facts
(engine/train/devices.py), the window reads the record.

``classify`` is a pure function of those facts, so every case is tested without a GPU or a
driver: a CPU-only build, a CUDA build with no driver, a CUDA build with a driver but no
device (a driver too old for the build, say), and accelerators present (nothing to say).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

CPU_BUILD = "cpu-build"  # torch was built for the CPU alone
NO_DRIVER = "no-driver"  # a CUDA build, and no NVIDIA driver is loaded
NO_DEVICE = "no-device"  # a CUDA build and a driver, but torch finds no CUDA device
NO_BACKEND_DEVICE = "no-backend-device"  # built for MPS, XPU or ROCm, none of them here
PRESENT = "present"  # an accelerator is here
KINDS = (CPU_BUILD, NO_DRIVER, NO_DEVICE, NO_BACKEND_DEVICE, PRESENT)


@dataclass(frozen=True)
class AcceleratorRecord:
    kind: str
    torch_build: str  # torch.__version__ as a string: "2.13.0+cpu"
    cuda: str | None = None  # torch.version.cuda: "13.0", None for a build without CUDA
    backends: tuple[str, ...] = ()  # the other accelerator backends the build has: "MPS"
    error: str = ""  # torch's own one line about the CUDA start, where it gave one

    @property
    def present(self) -> bool:
        return self.kind == PRESENT

    def why(self) -> str:
        """The one sentence that says why there is no GPU here; "" when there is one."""
        build = f"this torch ({self.torch_build})"
        if self.kind == CPU_BUILD:
            return f"No GPU here: {build} is a CPU-only build."
        if self.kind == NO_DRIVER:
            return f"No GPU here: {build} is a CUDA {self.cuda} build, but no NVIDIA driver is " \
                   "loaded."
        if self.kind == NO_DEVICE:
            seen = f": {self.error}" if self.error else ""
            return (f"No GPU here: {build} is a CUDA {self.cuda} build and an NVIDIA driver is "
                    f"loaded, but torch finds no CUDA device{seen.rstrip('.')}.")
        if self.kind == NO_BACKEND_DEVICE:
            return f"No GPU here: {build} is built for {' and '.join(self.backends)}, but torch " \
                   "finds no such device."
        return ""

    def short(self) -> str:
        """The why in a few words, for the status bar: ``CPU-only torch build``."""
        return {CPU_BUILD: "CPU-only torch build", NO_DRIVER: "no NVIDIA driver loaded",
                NO_DEVICE: "NVIDIA driver too old" if self.driver_too_old else
                "no CUDA device found",
                NO_BACKEND_DEVICE: f"no {' or '.join(self.backends)} device found"}.get(
                    self.kind, "")

    def refusal(self) -> str:
        """The why inside a refused device's line: ``this torch is a CPU-only build``."""
        if self.kind == CPU_BUILD:
            return "this torch is a CPU-only build"
        if self.kind == NO_DRIVER:
            return f"this torch is a CUDA {self.cuda} build, but no NVIDIA driver is loaded"
        if self.kind == NO_DEVICE:
            return f"torch finds no CUDA device: {self.error.rstrip('.')}" if self.error else \
                "torch finds no CUDA device, though an NVIDIA driver is loaded"
        if self.kind == NO_BACKEND_DEVICE:
            return f"torch finds no {' or '.join(self.backends)} device"
        return ""

    @property
    def driver_too_old(self) -> bool:
        return "too old" in self.error.lower()

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "backends": list(self.backends), "why": self.why()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AcceleratorRecord:
        return cls(str(data["kind"]), str(data["torch_build"]), data.get("cuda"),
                   tuple(data.get("backends") or ()), str(data.get("error") or ""))


def classify(torch_build: str, cuda: str | None = None, driver: bool = False,
             devices: int = 0, error: str = "",
             backends: tuple[str, ...] = ()) -> AcceleratorRecord:
    """The record of what the worker found. ``devices``: the accelerators it can train on
    (CUDA, MPS, XPU); ``driver``: an NVIDIA driver is loaded; ``error``: torch's words about
    starting CUDA (first line kept); ``backends``: the other accelerator backends built in."""
    error = first_sentence(error)
    if devices > 0:
        return AcceleratorRecord(PRESENT, torch_build, cuda, backends)
    if cuda is None:
        return AcceleratorRecord(NO_BACKEND_DEVICE if backends else CPU_BUILD, torch_build,
                                 None, backends, error)
    return AcceleratorRecord(NO_DEVICE if driver else NO_DRIVER, torch_build, cuda, backends,
                             error)


def first_sentence(text: str) -> str:
    """torch's message cut to its first line and sentence (its URLs and advice dropped), to
    follow a colon."""
    line = text.strip().splitlines()[0].strip() if text.strip() else ""
    line = line.removeprefix("CUDA initialization: ").strip()
    head, dot, _ = line.partition(". ")
    head = head + "." if dot else line
    # Lower case after the colon it follows, where it is a word's capital and not a name's.
    return head[0].lower() + head[1:] if head[1:2].islower() else head
