"""The far end's side: ``iris-gui worker --stdio`` (a real process, as ssh starts it) answers
every message it cannot use with one ``error`` line about that message's job, and goes on
working: a malformed config, stop or frame never crashes it."""

from __future__ import annotations

import struct
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from iris_gui.engine.remote import framing
from iris_gui.engine.spec.config import RunConfig

ANSWER_S = 60  # torch's import and a warm-up, on a loaded machine


@pytest.fixture(scope="module")
def worker() -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([sys.executable, "-m", "iris_gui", "worker", "--stdio"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    try:
        assert process.stdout is not None
        framing.skip_to_magic(process.stdout)
        kind, _, _ = next_frame(process)
        assert kind == "hello"
        yield process
    finally:
        process.kill()
        process.wait(10)
        for stream in (process.stdin, process.stdout):
            assert stream is not None
            stream.close()


def next_frame(process: subprocess.Popen[bytes]) -> framing.Frame:
    """The worker's next frame, or a failure after ANSWER_S (never a wait without end)."""
    got: list[framing.Frame] = []
    reader = threading.Thread(target=lambda: got.append(framing.read_frame(process.stdout)),
                              daemon=True)
    reader.start()
    reader.join(ANSWER_S)
    assert got, f"no answer within {ANSWER_S} s (exit code {process.poll()})"
    return got[0]


def send(process: subprocess.Popen[bytes], data: bytes) -> None:
    assert process.stdin is not None
    process.stdin.write(data)
    process.stdin.flush()


def raw(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body + b"\n"


@pytest.mark.parametrize(("data", "job", "words"), [
    (raw(b"{not json"), 0, "a message is not JSON"),
    (raw(b'["run", 9, ' + b"[" * 3000 + b"]" * 3000 + b"]"), 0,
     "its 'run' message is nested 3,001 levels deep"),
    (framing.encode("bogus", None, 1), 1, "'bogus' is not a request (allowed: run, explain, "),
    (framing.encode("run", [1, 2], 2), 2, "a 'run' request carries a list of 2 for job 2"),
    (framing.encode("stop", None, 0), 0, "a stop names no job"),
    (framing.encode("stop", {"job": 3}, 3), 3, "a 'stop' request carries an object of 1 keys"),
    (framing.encode("explain", [{}, -1], 4), 4, "an 'explain' request is not [config, epochs]"),
    (framing.encode("run", {"epochs": "many"}, 5), 5, "the run's settings were refused"),
], ids=["not-json", "deep", "unknown-kind", "run-not-an-object", "stop-without-job",
        "stop-with-a-body", "explain-window", "run-config"])
def test_a_message_the_worker_cannot_use_is_one_line_back(
        worker: subprocess.Popen[bytes], data: bytes, job: int, words: str) -> None:
    send(worker, data)
    kind, answered, line = next_frame(worker)
    assert (kind, answered) == ("error", job)
    assert words in line and "\n" not in line, line
    assert worker.poll() is None, "the worker ended"


def test_after_every_refusal_the_worker_still_trains(worker: subprocess.Popen[bytes]) -> None:
    send(worker, framing.encode("run", RunConfig(epochs=5).to_dict(), 6))
    kinds = []
    while not kinds or kinds[-1] != "result":
        kind, job, _ = next_frame(worker)
        assert job == 6
        kinds.append(kind)
    assert set(kinds) == {"chunk", "result"}
    send(worker, framing.encode("quit"))
    assert worker.wait(ANSWER_S) == 0

