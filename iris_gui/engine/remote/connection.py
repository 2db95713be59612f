"""The connection under RemoteRunner: ssh to a host's worker, its greeting, and what ends it.

``start() -> devices`` connects (once, for every thread that asks) and waits for the host's
greeting; ``close()`` asks the worker to quit. Two threads per connection read ssh's stdout
(frames, into a queue) and stderr (its last lines, for the one-line reason when the connection
fails, and Slurm's lines: a job waiting in the queue, a job the cluster ended). A connection
that never started is given up with its queued Slurm job cancelled, as srun would wait on.

The frame reader checks every message as it arrives (messages.py: of the job that runs, of
the kind, shape and range that job allows), so a runner only ever takes records from the
queue. A message it cannot use, or any failure of the reader itself, ends ssh at once and
keeps the reason for the one line the waiting run ends with; the queue's last message is
always CLOSED, so no run waits on a reader that has died.
"""

from __future__ import annotations

import logging
import queue
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.records.typed import brief
from iris_gui.engine.remote import framing
from iris_gui.engine.remote.hosts import Host
from iris_gui.engine.remote.names import host_device
from iris_gui.engine.remote.protocol import ALIVE_EVERY_S, check_hello, devices_from
from iris_gui.engine.remote.slurm import (
    allocated_job,
    cancel_queued,
    ended_by,
    queued_job,
    starts_jobs,
)
from iris_gui.engine.remote.ssh import apart_from_the_terminal, explain_failure, worker_argv
from iris_gui.engine.remote.wire import host_text
from iris_gui.engine.workers.messages import Asked, MessageError, checked
from iris_gui.engine.workers.runner import (
    POLL_SECONDS,
    START_TIMEOUT_SECONDS,
    STOP_GRACE_SECONDS,
    WorkerCancelled,
    WorkerError,
)

log = logging.getLogger(__name__)

CLOSED = ("closed", None)  # the reader's last message: the channel ended
# What a host's stderr may cost: a line is kept up to this many bytes (ssh's and a traceback's
# lines are far shorter), and this many lines are logged per connection.
STDERR_LINE_BYTES = 4096
STDERR_LOGGED = 1000


