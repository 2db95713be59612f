"""The engine ladder's rungs. spec/engines.py is each rung's one entry (its names, its rules and
where its class is); each module is imported only when its rung is used or asked about:
``native`` loads numba, ``compiled`` the compiler."""

from __future__ import annotations

import importlib

import torch

from iris_gui.engine.rungs.base import Rung
from iris_gui.engine.spec.engines import ENGINE_INFO, ENGINES
from iris_gui.engine.spec.errors import ConfigError

_made: dict[str, Rung] = {}


def get_rung(name: str) -> Rung:
    if name not in _made:
        module, cls = ENGINE_INFO[name].implementation.split(":")
        _made[name] = getattr(importlib.import_module(module), cls)()
    return _made[name]


def availability(name: str, device: torch.device) -> str | None:
    """Why rung ``name`` cannot run on ``device`` (one line), or None when it can."""
    kinds = ENGINE_INFO[name].devices
    if kinds and device.type not in kinds:
        where = " and ".join(kinds).replace("cuda", "CUDA GPUs").replace("cpu", "the CPU")
        return f"the {name} engine runs on {where} only"
    try:
        rung = get_rung(name)
    except ImportError as error:  # a broken or partial install must not take the ladder down
        return f"the {name} engine cannot be loaded here: {error}"
    return rung.availability(device)


def engines_on(device: torch.device) -> dict[str, str | None]:
    """Every rung with the reason it is unavailable on ``device`` (None: available)."""
    return {name: availability(name, device) for name in ENGINES}


def require_available(name: str, device: torch.device) -> Rung:
    """The rung, or ConfigError with the reason it cannot run on ``device``."""
    reason = availability(name, device)
    if reason is not None:
        raise ConfigError(f"{reason} (here: {device})")
    return get_rung(name)
