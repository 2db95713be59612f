"""A stand-in for a host's worker, run through the real sshd: ``python fake_worker.py PRODUCT
PROTOCOL MODE``. It speaks the product's framing (a banner, MAGIC, a greeting of the version
asked for) and needs no torch; what it answers a run with is its ``MODE``:

- ``plain``: nothing (it only greets, and quits when asked or when stdin closes).
- ``deaf``: one chunk, then it ignores the stop.
- a hostile mode, one per way a far end can send what the client must not trust: a result of
  another shape, a result without its config, a chunk that is a number, JSON nested thousands
  of levels deep (in the greeting or in the run), an array without its bytes, a reply about
  another job, a result of another run's config, escape sequences in an error line.

Each frame is what a worker could put on the wire: correctly framed, wrongly filled.
"""

from __future__ import annotations

import json
import os
import struct
import sys
import time

import numpy as np

from iris_gui.engine.remote import framing

CPU = {"id": "cpu", "kind": "cpu", "name": "Fake CPU", "total_memory_bytes": None,
       "capability": None, "engines": {"eager": None}}
DEEP = 5000  # levels: past Python's recursion limit, were it decoded naively


def raw(out, body: bytes) -> None:
    """A frame around ``body`` as given: whatever JSON (or not) a far end may write."""
    out.write(struct.pack(">I", len(body)) + body + b"\n")


def deep(kind: str, job: int | None) -> bytes:
    head = f'["{kind}", ' + ("" if job is None else f"{job}, ")
    return head.encode() + b"[" * DEEP + b"]" * DEEP + b"]"


def chunk() -> dict:
    return {"first_epoch": 0, "losses": np.array([1.0, 0.5], np.float32), "stride": 1,
            "epochs_done": 2, "stamp": time.time()}


def record(config: dict, **changes: object) -> dict:
    """A completed run's record of two epochs, as the worker's RunResult.to_dict has it."""
    return {"status": "completed", "message": "", "epochs_completed": 2, "loss_stride": 1,
            "final_loss": 0.5, "train_accuracy": 0.5, "test_accuracy": 0.5,
            "config": config, "timings": {}, "env": {"device": "cpu"}, **changes}


def answer(out, mode: str, job: int, config: dict) -> None:
    """What ``mode`` sends for a run."""
    if mode == "plain":
        return
    framing.write_frame(out, "chunk", chunk(), job)
    losses = np.array([1.0, 0.5], np.float32)
    empty = [np.zeros(0, np.int64), np.zeros(0, np.float64)]
    if mode == "result-shape":
        framing.write_frame(out, "result", [record(config), losses], job)
    elif mode == "result-without-config":
        wrong = record(config)
        del wrong["config"]
        framing.write_frame(out, "result", [wrong, losses, empty], job)
    elif mode == "chunk-number":
        framing.write_frame(out, "chunk", 5, job)
    elif mode == "deep-run":
        raw(out, deep("chunk", job))
    elif mode == "array-without-b64":
        body = json.dumps(["chunk", job, {**chunk(), "losses": {"$nd": "<f4", "shape": [2]}}])
        raw(out, body.encode())
    elif mode == "other-job":
        framing.write_frame(out, "result", [record(config), losses, empty], job + 1)
    elif mode == "other-config":
        framing.write_frame(out, "result", [record({**config, "epochs": 3}), losses, empty], job)
    elif mode == "escapes":
        framing.write_frame(out, "error", "\x1b]0;owned\x07\x1b[2J\x1b[31mFAKE: CHECK PASSED", job)


def main() -> None:
    product, protocol, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    out.write(b"Welcome to lab\nlast login: never\n" + framing.MAGIC)
    if mode == "deep-greeting":
        raw(out, deep("hello", None))
    else:
        framing.write_frame(out, "hello", {
            "protocol": protocol, "product": product, "torch_version": "0.0-fake", "python": "3",
            "hostname": "fake", "pid": os.getpid(), "devices": [CPU]})
    stdin = os.fdopen(os.dup(0), "rb", buffering=0)
    while True:
        try:
            kind, job, payload = framing.read_frame(stdin)
        except framing.StreamClosed:
            os._exit(0)
        if kind == "quit":
            os._exit(0)
        if kind == "run":
            answer(out, mode, job, payload)


if __name__ == "__main__":
    main()