class Connection:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.devices: list[DeviceInfo] = []
        self.torch_version = ""
        self.remote_pid = 0
        self.placement: dict[str, str] = {}  # the worker's Slurm job and GPUs (placement.py)
        self._process: subprocess.Popen[bytes] | None = None
        self._messages: queue.Queue = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=40)
        self._stderr_reader: threading.Thread | None = None
        self._write_lock = threading.Lock()
        self._start_lock = threading.Lock()
        self._stop = threading.Event()
        self._grace = STOP_GRACE_SECONDS
        self._job = 0
        self._closing = False  # close() was asked: a channel that ends is not a lost one
        self._asked: Asked | None = None  # the job whose answers are awaited
        self._broken: str | None = None  # what the far end sent that this end cannot use
        self._greeted = False
        self.queued: int | None = None  # the Slurm job srun says waits in the queue
        # Told each line worth showing while connecting ("lab: waiting in Slurm's queue").
        self.on_status: Callable[[str], None] | None = None

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout: float = START_TIMEOUT_SECONDS) -> list[DeviceInfo]:
        """Connect and wait for the host's greeting; WorkerError in one line if it fails. A
        second caller while a connection is being made (a run asked for while the window
        connects its hosts) waits for that one instead of making another."""
        with self._start_lock:
            return self._start(timeout)

    def _start(self, timeout: float) -> list[DeviceInfo]:
        if self.alive:
            return self.devices
        self._connect()
        deadline = time.monotonic() + timeout
        while True:
            try:
                kind, payload = self._messages.get(timeout=POLL_SECONDS)
                break
            except queue.Empty:
                if self._stop.is_set():
                    cancelled = self._give_up()
                    self._stop.clear()
                    raise WorkerCancelled(
                        f"the connection to {self.host.name} was stopped{cancelled}") from None
                if time.monotonic() > deadline:
                    queued = self.queued
                    cancelled = self._give_up()
                    if queued is not None:
                        raise WorkerError(f"{self.host.name}: still waiting in Slurm's queue "
                                          f"(job {queued}) after {timeout:.0f} s{cancelled}"
                                          ) from None
                    raise WorkerError(f"{self.host.name}: no answer from {self.host.destination}"
                                      f" within {timeout:.0f} s") from None
        if (kind, payload) == CLOSED:
            raise WorkerError(self._failure())
        try:
            hello = check_hello(self.host.name, kind, payload)
        except Exception:
            self._kill()
            raise
        self.remote_pid, self._greeted = hello.pid, True
        self.torch_version = hello.torch_version
        self.placement = hello.placement
        self.devices = [replace(d, id=host_device(self.host.name, d.id)) for d in hello.devices]
        threading.Thread(target=self._keep_alive, args=(self._process,), daemon=True,
                         name=f"iris-gui-alive-{self.host.name}").start()
        return self.devices

    def _keep_alive(self, process: subprocess.Popen[bytes] | None) -> None:
        """Say ``alive`` every ALIVE_EVERY_S for as long as this connection lasts: a worker
        that stops hearing it takes this end for gone and exits (stdio_worker.py)."""
        while process is not None and self._process is process and process.poll() is None:
            self._send("alive")
            time.sleep(ALIVE_EVERY_S)

    def _cancel_lost_job(self) -> None:
        """Cancel the Slurm job of a connection that ended without this end's quit (the link
        lost, srun killed): its worker ends by itself, but the job srun started would hold its
        allocation until its time limit. In a thread of its own, so that no close waits on a
        controller that does not answer; what was done goes to the log."""
        job, self._greeted = self.placement.get("SLURM_JOB_ID", ""), False
        if not job.isdigit() or not starts_jobs(self.host):
            return  # a job of the user's own (a node reached inside an allocation) is theirs

        def cancel() -> None:
            log.info("%s: its connection was lost%s", self.host.name,
                     cancel_queued(self.host, int(job)))

        threading.Thread(target=cancel, daemon=True,
                         name=f"iris-gui-scancel-{self.host.name}").start()

    def _give_up(self) -> str:
        """End a connection that never started, and a job of it still in Slurm's queue."""
        job, self.queued = self.queued, None
        self._kill()
        return "" if job is None else cancel_queued(self.host, job)

    def _connect(self) -> None:
        self._closing, self._asked, self._broken = False, None, None
        self._greeted = False  # the worker's greeting has come: ssh did connect
        self.queued = None
        self._messages = queue.Queue()
        self._stderr.clear()
        argv = worker_argv(self.host)
        log.info("connecting to %s: %s", self.host.name, argv)
        try:
            # Apart from the terminal: Ctrl+C there stops the run through the protocol (the run
            # is kept), rather than killing ssh under it.
            self._process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.PIPE, **apart_from_the_terminal())
        except OSError as error:
            raise WorkerError(f"{self.host.name}: ssh could not be started ({error}); install "
                              "the OpenSSH client") from None
        threading.Thread(target=self._read_frames, args=(self._process, self._messages),
                         daemon=True, name=f"iris-gui-ssh-{self.host.name}").start()
        self._stderr_reader = threading.Thread(
            target=self._read_stderr, args=(self._process,), daemon=True,
            name=f"iris-gui-ssh-err-{self.host.name}")
        self._stderr_reader.start()

    def _read_frames(self, process: subprocess.Popen[bytes], messages: queue.Queue) -> None:
        """Every frame, checked, onto ``messages``; CLOSED last, however the reading ends. A
        frame this end cannot use ends the connection at once, with the reason kept."""
        stream = process.stdout
        assert stream is not None, "ssh starts with stdout=PIPE"
        try:
            noise = framing.skip_to_magic(stream)
            if noise.strip():
                log.info("%s printed before the worker started: %r", self.host.name, noise[:200])
            while True:
                messages.put(self._heard(*framing.read_frame(stream)))
        except framing.StreamClosed:
            pass
        except MessageError as error:
            self._break(process, str(error))
        except (OSError, ValueError):
            pass  # the pipe was closed under the reader: the connection is being ended
        except Exception as error:  # whatever it is, the run waiting on this reader hears of it
            log.exception("%s: reading its messages failed", self.host.name)
            self._break(process, f"its messages could not be read ({type(error).__name__}: "
                                 f"{brief(str(error))})")
        finally:
            # Each reader closes the pipe it read once it has ended: no thread reads a closed
            # one; and whoever waits for a message hears that there will be none.
            stream.close()
            messages.put(CLOSED)

    def _heard(self, kind: str, job: int, payload: Any) -> tuple[str, Any]:
        """A message as its record (messages.py); the greeting is checked by ``_start``."""
        if kind in framing.GREETINGS:
            return kind, payload
        if kind == "devices" and job == 0:
            try:
                return kind, devices_from(payload)
            except (KeyError, TypeError, ValueError) as error:
                raise MessageError(f"its 'devices' message could not be read "
                                   f"({brief(str(error))})") from None
        asked = self._asked
        if kind == "error" and job == 0:
            raise MessageError(f"its worker could not read a message of this end's: "
                               f"{brief(str(payload))}")
        if asked is None or job != asked.job:
            waits = "no job" if asked is None else f"job {asked.job}"
            raise MessageError(f"a {kind!r} message about job {job} came while {waits} runs")
        return kind, checked(kind, payload, asked)

    def _break(self, process: subprocess.Popen[bytes], why: str) -> None:
        """End a connection whose far end sent what this end cannot use: ssh ends at once, and
        ``why`` is the reason the waiting run is given."""
        self._broken = why
        log.error("%s: %s; closing the connection", self.host.name, why)
        try:
            process.kill()
        except OSError:
            pass

    def _read_stderr(self, process: subprocess.Popen[bytes]) -> None:
        """The host's stderr in pieces of at most STDERR_LINE_BYTES: a longer line is kept cut
        and the rest of it dropped, and past STDERR_LOGGED lines none is logged, so a far end
        that writes without end costs a bounded memory and log."""
        assert process.stderr is not None, "ssh starts with stderr=PIPE"
        logged, within = 0, False  # within: the piece before did not end its line
        try:
            while raw := process.stderr.readline(STDERR_LINE_BYTES):
                ends = raw.endswith(b"\n")
                if within:
                    within = not ends
                    continue
                within = not ends
                line = host_text(raw).rstrip() + (" [cut]" if within else "")
                if line:
                    self._heard_from_slurm(line)
                    self._stderr.append(line)
                    logged += 1
                    if logged <= STDERR_LOGGED:
                        log.info("%s: %s", self.host.name,
                                 line if logged < STDERR_LOGGED else "more lines, not logged")
        except (OSError, ValueError):
            pass
        finally:
            process.stderr.close()

    def _heard_from_slurm(self, line: str) -> None:
        job = queued_job(line)
        if job is not None:
            self.queued = job
            if self.on_status is not None:
                self.on_status(f"{self.host.name}: waiting in Slurm's queue (job {job})")
        elif allocated_job(line) is not None:
            self.queued = None

    def _failure(self) -> str:
        """Why the connection ended, in one line (waits briefly for ssh's exit and last words)."""
        if self._broken is not None:
            self._kill()
            return f"{self.host.name}: {self._broken}; the connection was closed"
        code = None
        if self._process is not None:
            try:
                code = self._process.wait(3.0)
            except subprocess.TimeoutExpired:
                pass
        if self._stderr_reader is not None:
            self._stderr_reader.join(2.0)  # ssh's last words may still be in the pipe
        self._kill()
        return explain_failure(self.host, code, "\n".join(self._stderr), self._greeted)

    def _ended_by(self, wait: float = 2.0) -> str:
        """Why a run stopped that nobody here stopped: the host ended its worker (SIGTERM),
        named as Slurm names it when its line comes through stderr (waited for briefly, as
        it may trail the result)."""
        deadline = time.monotonic() + wait
        while (reason := ended_by(list(self._stderr))) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        return reason or f"{self.host.name} ended the worker (SIGTERM)"

    def _send(self, kind: str, payload: Any = None, job: int = 0) -> None:
        data = framing.encode(kind, payload, job)
        with self._write_lock:
            if self._process is None or self._process.stdin is None:
                return
            try:
                self._process.stdin.write(data)
                self._process.stdin.flush()
            except (OSError, ValueError):
                pass  # the reader sees the channel close and says why

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        assert process.stdin is not None, "ssh starts with stdin=PIPE"
        for stream in (process.stdin,):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        if process.poll() is None:
            process.kill()
        try:
            process.wait(2.0)
        except subprocess.TimeoutExpired:
            pass

    def close(self, timeout: float = 0.5) -> None:
        """Ask the worker to quit and close the channel; ends ssh if it lingers. A run in
        progress on another thread ends as stopped; a job still in Slurm's queue is cancelled
        (srun would wait on after ssh ends, and start it later)."""
        self._closing = True
        if self.queued is not None:
            self._give_up()
            return
        if not self.alive and self._greeted:
            self._cancel_lost_job()
        if self.alive:
            self._send("quit")
            try:
                assert self._process is not None and self._process.stdin is not None
                self._process.stdin.close()
                self._process.wait(timeout)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self._kill()
