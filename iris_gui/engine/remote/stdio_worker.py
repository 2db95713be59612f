"""``iris-gui worker --stdio``: the worker process's jobs, on a channel that is stdin and stdout.

Run by ssh on the host that has the device. It writes ``MAGIC`` and a ``hello`` (protocol,
product version, torch, devices) and then answers jobs as the local worker process does (the
same functions: worker_process.py). Three things differ from a pipe between two processes:

- stdout carries frames only: the real descriptor is kept for them and fd 1 is pointed at
  stderr, so a library that prints cannot corrupt the stream.
- A stop is a message, not a shared event: a reader thread takes every frame off stdin, sets
  the stop for the job it names and queues the rest for the main thread. A message it cannot
  use (an unknown kind, a body of the wrong type) is answered with one ``error`` line.
- SIGTERM (a scheduler's time limit or ``scancel``, which SIGKILL follows seconds later)
  stops the job at its next chunk, sends what it has, and ends the process; with no job
  running it ends at once. Slurm sends it more than once (SIGTERM, SIGCONT, SIGTERM at a
  time limit): a later one changes nothing while the answer is on its way.
- When the channel closes (the window quit, the link died, ssh was killed), stdin ends and the
  process exits at once, in the middle of a job if need be: nothing is left running on a host
  that nobody is listening to. A channel can also go quiet without closing (Slurm's step
  daemon holds the job's stdin open after srun was killed while its controller was down): the
  client says ``alive`` every protocol.ALIVE_EVERY_S, and a worker that hears nothing
  for protocol.CLIENT_SILENCE_S exits all the same.

Logs go to stderr, which ssh carries back to the window's log: nothing is written on the host.
"""

from __future__ import annotations

import logging
import os
import queue
import signal
import sys
import threading
import time
from typing import Any, BinaryIO

from iris_gui.engine.records.typed import seen
from iris_gui.engine.remote import framing, protocol
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.train.faults import fault_from_env
from iris_gui.engine.workers.messages import MessageError

log = logging.getLogger(__name__)


class FrameChannel:
    """What worker_process's jobs call ``conn``: ``send`` a message, from any thread, about
    the job ``job`` (0 between jobs) unless another is named."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.job = 0

    def send(self, message: tuple[str, Any], job: int | None = None) -> None:
        kind, payload = message
        data = framing.encode(kind, payload, self.job if job is None else job)
        with self._lock:
            try:
                self._stream.write(data)
                self._stream.flush()
            except (BrokenPipeError, OSError):
                os._exit(0)  # nobody is reading: the channel is gone


class JobStop:
    """A stop for one job by its number: a stop may arrive just before its job does.

    ``terminate`` is called from a signal handler, which runs in the main thread between two
    of its bytecodes, perhaps while that thread holds the lock in ``is_set``: it takes no lock
    and only sets flags that ``is_set`` reads.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopped: set[int] = set()
        self.current: int | None = None
        self.busy = False  # a job runs, or its answer is still being sent
        self.terminated = False  # SIGTERM came: end once the job has answered

    def request(self, job: int) -> None:
        with self._lock:
            self._stopped.add(job)

    def terminate(self) -> bool:
        """The host ends this worker: stop whatever runs; whether the process may end now
        (no job is running and no answer is being sent)."""
        self.terminated = True
        return not self.busy

    def is_set(self) -> bool:
        if self.terminated:
            return True
        with self._lock:
            return self.current in self._stopped

    def finish(self, job: int) -> None:
        with self._lock:
            self._stopped = {j for j in self._stopped if j > job}
            self.current = None


def _read_stdin(stream: BinaryIO, jobs: queue.Queue, stop: JobStop,
                channel: FrameChannel, heard: list[float]) -> None:
    """Every message from the client, checked: a stop sets its job's flag, a job is queued for
    the main thread, and a message the worker cannot use is answered with one line (the
    job's, or job 0's where its number is not known) and the worker goes on. ``heard[0]``:
    when the last one came."""
    while True:
        try:
            kind, job, payload = framing.read_frame(stream)
            heard[0] = time.monotonic()
            refused = request_fault(kind, job, payload)
        except framing.StreamClosed:
            os._exit(0)  # the channel closed: end now, whatever is running
        except framing.FramingError as error:
            log.error("worker: %s; exiting", error)
            os._exit(2)  # the stream is corrupt: no later frame can be found in it
        except MessageError as error:
            kind, job, refused = "?", 0, str(error)
        if refused:
            log.error("worker: %s", refused)
            channel.send(("error", f"the worker refused a message: {refused}"), job)
        elif kind == "stop":
            stop.request(job)
        elif kind != "alive":
            jobs.put((kind, job, payload))


