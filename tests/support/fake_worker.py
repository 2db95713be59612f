"""A stand-in for a host's worker, run through the real sshd: ``python fake_worker.py PRODUCT
PROTOCOL MODE``. It speaks the product's framing (a banner, MAGIC, a greeting of the version
asked for) and needs no torch; what it answers a run with is its ``MODE``:

- ``plain``: nothing (it only greets, and quits when asked or when stdin closes): a host that
  stays connected and silent.
- ``deaf``: one chunk, then it ignores the stop.
- a hostile mode, one per way a far end can send what the client must not trust: a result of
  another shape, a result without its config, a chunk that is a number, JSON nested thousands
  of levels deep (in the greeting or in the run), an array without its bytes, a reply about
  another job, a result of another run's config, escape sequences in an error line, a
  greeting framed as a job's message, a first message that is not a greeting.
- ``planted``: a host whose words try to be read as markup wherever they are shown: its
  greeting's host name, torch version, device name and engines' reasons, a completed run's
  message and environment, and the error line, the explain error and the last words on stderr
  that other runs end with, carry ``PLANTED``'s text (see ``planted_answer``).

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
from iris_gui.engine.spec.engines import ENGINES

CPU = {"id": "cpu", "kind": "cpu", "name": "Fake CPU", "total_memory_bytes": None,
       "capability": None, "engines": {"eager": None}}
DEEP = 5000  # levels: past Python's recursion limit, were it decoded naively


def plant(lead: str, what: str) -> str:
    """Text that leads with what a spreadsheet runs as a formula and carries HTML, Markdown, a
    table's pipe and an ANSI colour (its ESC is removed on arrival: "[31m" stays, as text)."""
    return f"{lead} <b>{what}</b> <img src=x> **bold** [link](http://x) | cell \x1b[31mred"


PLANTED = {
    "hostname": plant("+cmd", "host"), "torch": plant("@SUM(1)", "torch"),
    "name": plant("=1+1", "name"), "reason": plant("-2+3", "reason"),
    "message": plant("=HYPERLINK(1)", "message"), "cpu": plant("+cpu", "cpu"),
    "os": plant("@os", "os"), "error": plant("=error", "error"),
    "stderr": plant("-stderr", "stderr"),
}
PLANTED_DEVICE = {**CPU, "name": PLANTED["name"],
                  "engines": {name: None if name == "eager" else PLANTED["reason"]
                              for name in ENGINES}}
ERROR_EPOCHS, STDERR_EPOCHS = 3, 4  # the runs ``planted`` answers otherwise than with a result


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


def planted_answer(out, job: int, config: dict) -> None:
    """A run of ``ERROR_EPOCHS`` is answered with an error line; one of ``STDERR_EPOCHS`` ends
    the worker after its last words on stderr; any other completes, its record planted."""
    if config["epochs"] == ERROR_EPOCHS:
        framing.write_frame(out, "error", PLANTED["error"], job)
        return
    framing.write_frame(out, "chunk", chunk(), job)
    if config["epochs"] == STDERR_EPOCHS:
        sys.stderr.write(PLANTED["stderr"] + "\n")
        sys.stderr.flush()
        os._exit(3)
    env = {"device": "cpu", "device_name": PLANTED["name"], "cpu_model": PLANTED["cpu"],
           "os": PLANTED["os"], "torch_version": PLANTED["torch"]}
    framing.write_frame(out, "result", [record(config, message=PLANTED["message"], env=env),
                                        np.array([1.0, 0.5], np.float32),
                                        [np.zeros(0, np.int64), np.zeros(0, np.float64)]], job)


def answer(out, mode: str, job: int, config: dict) -> None:
    """What ``mode`` sends for a run."""
    if mode == "plain":
        return
    if mode == "planted":
        planted_answer(out, job, config)
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
    elif mode == "repeated-chunk":  # a far end that loops on one valid chunk, forever
        while True:
            framing.write_frame(out, "chunk", chunk(), job)
    elif mode == "other-config":
        framing.write_frame(out, "result", [record({**config, "epochs": 3}), losses, empty], job)
    elif mode == "escapes":
        framing.write_frame(out, "error", "\x1b]0;owned\x07\x1b[2J\x1b[31mFAKE: CHECK PASSED", job)


def main() -> None:
    product, protocol, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    out.write(b"Welcome to lab\nlast login: never\n" + framing.MAGIC)
    hello = {"protocol": protocol, "product": product, "torch_version": "0.0-fake",
             "python": "3", "hostname": "fake", "pid": os.getpid(), "devices": [CPU]}
    if mode == "deep-greeting":
        raw(out, deep("hello", None))
    elif mode == "greeting-with-job":  # framed as every later message, not as a greeting
        raw(out, json.dumps(["hello", 0, hello]).encode())
    elif mode == "greeting-as-chunk":
        framing.write_frame(out, "chunk", chunk(), 1)
    elif mode == "planted":
        framing.write_frame(out, "hello", {
            "protocol": protocol, "product": product, "torch_version": PLANTED["torch"],
            "python": "3", "hostname": PLANTED["hostname"], "pid": os.getpid(),
            "devices": [PLANTED_DEVICE]})
    else:
        framing.write_frame(out, "hello", hello)
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
        elif kind == "explain" and mode == "planted":
            framing.write_frame(out, "error", PLANTED["error"], job)


if __name__ == "__main__":
    main()
