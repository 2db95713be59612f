"""Helpers for test_kill9.py: the processes it kills, and the reading of what they said.

Run as a script, this module is the process under test, with a few hooks that change nothing
the product does but say (on stderr, one ``@@k9 ...`` line each, flushed) when things happen,
so that the test can aim its SIGKILL without fixed sleeps:

- ``python tests/support/kill.py cli ARGS...``: ``iris-gui ARGS...`` (``python -m iris_gui``);
- ``python tests/support/kill.py window RUNS EPOCHS``: the main window (Qt offscreen) on the data
  directory of IRIS_GUI_DATA_DIR, which trains RUNS short runs in its worker process, each
  saved by the window's own save path; it prints ``saved <id>`` on stdout each time the
  window's save returns an id (the window then shows that run as saved).

Events: ``@@k9 ready`` (the window's worker is up), ``@@k9 training`` (a chunk reached the
observer), ``@@k9 saving`` (a save began), ``@@k9 committed <id>`` (a save returned its id).

With K9_KILL_AT_STATEMENT=k, the process SIGKILLs itself at the k-th step of its saves,
counted over all of them, where each SQL statement run inside a save (BEGIN, the inserts,
COMMIT) is a step, just before it runs, and so is the return of each save, just after the
id is known and before anything has printed it. That puts the kill inside the save's
transaction, where a timer from outside would seldom land. A k beyond the steps the process
takes leaves it to end normally.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve()
MARK = "@@k9 "


def event(text: str) -> None:
    sys.stderr.write(f"{MARK}{text}\n")
    sys.stderr.flush()


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


class SaveHook:
    """Patches ``RunStore`` to report each save and, if asked, to kill the process at a chosen
    step inside one (the connection's SQL trace: each statement, just before it runs)."""

    def __init__(self) -> None:
        raw = os.environ.get("K9_KILL_AT_STATEMENT")
        self.kill_at = int(raw) if raw else None
        self.statements = 0
        self.saving = False

    def _step(self, *_sql: str) -> None:
        self.statements += 1
        if self.kill_at is not None and self.statements >= self.kill_at:
            _die()

    def install(self) -> None:
        from iris_gui.store.runs import RunStore

        save, writer = RunStore.save, RunStore._writer
        hook = self

        def hooked_writer(store):
            conn = writer(store)
            if hook.saving and hook.kill_at is not None:
                conn.set_trace_callback(hook._step)
            return conn

        def hooked_save(store, *args, **kwargs):
            event("saving")
            hook.saving = True
            try:
                run_id = save(store, *args, **kwargs)
            finally:
                hook.saving = False
                if store._conn is not None:
                    store._conn.set_trace_callback(None)
            event(f"committed {run_id}")
            hook._step()  # the save has returned its id; nothing has printed it yet
            return run_id

        RunStore._writer = hooked_writer
        RunStore.save = hooked_save


def _cli(argv: list[str]) -> None:
    import runpy

    from iris_gui.engine.train import trainer

    SaveHook().install()
    trained = trainer.train

    def train(config, observer=None, *args, **kwargs):
        seen = []

        def observed(chunk):
            if not seen:
                seen.append(True)
                event("training")
            if observer is not None:
                observer(chunk)

        return trained(config, observed, *args, **kwargs)

    trainer.train = train
    sys.argv = ["iris-gui", *argv]
    runpy.run_module("iris_gui", run_name="__main__", alter_sys=True)


def _window(runs: int, epochs: int) -> int:
    from iris_gui.figures.offscreen import use_offscreen

    use_offscreen(force=True)
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from iris_gui.ui.app import create_window
    from iris_gui.ui.window.settings import AppSettings

    app = QApplication.instance() or QApplication([sys.argv[0]])
    scratch = Path(os.environ["IRIS_GUI_DATA_DIR"]).parent
    settings = AppSettings(QSettings(str(scratch / f"settings-{os.getpid()}.ini"),
                                     QSettings.Format.IniFormat))
    window = create_window(settings)
    if window is None:
        print("no window", file=sys.stderr)
        return 1
    SaveHook().install()
    saving = window.store.save

    def save(result):
        run_id = saving(result)
        if run_id is not None:
            print(f"saved {run_id}", flush=True)
        return run_id

    window.store.save = save  # what run_presenter._on_finished calls
    window.show()
    window.controller.start()
    finished = []

    def on_finished(_token, _result):
        finished.append(True)
        if len(finished) >= runs:
            # Let the presenter's own slot (connected first) finish its save, then leave.
            QTimer.singleShot(0, app.quit)

    state = {"started": False}

    def poll():
        if not state["started"] and window.controls.train_button.isEnabled():
            state["started"] = True
            event("ready")
            base = window.controls.config().replace(epochs=epochs, device="cpu")
            window.controller.train([base] * runs, "process")

    window.controller.chunk_ready.connect(lambda *_: (event("training") if not finished else None))
    window.controller.run_finished.connect(on_finished)
    timer = QTimer()
    timer.timeout.connect(poll)
    timer.start(20)
    app.exec()
    window.close()
    return 0


# ---- the test's side -------------------------------------------------------------------------

@dataclass
class Watched:
    """A process under test, its stdout and stderr read line by line as they come."""

    proc: subprocess.Popen
    started: float = field(default_factory=time.monotonic)
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    events: queue.Queue = field(default_factory=queue.Queue)
    _threads: list[threading.Thread] = field(default_factory=list)

    def __post_init__(self) -> None:
        for stream, into in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            thread = threading.Thread(target=self._read, args=(stream, into), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _read(self, stream, into: list[str]) -> None:
        try:
            for line in stream:
                into.append(line)
                if line.startswith(MARK):
                    self.events.put(line[len(MARK):].strip())
        finally:
            stream.close()  # the pipe is this reader's to close (a warning is a failure)
        self.events.put(None)  # this stream ended

    def wait_event(self, name: str, deadline: float) -> bool:
        """True when the event came; False when the process ended or the deadline passed."""
        ended = 0
        while time.monotonic() < deadline:
            try:
                got = self.events.get(timeout=0.05)
            except queue.Empty:
                continue
            if got is None:
                ended += 1
                if ended == 2:
                    return False
            elif got == name or got.startswith(name + " "):
                return True
        return False

    def kill(self) -> None:
        try:
            self.proc.send_signal(signal.SIGKILL)
        except ProcessLookupError:
            pass

    def finish(self, timeout: float = 120) -> int:
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            self.proc.wait()
        for thread in self._threads:
            thread.join(timeout=10)
        return self.proc.returncode

    @property
    def stdout(self) -> str:
        return "".join(self.out)

    @property
    def stderr(self) -> str:
        return "".join(self.err)

    def committed(self) -> list[int]:
        """The ids the product's save returned (committed), by the hook's events."""
        return [int(m[1]) for line in self.err
                if (m := re.match(rf"{MARK}committed (\d+)$", line.strip()))]


def spawn(mode: str, args: list[str], env: dict[str, str]) -> Watched:
    proc = subprocess.Popen([sys.executable, str(HERE), mode, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    return Watched(proc)


def children_of(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


if __name__ == "__main__":
    if sys.argv[1] == "cli":
        _cli(sys.argv[2:])
    elif sys.argv[1] == "window":
        sys.exit(_window(int(sys.argv[2]), int(sys.argv[3])))
    else:
        sys.exit(f"unknown mode {sys.argv[1]!r}")
