"""What a worker says about a job, read and checked: every message a runner hears from its
worker becomes the engine's own record, or MessageError in one line naming the message and
what was wrong.

A host's worker is another program on another machine, reached through ssh: what it sends is
checked here before a runner, the store or a widget sees it (the remote connection's reader
calls ``checked`` as each frame arrives; the local worker's messages pass the same door). A job
is answered only by the kinds its job sends, each of the shape and range that job allows:

- ``chunk`` -> Chunk, as records/chunk.py says a run sends one (``chunk_fault``).
- ``result`` -> RunResult: the config asked for, every field of its type, epochs and losses
  within the run's, the files it read the ones asked (records/provenance.py), chunk arrays of
  one length with finite, non-negative seconds.
- ``breakdown`` -> a Breakdown's dict, of the config asked for.
- ``sweep-next`` -> (done, total): point ``done + 1`` of ``total`` begins.
- ``sweep-point`` -> (SweepPoint, done, total); ``sweep-result`` -> SweepResult of the spec asked.
- ``model`` -> (parameters, FLOPs a step) of the config's model, built and not trained.
- ``error`` (the input was refused) and ``failed`` (the job raised) -> one line of text.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any, NamedTuple

import numpy as np

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.ceilings import SUMMARY_FIELDS, Ceilings
from iris_gui.engine.records.chunk import Chunk, ChunkTrail, chunk_fault
from iris_gui.engine.records.device_info import check_device_id
from iris_gui.engine.records.provenance import provenance_fault
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.engine.records.typed import brief, check_fields, seen
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import EngineError

# What each job is answered with: the kinds that may arrive while it runs.
ANSWERS = {"run": ("chunk", "result", "error"),
           "explain": ("breakdown", "error", "failed"),
           "sweep": ("sweep-next", "sweep-point", "sweep-result", "error", "failed"),
           "model": ("model", "error", "failed"),
           "ceilings": ("ceilings", "error", "failed")}
# Timings that can be negative: the cores free is the cores less the load average.
SIGNED_TIMINGS = frozenset({"cpu_cores_free"})


class MessageError(EngineError):
    """A message that is not one this end can use: the wrong kind, shape, type or range."""


@dataclass(frozen=True)
class Asked:
    """The job a runner waits on: its number, what it is, and the config or spec it sent."""

    job: int
    what: str  # "run" | "explain" | "sweep" | "model" | "ceilings"
    config: RunConfig | None = None
    spec: SweepSpec | None = None
    # How far the run's chunks have come: each must go on from it (ChunkTrail).
    trail: ChunkTrail = field(default_factory=ChunkTrail, compare=False)


class CeilingsAsked(NamedTuple):
    """A measurement of a device's ceilings: the device, intra-op threads (None: the
    measuring process's count), precision and replicates of each figure."""

    device: str = "cpu"
    threads: int | None = None
    precision: str = "float32"
    replicates: int = 5

    @property
    def config(self) -> RunConfig:
        """What the answer is checked against (its device and precision)."""
        return RunConfig(device=self.device, precision=self.precision)


def checked(kind: str, payload: Any, asked: Asked) -> Any:
    """``payload`` of a ``kind`` message about the job ``asked``, as the record it stands for;
    MessageError naming the kind and the fault otherwise."""
    if kind not in ANSWERS[asked.what]:
        raise MessageError(f"a {kind!r} message came during a {asked.what} (allowed: "
                           f"{', '.join(ANSWERS[asked.what])})")
    try:
        return _READERS[kind](payload, asked)
    except MessageError as error:
        raise MessageError(f"its {kind!r} message {error}") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as error:
        words = str(error) if isinstance(error, EngineError) else f"{type(error).__name__}: {error}"
        raise MessageError(f"its {kind!r} message could not be read ({brief(words)})") from None


def _chunk(payload: Any, asked: Asked) -> Chunk:
    values = vars(payload) if isinstance(payload, Chunk) else _dict(payload)
    chunk = Chunk(**{spec.name: values[spec.name] for spec in fields(Chunk)})
    check_fields(chunk, "chunk")
    config = _config(asked)
    fault = (chunk_fault(chunk, config.epochs, config.recording.stride)
             or asked.trail.fault(chunk))
    if fault is not None:
        raise MessageError(f"has {fault}")
    if not math.isfinite(chunk.stamp):
        raise MessageError(f"has a stamp of {chunk.stamp}, not a time")
    asked.trail.advance(chunk)
    return chunk


def _result(payload: Any, asked: Asked) -> RunResult:
    record, losses, chunks = _sequence(payload, 3)
    chunk_epochs, chunk_seconds = _sequence(chunks, 2)
    for array in (losses, chunk_epochs, chunk_seconds):
        if not isinstance(array, np.ndarray):
            raise MessageError(f"holds {seen(array)} where an array belongs")
    result = RunResult.from_dict(_dict(record), losses, (chunk_epochs, chunk_seconds))
    check_fields(result, "result")
    config = _config(asked)
    if result.config != config:
        raise MessageError(f"is of another run than the one asked for ({_differs(result.config, config)})")
    fault = provenance_fault(result, config)
    if fault is not None:
        raise MessageError(fault)
    _within("result.epochs_completed", result.epochs_completed, 0, config.epochs)
    stride = config.recording.stride
    # A run that failed before its first loss may say 1: it has no curve to space.
    if result.loss_stride != stride and (len(result.losses) or result.loss_stride != 1):
        raise MessageError(f"has result.loss_stride {result.loss_stride:,}, where the run "
                           f"records every {stride:,}")
    _losses(result.losses, result.epochs_completed + 1, result.loss_stride, "result.losses")
    if result.diverged_epoch is not None:
        _within("result.diverged_epoch", result.diverged_epoch, 0, config.epochs)
    for name in ("train_accuracy", "test_accuracy"):
        value = getattr(result, name)
        if not (math.isnan(value) or 0.0 <= value <= 1.0):
            raise MessageError(f"has {name} {value}, outside 0..1")
    for spec in fields(result.timings):
        value = getattr(result.timings, spec.name)
        if spec.name not in SIGNED_TIMINGS and isinstance(value, (int, float)) and value < 0:
            raise MessageError(f"has a negative timing: {spec.name} {value}")
    _chunk_arrays(result.chunk_epochs, result.chunk_seconds)
    return result


