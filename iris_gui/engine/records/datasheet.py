"""A device's datasheet: the peak arithmetic and memory bandwidth its vendor publishes. No torch.

A device with no measured ceilings (records/ceilings.py) can still be drawn against its
datasheet: its roofs dashed and labelled ``LABEL``, never mixed with a measurement nor held as
one. A datasheet's peak is a clock and a unit count multiplied out, which no run reaches; a
measured ceiling is what a large matrix product and a large copy did reach on the device.

The figures are the vendor's peaks at boost clock in SI units: FLOP/s (2 FLOPs a
multiply-add) and bytes/s of device memory (a Mac's unified memory). ``float32`` is the
non-tensor rate; ``float16`` and ``bfloat16`` are the dense tensor-core rate, without 2:4
sparsity (half the sparse figure a sheet prints) and, on a GeForce card, with FP32
accumulation, as a PyTorch matmul runs. A precision a sheet does not give is absent and reads
as NaN. ``source`` names the page (or pages) the figures come from; a figure derived from the
vendor's core count and clock says so in ``note``.

``datasheet_for`` matches a device's name (``torch.cuda.get_device_name()``, a Mac's brand
string) against each sheet's ``matches``: case-insensitive, whole words only ("l4" is not
"l40s"), the longest match winning ("h100 pcie" over "h100"). A name with a variant word its
match lacks ("laptop", "ti", "pro", ...) names another, often much slower, chip and matches
nothing: no datasheet is better than another chip's. No CPU has a sheet: a Mac's brand string
names its CPU as well as its GPU, so a caller looks up only an accelerator's name.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

LABEL = "datasheet, not measured"
# Words that make a name another chip than a match without them: a laptop part, a Ti or SUPER
# card, the RTX 4090 D, an H100 PCIe or NVL, an Apple Pro, Max or Ultra chip.
VARIANT_WORDS = frozenset({"laptop", "mobile", "ti", "super", "d", "pcie", "nvl", "pro", "max",
                           "ultra"})


@dataclass(frozen=True)
class Datasheet:
    name: str
    matches: tuple[str, ...]  # lowercase, as they stand in a device's name
    flops: dict[str, float] = field(hash=False)  # precision -> FLOP/s
    bandwidth: float  # bytes/s
    source: str  # the vendor's page; two URLs, space-separated, where two pages give the figures
    note: str = ""

    def peak(self, precision: str) -> float:
        """FLOP/s at ``precision``; NaN where the sheet gives none."""
        return self.flops.get(precision, math.nan)

    def balance(self, precision: str) -> float:
        """FLOPs per byte where the two roofs meet (NaN where the sheet gives no peak)."""
        return self.peak(precision) / self.bandwidth

    def words(self, precision: str) -> str:
        """"NVIDIA H100 SXM5 80GB: 67 TFLOP/s float32, 3.35 TB/s (datasheet, not measured)"."""
        peak = self.peak(precision)
        arithmetic = (f"{_scaled(peak, 'FLOP/s')} {precision}" if math.isfinite(peak)
                      else f"no {precision} figure")
        return f"{self.name}: {arithmetic}, {_scaled(self.bandwidth, 'B/s')} ({LABEL})"


def _scaled(value: float, unit: str) -> str:
    scale, prefix = (1e12, "T") if value >= 1e12 else (1e9, "G")
    return f"{value / scale:.3g} {prefix}{unit}"


_H100 = "https://www.nvidia.com/en-us/data-center/h100/"
_H200 = "https://www.nvidia.com/en-us/data-center/h200/"
_A100 = ("https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
         "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf")
# Where a sheet prints its tensor rates with sparsity only, they are halved here.
_DENSE = "boost clock; tensor figures dense, half the sheet's sparse ones"
SHEETS = (
    Datasheet("NVIDIA H100 SXM5 80GB", ("h100 sxm", "h100-sxm", "h100"),
              {"float32": 67e12, "float16": 1979e12 / 2, "bfloat16": 1979e12 / 2}, 3.35e12,
              _H100, _DENSE),
    Datasheet("NVIDIA H100 PCIe 80GB", ("h100 pcie", "h100-pcie"),
              {"float32": 51e12, "float16": 1513e12 / 2, "bfloat16": 1513e12 / 2}, 2.0e12,
              "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
              _DENSE),
    Datasheet("NVIDIA H100 NVL 94GB", ("h100 nvl",),
              {"float32": 60e12, "float16": 1671e12 / 2, "bfloat16": 1671e12 / 2}, 3.9e12,
              _H100, _DENSE),
    Datasheet("NVIDIA H200 NVL 141GB", ("h200 nvl",),
              {"float32": 60e12, "float16": 1671e12 / 2, "bfloat16": 1671e12 / 2}, 4.8e12,
              _H200, _DENSE),
    Datasheet("NVIDIA H200 SXM 141GB", ("h200 sxm", "h200"),
              {"float32": 67e12, "float16": 1979e12 / 2, "bfloat16": 1979e12 / 2}, 4.8e12,
              _H200, _DENSE),
    # The A100's forms differ only in memory bandwidth; a name without its form and size is
    # held to the 40 GB parts' (the lowest).
    Datasheet("NVIDIA A100 SXM4 80GB", ("a100-sxm4-80gb", "a100-sxm-80gb", "a100 sxm4 80gb"),
              {"float32": 19.5e12, "float16": 312e12, "bfloat16": 312e12}, 2.039e12,
              _A100, "boost clock; dense, no sparsity"),
    Datasheet("NVIDIA A100 PCIe 80GB", ("a100 80gb pcie", "a100-pcie-80gb"),
              {"float32": 19.5e12, "float16": 312e12, "bfloat16": 312e12}, 1.935e12,
              _A100, "boost clock; dense, no sparsity"),
    Datasheet("NVIDIA A100 40GB", ("a100-sxm4-40gb", "a100-pcie-40gb", "a100"),
              {"float32": 19.5e12, "float16": 312e12, "bfloat16": 312e12}, 1.555e12,
              _A100, "SXM4 or PCIe, the same 1,555 GB/s; dense, no sparsity"),
    Datasheet("NVIDIA L4", ("l4",),
              {"float32": 30.3e12, "float16": 242e12 / 2, "bfloat16": 242e12 / 2}, 300e9,
              "https://www.nvidia.com/en-us/data-center/l4/", _DENSE),
    Datasheet("NVIDIA T4", ("t4",), {"float32": 8.1e12, "float16": 65e12}, 320e9,
              "https://www.nvidia.com/en-us/data-center/tesla-t4/",
              "boost clock; FP16 with FP32 accumulation, dense; no bfloat16"),
    Datasheet("NVIDIA GeForce RTX 4090", ("rtx 4090",),
              {"float32": 82.6e12, "float16": 165.2e12, "bfloat16": 165.2e12}, 1008e9,
              "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/"
              "nvidia-ada-gpu-architecture.pdf",
              "boost clock; tensor figures dense, FP32 accumulation"),
    # NVIDIA gives the laptop part's cores and boost range (1,230-2,175 MHz by power limit),
    # not its FLOP/s: the peak is the top of the range multiplied out.
    Datasheet("NVIDIA GeForce RTX 4070 Laptop GPU", ("rtx 4070 laptop",),
              {"float32": 4608 * 2 * 2.175e9}, 256e9,
              "https://www.nvidia.com/en-us/geforce/laptops/40-series/",
              "derived: 4,608 cores at the top 2,175 MHz boost (a lower-power laptop peaks "
              "lower); 128-bit GDDR6 at 16 Gbps"),
    Datasheet("NVIDIA GeForce RTX 3060", ("rtx 3060",), {"float32": 3584 * 2 * 1.78e9}, 360e9,
              "https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3060-3060ti/",
              "derived: 3,584 cores at 1.78 GHz boost (NVIDIA: 13 shader TFLOPS); the 12 GB "
              "card's 192-bit GDDR6 at 15 Gbps (the 8 GB card's is 240 GB/s)"),
    Datasheet("Apple M1", ("apple m1",), {"float32": 2.6e12}, 68.25e9,
              "https://www.apple.com/newsroom/2020/11/apple-unleashes-m1/",
              "8-core GPU (a 7-core part peaks lower); LPDDR4X-4266 on a 128-bit bus"),
    # Apple publishes no TFLOPS after the M1: the M2's is Notebookcheck's (1,398 MHz), and the
    # M3's and M4's are left out, as the references disagree on their GPU clocks.
    Datasheet("Apple M2", ("apple m2",), {"float32": 3.6e12}, 100e9,
              "https://www.apple.com/newsroom/2022/06/apple-unveils-m2-with-breakthrough-"
              "performance-and-capabilities/ https://www.notebookcheck.com/M2-10-Core-GPU-vs-"
              "M2-8-Core-GPU-vs-M2-Pro-19-Core-GPU_11368_11375_11568.247532.0.html",
              "10-core GPU (an 8-core part peaks lower); FP32 is Notebookcheck's, not Apple's"),
)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text))


def _fits(match: str, name: str, variants: set[str]) -> bool:
    """``match`` stands in ``name`` as whole words, and ``name`` has no variant word it lacks."""
    whole = re.search(rf"(?<![a-z0-9]){re.escape(match)}(?![a-z0-9])", name)
    return whole is not None and variants <= _words(match)


def datasheet_for(device_name: str) -> Datasheet | None:
    """The sheet whose longest match fits ``device_name``; None for an unknown device."""
    name = device_name.lower()
    variants = _words(name) & VARIANT_WORDS
    fitting = [(len(match), sheet) for sheet in SHEETS for match in sheet.matches
               if _fits(match, name, variants)]
    return max(fitting, key=lambda pair: pair[0])[1] if fitting else None
