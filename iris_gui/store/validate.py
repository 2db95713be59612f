"""Checks on records read back from the store, before they become engine objects.

The store's JSON is trusted no more than a file from elsewhere: a hand edit, another tool or a
bug can leave valid JSON of the wrong shape. Each check raises ``RecordError`` naming the first
field that is wrong (``timings is null``), so a reader can skip that record, say why in one line
and keep the others usable.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeGuard

from iris_gui.engine.records.result import EnvRecord, RunStatus, Timings
from iris_gui.engine.spec.errors import RecordError

# SQLite's INTEGER is a signed 64-bit number; a larger id cannot name a row.
SQLITE_MAX_INT = 2**63 - 1
SWEEP_STATUSES = ("completed", "stopped", "failed")
POINT_STATUSES = ("completed", "skipped", "failed", "stopped")


def id_in_range(value: int) -> bool:
    return -SQLITE_MAX_INT - 1 <= value <= SQLITE_MAX_INT


def _shown(value: Any) -> str:
    if value is None:
        return "null"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _fail(name: str, value: Any, wanted: str) -> RecordError:
    if value is None:
        return RecordError(f"{name} is null")
    return RecordError(f"{name} is {_shown(value)}, not {wanted}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _object(name: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(name, value, "an object")
    return value


def _int(name: str, value: Any, low: int | None = None) -> None:
    if not _is_int(value) or (low is not None and value < low):
        raise _fail(name, value, "a whole number" + (f" >= {low}" if low is not None else ""))


def _number_or_null(name: str, value: Any) -> None:
    if value is not None and not _is_number(value):
        raise _fail(name, value, "a number or null")


def _text(name: str, value: Any) -> None:
    if not isinstance(value, str):
        raise _fail(name, value, "text")


def _list(name: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(name, value, "a list")
    return value


def _known_fields(name: str, data: dict[str, Any], kind: type) -> None:
    """Each field of the dataclass ``kind`` present in ``data`` has its default's type."""
    for item in fields(kind):
        if item.name not in data:
            continue
        value, default = data[item.name], getattr(kind(), item.name)
        where = f"{name}.{item.name}"
        if isinstance(default, float):
            _number_or_null(where, value)
        elif isinstance(default, int):
            _int(where, value)
        elif isinstance(default, str):
            _text(where, value)


def check_run_record(record: Any) -> dict[str, Any]:
    """The run record (``RunResult.to_dict``) as stored, or RecordError naming what is wrong."""
    record = _object("the record", record)
    if record.get("status") not in {s.value for s in RunStatus}:
        raise _fail("status", record.get("status"), "one of completed, stopped, diverged, failed")
    _object("config", record.get("config"))
    if "timings" in record:
        _known_fields("timings", _object("timings", record["timings"]), Timings)
    if "env" in record:
        _known_fields("env", _object("env", record["env"]), EnvRecord)
    for name in ("message", "started_at", "contention"):
        if name in record:
            _text(name, record[name])
    if not isinstance(record.get("cpu_busy", False), bool | None):
        raise _fail("cpu_busy", record["cpu_busy"], "true, false or null (not measured)")
    for name in ("epochs_completed", "curve_points", "chunk_count"):
        if name in record:
            _int(name, record[name], 0)
    if "loss_stride" in record:
        _int("loss_stride", record["loss_stride"], 1)
    for name in ("final_loss", "train_accuracy", "test_accuracy"):
        _number_or_null(name, record.get(name))
    if record.get("diverged_epoch") is not None:
        _int("diverged_epoch", record["diverged_epoch"], 0)
    for row in _list("confusion_matrix", record.get("confusion_matrix") or []):
        if not all(_is_int(v) for v in _list("confusion_matrix row", row)):
            raise _fail("confusion_matrix", row, "rows of whole numbers")
    _list("class_names", record.get("class_names") or [])
    return record


def check_blob(name: str, blob: Any, item_size: int) -> None:
    if blob is None:
        return
    if not isinstance(blob, bytes):
        raise _fail(name, blob, "bytes")
    if len(blob) % item_size:
        raise RecordError(f"{name} holds {len(blob)} bytes, not a multiple of {item_size}")


def check_chunks(epochs: Any, seconds: Any) -> None:
    check_blob("the chunk epochs", epochs, 8)
    check_blob("the chunk seconds", seconds, 8)
    if epochs is not None and seconds is not None and len(epochs) != len(seconds):
        raise RecordError("the chunks' epochs and seconds differ in length")


def check_breakdown(breakdown: Any) -> dict[str, Any] | None:
    if breakdown is None:
        return None
    breakdown = _object("the breakdown", breakdown)
    categories = _object("the breakdown's categories", breakdown.get("categories", {}))
    for key, value in categories.items():
        _number_or_null(f"the breakdown's categories.{key}", value)
    return breakdown


def check_sweep_record(record: Any) -> dict[str, Any]:
    """The sweep record (``SweepResult.to_dict``) as stored, or RecordError."""
    record = _object("the record", record)
    spec = _object("spec", record.get("spec"))
    for name in ("rows", "hidden"):
        values = _list(f"spec.{name}", spec.get(name))
        if not values or not all(_is_int(v) and v > 0 for v in values):
            raise _fail(f"spec.{name}", values, "a list of whole numbers > 0")
    for name in ("features", "classes", "min_epochs", "seed"):
        if name in spec:
            _int(f"spec.{name}", spec[name], 0)
    for name in ("min_seconds", "lr"):
        if name in spec and not _is_number(spec[name]):
            raise _fail(f"spec.{name}", spec[name], "a number")
    for name in ("devices", "engines", "threads"):
        if name in spec and not all(isinstance(v, str) for v in _list(f"spec.{name}", spec[name])):
            raise _fail(f"spec.{name}", spec[name], "a list of text")
    if record.get("status", "completed") not in SWEEP_STATUSES:
        raise _fail("status", record.get("status"), "completed, stopped or failed")
    for name in ("message", "started_at"):
        if name in record:
            _text(name, record[name])
    if "env" in record:
        _object("env", record["env"])
    if not all(isinstance(n, str) for n in _list("notes", record.get("notes", []))):
        raise _fail("notes", record.get("notes"), "a list of text")
    for index, point in enumerate(_list("points", record.get("points", []))):
        _check_point(f"point {index + 1}", point)
    return record


def _check_point(name: str, point: Any) -> None:
    point = _object(name, point)
    for key in ("device", "engine"):
        _text(f"{name}'s {key}", point.get(key))
    if point.get("status") not in POINT_STATUSES:
        raise _fail(f"{name}'s status", point.get("status"), ", ".join(POINT_STATUSES))
    for key in ("rows", "hidden"):
        _int(f"{name}'s {key}", point.get(key), 1)
    if point.get("threads") is not None:
        _int(f"{name}'s threads", point["threads"], 1)
    if "epochs" in point:
        _int(f"{name}'s epochs", point["epochs"], 0)
    for key in ("epoch_us", "epoch_us_iqr", "flops_per_epoch", "cpu_wait_share",
                "bytes_per_epoch", "ops_per_step"):
        _number_or_null(f"{name}'s {key}", point.get(key))
    if not isinstance(point.get("remeasured", False), bool):
        raise _fail(f"{name}'s remeasured", point["remeasured"], "true or false")
    if "message" in point:
        _text(f"{name}'s message", point["message"])