def _chunk_arrays(epochs: np.ndarray, seconds: np.ndarray) -> None:
    if epochs.ndim != 1 or epochs.shape != seconds.shape:
        raise MessageError(f"has chunk arrays of shapes {epochs.shape} and {seconds.shape}")
    if np.any(epochs < 0) or not np.all(np.isfinite(seconds)) or np.any(seconds < 0):
        raise MessageError("has a chunk of negative epochs or of seconds that are not a "
                           "finite, non-negative number")


def _breakdown(payload: Any, asked: Asked) -> dict[str, Any]:
    breakdown = Breakdown.from_dict(_dict(payload))
    check_fields(breakdown, "breakdown")
    check_device_id(breakdown.device, "its device")
    if breakdown.config != _config(asked).to_dict():
        raise MessageError("is of another run than the one asked for")
    return breakdown.to_dict()


def _sweep_point(payload: Any, asked: Asked) -> tuple[SweepPoint, int, int]:
    point, done, total = _sequence(payload, 3)
    swept = SweepPoint.from_dict(_dict(point))
    check_fields(swept, "sweep point")
    check_device_id(swept.device, "its point's device")
    if not (_whole(done) and _whole(total) and 1 <= done <= total):
        raise MessageError(f"counts point {seen(done)} of {seen(total)}")
    return swept, done, total


def _model(payload: Any, asked: Asked) -> tuple[int, float]:
    parameters, flops = _sequence(payload, 2)
    if not (_whole(parameters) and parameters > 0):
        raise MessageError(f"counts {seen(parameters)} parameters")
    if not isinstance(flops, (int, float)) or isinstance(flops, bool) or flops < 0 \
            or math.isinf(flops):
        raise MessageError(f"counts {seen(flops)} FLOPs a step")
    return parameters, float(flops)


def _ceilings(payload: Any, asked: Asked) -> Ceilings:
    found = Ceilings.from_dict(_dict(payload))
    config = _config(asked)
    if (found.device, found.precision) != (config.device, config.precision):
        raise MessageError(f"measured {seen(found.device)} at {seen(found.precision)}, not the "
                           f"{config.device} at {config.precision} asked")
    for name in SUMMARY_FIELDS:
        median = getattr(found, name).median
        if not (math.isnan(median) or (math.isfinite(median) and median > 0)):
            raise MessageError(f"gives {name} as {seen(median)}")
    return found


def _sweep_next(payload: Any, asked: Asked) -> tuple[int, int]:
    done, total = _sequence(payload, 2)
    if not (_whole(done) and _whole(total) and 0 <= done < total):
        raise MessageError(f"starts point {seen(done)} + 1 of {seen(total)}")
    return done, total


def _sweep_result(payload: Any, asked: Asked) -> SweepResult:
    result = SweepResult.from_dict(_dict(payload))
    # What came, not what analyse() fitted to it here: a fit's figures are this end's own.
    received = replace(result, fits=[], crossovers=[])
    check_fields(received, "sweep result")
    for point in result.points:
        check_device_id(point.device, "a point's device")
    if result.spec != asked.spec:
        raise MessageError("is of another sweep than the one asked for")
    if result.status not in ("completed", "stopped", "failed"):
        raise MessageError(f"has the status {seen(result.status)}")
    return result


def _text(payload: Any, asked: Asked) -> str:
    if not isinstance(payload, str):
        raise MessageError(f"holds {seen(payload)} where one line of text belongs")
    return payload


_READERS: dict[str, Callable[[Any, Asked], Any]] = {
    "chunk": _chunk, "result": _result, "breakdown": _breakdown, "model": _model, "ceilings": _ceilings,
    "sweep-next": _sweep_next,
    "sweep-point": _sweep_point,
    "sweep-result": _sweep_result, "error": _text, "failed": _text}


def _config(asked: Asked) -> RunConfig:
    assert asked.config is not None, "a run or explain is asked with its config"
    return asked.config


def _dict(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MessageError(f"holds {seen(value)} where an object belongs")
    return value


def _sequence(value: Any, length: int) -> tuple[Any, ...]:
    if not isinstance(value, (list, tuple)) or len(value) != length:
        raise MessageError(f"holds {seen(value)} where a list of {length} belongs")
    return tuple(value)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _within(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise MessageError(f"has {name} {value:,}, outside {low:,}..{high:,}")


def _losses(losses: np.ndarray, epochs: int, stride: int, name: str) -> None:
    """A 1-D float array of at most one loss per ``stride`` of ``epochs`` epochs."""
    if losses.ndim != 1 or losses.dtype.kind != "f":
        raise MessageError(f"has {name} of shape {losses.shape} and {losses.dtype}, not a "
                           "1-D array of floats")
    most = -(-max(epochs, 0) // stride)
    if len(losses) > most:
        raise MessageError(f"has {len(losses):,} {name} for {epochs:,} epochs by {stride}")


def _differs(got: RunConfig, asked: RunConfig) -> str:
    theirs, ours = got.to_dict(), asked.to_dict()
    name = next((key for key in ours if theirs.get(key) != ours[key]), "?")
    return f"{name} {seen(theirs.get(name))}, asked {seen(ours.get(name))}"
