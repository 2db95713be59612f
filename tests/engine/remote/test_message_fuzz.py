"""Mutated frames through the whole way in (framing, wire, messages.checked): whatever a far
end sends, the client gets back either a valid message (the record its kind stands for, of the
job asked) or MessageError, never another exception and never a wait.

A seeded generator, so a failure names its case and repeats: valid frames of every kind a job
is answered with, then truncated, bit-flipped, re-kinded, re-numbered, with a value anywhere in
them replaced (wrong types, NaN and infinities, huge numbers, escape sequences, nesting
thousands deep), with arrays of other dtypes, shapes or bytes, and with lengths that lie.
"""

from __future__ import annotations

import io
import json
import math
import random
import struct
import time
from typing import Any

import numpy as np
import pytest

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.engine.remote import framing
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.workers.messages import ANSWERS, Asked, MessageError, checked

CASES = 1500
SEED = 20261206
CONFIG = RunConfig(epochs=10)
SPEC = SweepSpec(rows=(120,), hidden=(10,), devices=("cpu",), engines=("eager",),
                 threads=("1",))
RECORDS = {"chunk": Chunk, "result": RunResult, "breakdown": dict, "sweep-point": tuple,
           "sweep-result": SweepResult, "error": str, "failed": str}
ODD_VALUES: list[Any] = [None, True, False, -1, 0, 2**70, -(2**70), 1.5, math.nan, math.inf,
                         -math.inf, "", "x" * 5000, "\x1b]0;t\x07\x1b[2J", [], {}, [[[]]],
                         {"$nd": "<f2", "shape": [1], "b64": "AAA="}, "DEEP"]


def valid_frames() -> list[tuple[str, str, Any]]:
    """(job, kind, payload): a message of each kind as the worker sends it."""
    losses = np.linspace(1.0, 0.1, 10).astype(np.float32)
    result = RunResult(config=CONFIG, status=RunStatus.COMPLETED, epochs_completed=10,
                       losses=losses, final_loss=0.1, train_accuracy=0.9, test_accuracy=0.8,
                       confusion_matrix=[[2, 0], [1, 3]], timings=Timings(setup_seconds=0.1),
                       env=EnvRecord(device="cpu"), chunk_epochs=np.array([5, 5]),
                       chunk_seconds=np.array([0.01, 0.02]))
    point = SweepPoint(device="cpu", engine="eager", threads=1, rows=120, hidden=10,
                       status="completed", epoch_us=50.0, epochs=100, flops_per_epoch=1e5)
    sweep = SweepResult(SPEC, points=[point]).analyse()
    return [
        ("run", "chunk", Chunk(0, losses[:5], 1, 5, time.time())),
        ("run", "result", (result.to_dict(), result.losses,
                           (result.chunk_epochs, result.chunk_seconds))),
        ("run", "error", "the run's settings were refused: epochs is 0"),
        ("explain", "breakdown", Breakdown.from_dict({"config": CONFIG.to_dict()}).to_dict()),
        ("explain", "failed", "RuntimeError: boom"),
        ("sweep", "sweep-point", (point.__dict__, 1, 1)),
        ("sweep", "sweep-result", sweep.to_dict()),
    ]


def asked(what: str) -> Asked:
    return Asked(3, what, CONFIG if what != "sweep" else None, SPEC if what == "sweep" else None)


def replace_somewhere(value: Any, rng: random.Random, new: Any) -> Any:
    """``value`` with one item, at a random depth, replaced by ``new``."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(sorted(value))
        return {**value, key: replace_somewhere(value[key], rng, new)}
    if isinstance(value, list) and value and rng.random() < 0.8:
        index = rng.randrange(len(value))
        return [*value[:index], replace_somewhere(value[index], rng, new), *value[index + 1:]]
    return new


def mutated(frame: bytes, rng: random.Random) -> bytes:
    """One mutation of ``frame`` (a whole frame: length, body, newline)."""
    body = frame[4:-1]
    how = rng.randrange(7)
    if how == 0:  # truncated, its length told truly or not
        body = body[: rng.randrange(len(body))]
        return struct.pack(">I", len(body) + rng.choice((0, 0, 1, 7))) + body + b"\n"
    if how == 1:  # bits flipped
        data = bytearray(body)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        body = bytes(data)
    elif how in (2, 3, 4):  # a kind, a job or a value replaced
        message = json.loads(body)
        if how == 2:
            message[0] = rng.choice([*RECORDS, "hello", "devices", "Chunk", "", "x" * 40])
        elif how == 3:
            message[1] = rng.choice([0, 2, 4, -1, 2**40, "3", None, 3.0])
        else:
            message[2] = replace_somewhere(message[2], rng, rng.choice(ODD_VALUES))
        body = json.dumps(message).encode()
        body = body.replace(b'"DEEP"', b"[" * 3000 + b"]" * 3000)
    elif how == 5:  # an array's dtype, shape or bytes changed
        text = body.decode()
        swaps = [('"<f4"', '"<i8"'), ('"<f8"', '"<f2"'), ('"shape":[', '"shape":[2,'),
                 ('"b64":"', '"b64":"AAAA'), ('"b64"', '"b65"'), ('"<i8"', '"<f4"'),
                 ('"shape":[', '"shape":[0,')]
        old, new = rng.choice(swaps)
        body = text.replace(old, new, 1).encode()
    else:  # a length that lies, or one past the limit
        size = rng.choice((len(body) - 1, len(body) + 1, framing.MAX_FRAME + 1, 2**32 - 1))
        return struct.pack(">I", size) + body + b"\n"
    return struct.pack(">I", len(body)) + body + b"\n"


def hear(data: bytes) -> Any:
    """What the client makes of ``data``: the record, or the MessageError it raises."""
    kind, job, payload = framing.read_frame(io.BytesIO(data))
    what = next((w for w, kinds in ANSWERS.items() if kind in kinds), "run")
    if job != 3:
        raise MessageError(f"job {job}")
    return kind, checked(kind, payload, asked(what))


def test_every_valid_frame_is_heard_as_its_record() -> None:
    for what, kind, payload in valid_frames():
        got_kind, record = hear(framing.encode(kind, payload, 3))
        assert got_kind == kind and isinstance(record, RECORDS[kind]), (kind, type(record))
        assert what in ANSWERS and kind in ANSWERS[what]


def test_mutated_frames_are_heard_as_records_or_refused_in_one_line() -> None:
    rng = random.Random(SEED)
    frames = [framing.encode(kind, payload, 3) for _, kind, payload in valid_frames()]
    outcomes = {"heard": 0, "refused": 0}
    for case in range(CASES):
        data = mutated(rng.choice(frames), rng)
        try:
            kind, record = hear(data)
        except MessageError as error:
            line = str(error)
            assert line and "\n" not in line and len(line) < 600, (case, line)
            assert "\x1b" not in line and "\x07" not in line, (case, line)
            outcomes["refused"] += 1
            continue
        except Exception as error:  # noqa: BLE001 - the point: nothing else may escape
            pytest.fail(f"case {case}: {type(error).__name__}: {error} from {data[:120]!r}")
        assert isinstance(record, RECORDS[kind]), (case, kind, type(record))
        if isinstance(record, RunResult):
            assert record.config == CONFIG and 0 <= record.epochs_completed <= CONFIG.epochs
        outcomes["heard"] += 1
    assert outcomes["refused"] > CASES // 2 and outcomes["heard"] > 0, outcomes
