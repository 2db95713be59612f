"""A run's model in words, with its size and cost: the one place that writes them for the
results table, the run's details, the command line and the report. No torch.

- ``model_name``: ``cnn 16×2``, ``transformer 16×2 h2``, ``net.py:Net``, and for the note's MLP
  its hidden widths, ``MLP 10`` or ``MLP 64,32``;
- ``flops_compact``: a count of FLOPs in three figures and an SI prefix, ``40.8 k``, ``16.8 M``,
  ``410 M``, ``1.2 G``;
- ``model_sentence``: ``cnn 16×2, 3,130 parameters, 16.8 MFLOP a step``.

A run recorded before the counts existed has 0 parameters and NaN FLOPs: those read "-" in a
cell and are left out of the sentence.
"""

from __future__ import annotations

import math
from typing import Any

from iris_gui.engine.words.labels import model_words

MISSING = "-"
FIGURES = 3  # significant figures of a compact count
SHA_SHOWN = 12  # hex digits of a SHA-256 shown in a line; the record keeps it whole
_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def model_name(config: Any, times: str = "×") -> str:
    """The model ``config`` trains, short: ``cnn 16×2`` or ``MLP 10``."""
    return model_words(config, times) or "MLP " + ",".join(str(w) for w in config.hidden)


def scaled(value: float) -> tuple[str, str]:
    """``value`` in three significant figures and its prefix: (``16.8``, ``M``)."""
    rounded = float(f"{value:.{FIGURES}g}")  # 999,600 is 1.00 M, not 1e+03 k
    for scale, prefix in _PREFIXES:
        if abs(rounded) >= scale:
            return f"{rounded / scale:.{FIGURES}g}", prefix
    return f"{rounded:.{FIGURES}g}", ""


def flops_compact(value: float) -> str:
    """``16.8 M``, ``410 M``, ``830``; "-" when not counted (NaN)."""
    if value is None or not math.isfinite(value):
        return MISSING
    number, prefix = scaled(value)
    return f"{number} {prefix}".rstrip()


def flops_words(value: float) -> str:
    """``16.8 MFLOP``, ``830 FLOP``; "" when not counted."""
    if value is None or not math.isfinite(value):
        return ""
    number, prefix = scaled(value)
    return f"{number} {prefix}FLOP"


def parameters_cell(parameters: int) -> str:
    """``3,130``; "-" when not counted (0)."""
    return f"{parameters:,}" if parameters else MISSING


def model_sentence(result: Any, times: str = "×") -> str:
    """``cnn 16×2, 3,130 parameters, 16.8 MFLOP a step``: the model and what was counted."""
    parts = [model_name(result.config, times)]
    if result.parameters:
        parts.append(f"{result.parameters:,} parameter{'' if result.parameters == 1 else 's'}")
    if flops := flops_words(result.flops_per_step):
        parts.append(f"{flops} a step")
    return ", ".join(parts)


def model_file_words(record: dict[str, Any]) -> str:
    """``/home/me/net.py, 1,234 bytes, SHA-256 0123456789ab``: the model file a run loaded;
    "" when it loaded none."""
    if not record:
        return ""
    parts = [str(record.get("path") or "")]
    if isinstance(record.get("size"), int):
        parts.append(f"{record['size']:,} bytes")
    if digest := str(record.get("sha256") or ""):
        parts.append(f"SHA-256 {digest[:SHA_SHOWN]}")
    return ", ".join(part for part in parts if part)