def _end_when_unheard(heard: list[float]) -> None:
    """Exit once the client has said nothing for CLIENT_SILENCE_S (IRIS_GUI_FAULT's
    client-silence:S, for the tests, S): it is gone, whether or not the channel closed."""
    try:
        fault = fault_from_env()
    except ConfigError:
        fault = None  # a malformed one: each job refuses it in its own line
    limit = fault.epoch if fault is not None and fault.kind == "client-silence" else \
        protocol.CLIENT_SILENCE_S
    while True:
        time.sleep(min(1.0, limit / 4))
        silent = time.monotonic() - heard[0]
        if silent > limit:
            log.error("worker: nothing from the client for %.0f s; it is gone, exiting", silent)
            os._exit(0)


# What the client may send, and its payload's type: a job's body, or nothing.
REQUESTS: dict[str, type | None] = {"run": dict, "explain": list, "sweep": dict, "stop": None,
                                    "devices": None, "quit": None, "alive": None}


def request_fault(kind: str, job: int, payload: Any) -> str:
    """Why a client's message cannot be used, in a few words; "" when it can."""
    if kind not in REQUESTS:
        return f"{kind!r} is not a request (allowed: {', '.join(REQUESTS)})"
    body = REQUESTS[kind]
    if body is None:
        if payload is not None:
            return f"a {kind!r} request carries {seen(payload)}, where it carries nothing"
        return "" if kind != "stop" or job > 0 else "a stop names no job"
    if not isinstance(payload, body) or job <= 0:
        return f"a {kind!r} request carries {seen(payload)} for job {job}"
    if kind == "explain" and not (isinstance(payload, list) and len(payload) == 2
                                  and isinstance(payload[0], dict)
                                  and isinstance(payload[1], int) and payload[1] > 0):
        return "an 'explain' request is not [config, epochs]"
    return ""


def end_on_sigterm(stop: JobStop) -> None:
    """SIGTERM stops the running job (its answer still goes out), or ends an idle worker."""

    def handler(signum: int, _frame: object) -> None:
        if stop.terminate():
            os._exit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


def serve(stdin: BinaryIO, stdout: BinaryIO) -> None:
    channel = FrameChannel(stdout)
    stdout.write(framing.MAGIC)
    stdout.flush()
    try:
        hello = protocol.worker_hello()
    except ImportError as error:
        reason = (f"{error.name or 'a module'} cannot be imported by {sys.executable} on this "
                  f"host ({error}); install it there or give the host the Python that has torch")
        channel.send(("refused", reason))
        return
    channel.send(("hello", hello))
    jobs: queue.Queue = queue.Queue()
    stop = JobStop()
    if threading.current_thread() is threading.main_thread():
        end_on_sigterm(stop)
    heard = [time.monotonic()]
    threading.Thread(target=_read_stdin, args=(stdin, jobs, stop, channel, heard), daemon=True,
                     name="iris-gui-stdin").start()
    threading.Thread(target=_end_when_unheard, args=(heard,), daemon=True,
                     name="iris-gui-client-watch").start()
    from iris_gui.engine.train.devices import describe_devices, discover_devices
    from iris_gui.engine.workers.worker_process import explain_job, sweep_job, train_job

    while True:
        kind, job, body = jobs.get()
        if kind == "quit":
            return
        if kind == "devices":
            discover_devices.cache_clear()
            channel.send(("devices", [d.to_dict() for d in describe_devices()]), 0)
            continue
        stop.current, stop.busy, channel.job = job, True, job
        try:
            if kind == "explain":
                answer = explain_job(*body)
            elif kind == "sweep":
                answer = sweep_job(body, channel, stop)
            elif kind == "run":
                answer = train_job(body, channel, stop)
            else:
                answer = ("error", f"the worker does not know the job {kind!r}")
        finally:
            stop.finish(job)
        channel.send(answer)
        stop.busy, channel.job = False, 0
        if stop.terminated:
            return


def main() -> int:
    """The command's body: frames on the real stdout, everything else on stderr."""
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")  # as in worker_process: no profiler chatter
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="iris-gui worker: %(levelname)s %(message)s")
    frames_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    frames_in = os.fdopen(os.dup(0), "rb", buffering=0)
    serve(frames_in, frames_out)
    sys.stderr.flush()
    # As the local worker does on quit: torch's teardown takes a second nobody waits for.
    os._exit(0)
