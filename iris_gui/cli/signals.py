"""Ctrl+C (SIGINT), a polite kill (SIGTERM: ``timeout``, job schedulers) and a closed terminal
(SIGHUP, where the system has it; on Windows SIGBREAK, which a closed console window and
Ctrl+Break send) for the commands, all alike.

One handler for both, installed as the command line starts, before torch is imported, so
that no interrupt at any moment ends in a traceback. What a signal does depends on the moment:

- while a run trains (``stopping``): the first signal asks it to stop at the next chunk; the
  run is kept as ``stopped`` and saved, and the command exits 130 (SIGINT), 143 (SIGTERM),
  129 (SIGHUP: the terminal closed, so the run is kept rather than lost with it) or 149
  (SIGBREAK: Windows gives a closing console's process 5 s, time for a chunk and a save). A compile
  asks no stop (engine/train/stopping.py's ``Unpolled``): one that has not ended COMPILE_GRACE_S
  after the signal is left, the run kept as stopped before its first epoch (``keeping``), so
  that a scheduler's SIGKILL after its grace period finds nothing unsaved;
- while a result is being saved (``saving``): the signal waits until the save has ended;
- at any other moment (start-up, a second signal during a run): one line on stderr and the
  process ends at once with 128 + the signal's number. Nothing is half-written then: every
  save is one SQLite transaction, and saves are never interrupted.

The exit is ``os._exit``: raising from a handler can land anywhere (an import, a ``finally``,
interpreter shutdown), and some of those places print the exception instead of passing it on.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

_HANGUP = getattr(signal, "SIGHUP", None)  # none on Windows
_BREAK = getattr(signal, "SIGBREAK", None)  # Windows' only
_CLOSED = {signum: words for signum, words in ((_HANGUP, "SIGHUP (the terminal closed)"),
                                                (_BREAK, "SIGBREAK (the console closed)"))
           if signum is not None}
HANDLED = (signal.SIGINT, signal.SIGTERM, *_CLOSED)
NAMES = {signal.SIGINT: "Ctrl+C", signal.SIGTERM: "SIGTERM", **_CLOSED}


# What to send to abort a run that is stopping (a closed terminal's SIGHUP cannot be repeated
# by the user; SIGTERM can).
SENT_AGAIN = {signal.SIGTERM: "SIGTERM", **dict.fromkeys(_CLOSED, "SIGTERM")}
# How long a compile under way when a stop comes may go on before the run is kept without it:
# with the keeping, well inside the 5 s a user or a scheduler waits.
COMPILE_GRACE_S = 3.0
# What a stop keeps and what a second signal gives up, for a run (a sweep says its own).
RUN_WORDS = ("the run is kept as stopped", "a run in progress is not saved")


def _compiling() -> bool:
    """Whether the main thread is in a compile that asks no stop; False before the engine that
    compiles is loaded."""
    stopping = sys.modules.get("iris_gui.engine.train.stopping")
    return stopping is not None and stopping.Unpolled.under_way()


def exit_status(signum: int) -> int:
    """The shell's convention: 128 + the signal's number (130 for SIGINT, 143 for SIGTERM, 129
    for SIGHUP)."""
    return 128 + int(signum)


class SignalGuard:
    """The process's one handler for SIGINT, SIGTERM and SIGHUP (see the module's docstring)."""

    def __init__(self) -> None:
        self.first: int | None = None  # the first signal received, which names the exit status
        self._stop: threading.Event | None = None
        self._words = RUN_WORDS
        self._saving = 0
        self._pending: int | None = None
        self._installed: dict[int, object] = {}
        self._keep: Callable[[], str] | None = None

    # -- what the commands use -------------------------------------------------------------

    def status(self, default: int = 130) -> int:
        """The exit status of a command that stopped because of a signal."""
        return exit_status(self.first) if self.first is not None else default

    @contextmanager
    def stopping(self, event: threading.Event, kept: str = RUN_WORDS[0],
                 lost: str = RUN_WORDS[1]) -> Iterator[threading.Event]:
        """While inside, the first signal sets ``event`` (a cooperative stop) instead of
        ending the process; ``kept`` says what the stop keeps, ``lost`` what a second signal
        gives up."""
        previous = self._stop, self._words
        self._stop, self._words = event, (kept, lost)
        try:
            yield event
        finally:
            self._stop, self._words = previous

    def handles(self) -> bool:
        """Whether this guard is the process's handler now (the command line), rather than
        a program that imports the package (a notebook, a script using the API)."""
        return (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) == self._handle)

    @contextmanager
    def keeping(self, keep: Callable[[], str]) -> Iterator[None]:
        """While inside, ``keep()`` keeps the run under way as stopped, should a compile not
        end in time after a signal; it returns what to say of it."""
        previous, self._keep = self._keep, keep
        try:
            yield
        finally:
            self._keep = previous

    @contextmanager
    def saving(self) -> Iterator[None]:
        """While inside, a signal that would end the process waits until the block ends."""
        self._saving += 1
        try:
            yield
        finally:
            self._saving -= 1
            pending, self._pending = self._pending, None
            if pending is not None and not self._saving:
                self._exit(pending, "once the save had finished")

    # -- installation ----------------------------------------------------------------------

    def install(self) -> bool:
        """Handle the signals here; False (nothing done) outside the main thread."""
        if threading.current_thread() is not threading.main_thread():
            return False
        for signum in HANDLED:
            if signum not in self._installed:
                self._installed[signum] = signal.signal(signum, self._handle)
        return True

    @contextmanager
    def installed(self) -> Iterator[SignalGuard]:
        """Installed for the block, then the previous handlers back: for a caller that is
        not the program itself (a test calling ``main``)."""
        mine = [s for s in HANDLED if s not in self._installed]
        self.install()
        try:
            yield self
        finally:
            for signum in mine:
                previous = self._installed.pop(signum, None)
                if previous is not None and threading.current_thread() is threading.main_thread():
                    signal.signal(signum, previous)

    # -- the handler -------------------------------------------------------------------------

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.first is None:
            self.first = signum
        kept, lost = self._words
        if self._stop is not None and not self._stop.is_set():
            self._stop.set()
            again = "Ctrl+C" if signum == signal.SIGINT else SENT_AGAIN.get(signum, "a signal")
            compiling = _compiling()
            when = (f"when the compile ends, or in {COMPILE_GRACE_S:.0f} s" if compiling
                    else "at the next chunk")
            _write(f"iris-gui: {NAMES[signum]}: stopping {when}; {kept} ({again} again to "
                   "abort it)")
            if compiling:
                threading.Thread(target=self._after_the_compile, args=(signum,),
                                 name="compile-grace", daemon=True).start()
            return
        if self._saving:
            self._pending = signum
            return
        self._exit(signum, f"aborted; {lost}" if self._stop is not None else "")

    def _after_the_compile(self, signum: int) -> None:
        """Give the compile its grace; if it is still under way, keep the run as stopped and
        end the process (nothing else is unsaved: the runs before it are in the store)."""
        deadline = time.monotonic() + COMPILE_GRACE_S
        while _compiling() and time.monotonic() < deadline:
            time.sleep(0.02)
        keep = self._keep
        if not _compiling() or keep is None or self._saving:
            return  # it ended: the loop stops at its first chunk, as for any run
        try:
            said = keep()
        except Exception as error:  # noqa: BLE001 - the process ends either way; say why
            said = f"the run could not be kept ({error})"
        self._exit(signum, f"the compile did not end within {COMPILE_GRACE_S:.0f} s; {said}")

    def _exit(self, signum: int, what: str) -> None:
        _flush(sys.stdout)
        _write(f"iris-gui: {NAMES.get(signum, f'signal {signum}')}: "
               f"{what or 'interrupted'}")
        os._exit(exit_status(signum))


def _write(line: str) -> None:
    try:
        # A progress bar may hold the terminal's line: start on a fresh one.
        prefix = "\n" if sys.stderr.isatty() else ""
        sys.stderr.write(f"{prefix}{line}\n")
        sys.stderr.flush()
    except (OSError, ValueError, RuntimeError):  # closed, or a write this signal interrupted
        pass


def _flush(stream: object) -> None:
    try:
        stream.flush()  # type: ignore[attr-defined]
    except (OSError, ValueError, RuntimeError, AttributeError):
        pass


GUARD = SignalGuard()


def is_program_start() -> bool:
    """True when this process is the command line itself (``iris-gui``, ``python -m
    iris_gui``), not a worker process nor a program that imports the package."""
    import multiprocessing

    if multiprocessing.parent_process() is not None:
        return False
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and spec.name == "iris_gui.__main__":
        return True
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return script in ("iris-gui", "iris-gui.exe", "iris-gui-script.py")
