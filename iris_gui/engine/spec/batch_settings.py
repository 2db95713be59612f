"""The mini-batch, data-path and precision settings of a run: their names, the text the CLI
and the window take, and the rules between them, without torch (config.py calls these).

A loader's settings (workers, pinned memory, non-blocking copies, persistent workers, the
prefetch factor) mean nothing to resident data, and a workers-only setting means nothing with
no workers: a run that names one where it cannot apply is refused, saying why, rather than
stored with a setting that did not happen.

A loader's workers persist unless the run says otherwise: without ``persistent_workers`` torch
starts and stops every worker each epoch, which costs more than a small data set's whole epoch.
"""

from __future__ import annotations

import multiprocessing
import os
from typing import Any

from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.words.counted import counted

DATA_PATHS = ("resident", "loader")
PRECISIONS = ("float32", "float64", "bfloat16", "float16")
MAX_BATCH = 10_000_000
MAX_WORKERS = 64
MAX_PREFETCH = 64
DEFAULT_PREFETCH = 2  # torch's own default for DataLoader(num_workers > 0)
# About what starting and stopping one loader worker adds to an epoch, in milliseconds, by the
# way it is started: measured on a busy 2-core x86 machine with torch 2.13 (a fork copies the
# process; spawn and forkserver start an interpreter that imports torch).
WORKER_RESTART_MS = {"fork": 30, "forkserver": 1_500, "spawn": 1_700}


def default_persistent(workers: Any) -> bool:
    """Whether a loader's workers persist when a run does not say: whenever it has workers."""
    return isinstance(workers, int) and not isinstance(workers, bool) and workers > 0


# Another platform's way of starting processes, simulated on this one (``make test-spawn``):
# "spawn" starts the window's worker and the loader's workers as Windows and macOS do.
START_METHOD_ENV = "IRIS_GUI_START_METHOD"


def forced_start_method() -> str:
    """The start method ``IRIS_GUI_START_METHOD`` names, where this platform has it; ""."""
    asked = os.environ.get(START_METHOD_ENV, "").strip()
    return asked if asked in multiprocessing.get_all_start_methods() else ""


def loader_start_method() -> str:
    """How the loader starts its workers: the platform's default, as a user's own script
    would, wherever the run trains (the window's worker process is itself started by a
    forkserver or spawned, and torch would otherwise start its workers that way too)."""
    return forced_start_method() or multiprocessing.get_all_start_methods()[0]


def restart_warning(config: Any, keep: str = "--persistent-workers keeps them") -> str:
    """One line on what non-persistent workers cost an epoch, ending with ``keep`` (how to
    keep them, in the caller's words); "" where they persist or none run."""
    if config.data_path != "loader" or not config.workers or config.persistent_workers:
        return ""
    each = WORKER_RESTART_MS.get(loader_start_method(), WORKER_RESTART_MS["spawn"])
    return (f"each epoch starts and stops {counted(config.workers, 'loader worker')}: expect "
            f"about {config.workers * each:,} ms an epoch more; {keep}")


def parse_batch(text: str) -> int:
    """``full`` (0, the note's full batch) or a whole number of rows per step."""
    value = str(text).strip().lower()
    if value == "full":
        return 0
    if value.isdigit() and 1 <= int(value) <= MAX_BATCH:
        return int(value)
    raise ConfigError(f"batch {text!r} is not allowed; give full or a whole number of rows "
                      f"from 1 to {MAX_BATCH:,}")


def batch_text(batch: int) -> str:
    return str(batch) if batch else "full"


def _flag(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} {value!r} is not allowed; it is on or off (true or false)")


def _whole(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{name} {value!r} is not allowed; it must be a whole number from "
                          f"{low:,} to {high:,}")


# What Apple's GPUs (torch's "mps") cannot do that a run may ask for, and what to do instead.
MPS_REFUSALS = (
    (lambda c: c.precision == "float64",
     ("precision float64 is not available on mps (Apple's GPUs compute in 32 bits at most); "
     "choose --precision float32, bfloat16 or float16")),
    (lambda c: c.pin_memory,
     ("--pin-memory does nothing on mps (the Mac's CPU and GPU share memory, and torch turns it "
     "off), so a run would claim a setting that did not happen; leave it off")),
    (lambda c: c.tf32,
     "--tf32 is a mode of NVIDIA GPUs' matmuls (Ampere and newer), not of mps; leave it off"),
)


def device_kind(device: Any) -> str:
    """``mps`` of ``mps``, ``cuda`` of ``cuda:1`` or of a host's ``lab:cuda:1``."""
    parts = str(device).split(":")
    kinds = [part for part in parts if part in ("cpu", "cuda", "mps", "xpu")]
    return kinds[-1] if kinds else ""


def check_batch_settings(config: Any) -> None:
    """Raise ConfigError naming the first setting that is out of range or cannot apply."""
    if isinstance(config.batch, bool) or not isinstance(config.batch, int) \
            or not 0 <= config.batch <= MAX_BATCH:
        raise ConfigError(f"batch {config.batch!r} is not allowed; give full (0) or a whole "
                          f"number of rows from 1 to {MAX_BATCH:,}")
    for name in ("drop_last", "pin_memory", "non_blocking", "persistent_workers", "tf32"):
        _flag(name.replace("_", " "), getattr(config, name))
    _whole("workers", config.workers, 0, MAX_WORKERS)
    _whole("prefetch factor", config.prefetch_factor, 1, MAX_PREFETCH)
    if config.data_path not in DATA_PATHS:
        raise ConfigError(f"data path {config.data_path!r} is not allowed; choose resident "
                          f"or loader")
    if config.precision not in PRECISIONS:
        raise ConfigError(f"precision {config.precision!r} is not allowed; choose one of: "
                          f"{', '.join(PRECISIONS)}")
    if config.drop_last and not config.batch:
        raise ConfigError("drop-last applies to mini-batches; give --batch N as well")
    if device_kind(config.device) == "mps":
        for asks, refusal in MPS_REFUSALS:
            if asks(config):
                raise ConfigError(refusal)
    if config.data_path == "resident":
        loader_only = [name for name, on in (
            ("--workers", config.workers != 0), ("--pin-memory", config.pin_memory),
            ("--non-blocking", config.non_blocking),
            ("--persistent-workers", config.persistent_workers),
            ("--prefetch-factor", config.prefetch_factor != DEFAULT_PREFETCH)) if on]
        if loader_only:
            raise ConfigError(f"{', '.join(loader_only)} apply only to --data-path loader; "
                              f"resident data is on the device already")
    elif config.workers == 0:
        if config.persistent_workers:
            raise ConfigError("--persistent-workers needs --workers 1 or more")
        if config.prefetch_factor != DEFAULT_PREFETCH:
            raise ConfigError("--prefetch-factor needs --workers 1 or more")
