"""Median and IQR summaries, the way timings are read (after torch.utils.benchmark). No torch."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# torch.utils.benchmark flags a measurement whose IQR exceeds 10% of its median.
NOISY_IQR_FRACTION = 0.10


@dataclass(frozen=True)
class Summary:
    """Median and interquartile range of replicate measurements."""

    median: float
    iqr: float
    n: int
    minimum: float
    maximum: float

    @property
    def noisy(self) -> bool:
        return self.n > 1 and self.median > 0 and self.iqr > NOISY_IQR_FRACTION * self.median

    def to_dict(self) -> dict[str, float | int | bool | None]:
        def clean(value: float) -> float | None:
            return value if math.isfinite(value) else None

        return {
            "median": clean(self.median), "iqr": clean(self.iqr), "n": self.n,
            "min": clean(self.minimum), "max": clean(self.maximum), "noisy": self.noisy,
        }


def summarize(values: list[float] | np.ndarray) -> Summary:
    data = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=np.float64)
    if data.size == 0:
        return Summary(math.nan, math.nan, 0, math.nan, math.nan)
    q1, median, q3 = np.percentile(data, [25, 50, 75])
    return Summary(float(median), float(q3 - q1), int(data.size), float(data.min()), float(data.max()))
