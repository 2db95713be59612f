"""A run's configuration in words: the one place that names what a run trained, for every
label, legend, table row, status line and report heading. No torch.

Two forms of the same parts, in the same order:

- ``run_label``: ``cpu · eager · every-epoch · forward · batch 32 · loader ×2 · bfloat16 ·
  TF32``, the window's and the report's (the engine always; the call style only where the
  engine calls the module);
- ``table_label``: ``cpu/every-epoch/forward/batch 32/loader x2/bfloat16/TF32``, the command
  line's, which ``compare --baseline`` takes back as typed (ASCII ``x``; the note's ``eager``
  left out).

The parts beyond device, engine, recording and call are your own CSV file's name, the model,
the batch, the data path, the precision and TF32 wherever they are not the note's, so two
configurations that train differently never share a label in a table, a legend or the Explain
view.
"""

from __future__ import annotations

from typing import Any

from iris_gui.engine.spec.models import model_file_parts

SEPARATOR = " · "


def model_words(config: Any, times: str = "×") -> str:
    """``cnn 16×2`` (width × depth), ``transformer 16×2 h2`` (and heads), ``net.py:Net`` for
    your own model; "" for the note's MLP, which the hidden widths name."""
    model = getattr(config, "model", "mlp")
    if model == "cnn":
        return f"cnn {config.width}{times}{config.depth}"
    if model == "transformer":
        return f"transformer {config.width}{times}{config.depth} h{config.heads}"
    if model != "mlp":
        path, name = model_file_parts(model)
        return f"{path.rsplit('/', 1)[-1]}:{name}"
    return ""


def setting_parts(config: Any, times: str = "×") -> list[str]:
    """``flowers.csv``, ``cnn 16×2``, ``batch 32``, ``loader ×2``, ``bfloat16``, ``TF32``,
    ``world 2``: your own data's file, the model, batching, data path, precision and world
    choices that differ from the note's, in the order the Run panel shows them."""
    model = model_words(config, times)
    parts = [_file_name(config.data_file)] if getattr(config, "dataset", "") == "csv" else []
    parts += [model] if model else []
    if config.batch:
        parts.append(f"batch {config.batch:,}")
    if config.data_path == "loader":
        parts.append(f"loader {times}{config.workers}" if config.workers else "loader")
    if config.precision != "float32":
        parts.append(config.precision)
    if config.tf32:
        parts.append("TF32")
    if getattr(config, "world", 1) > 1:
        parts.append(f"world {config.world}")
    return parts


def _file_name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _call(config: Any) -> list[str]:
    return [config.call] if config.calls_module else []


def run_label(config: Any) -> str:
    """``cpu · eager · every-epoch · forward``, ``cpu · native · device · batch 32``."""
    parts = [config.device, config.engine, config.record, *_call(config), *setting_parts(config)]
    return SEPARATOR.join(parts)


def table_label(config: Any) -> str:
    """``cpu/every-epoch/forward``, ``cpu/native/device``, ``cpu/every-epoch/forward/TF32``."""
    engine = [] if config.engine == "eager" else [config.engine]
    parts = [config.device, *engine, config.record, *_call(config),
             *setting_parts(config, times="x")]
    return "/".join(parts)


def owned_label(run_id: int | None, config: Any) -> str:
    """``run 7 · cpu · eager · every-epoch · forward``, or ``current config · ...`` for a
    configuration not yet stored: the Explain view's bars and their messages."""
    owner = f"run {run_id}" if run_id is not None else "current config"
    return SEPARATOR.join([owner, run_label(config)])
