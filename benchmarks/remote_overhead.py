"""Does training through SSH cost the measurement anything, and how late does its curve reach the plot?

The same run (the note's config: iris, eager, loss recorded every epoch, 1 intra-op thread,
20,000 epochs) is trained on the CPU two ways, alternating (remote first on odd replicates, local
first on even ones), with one warm connection and one warm worker process kept across replicates:

- remote: ``RemoteRunner`` through ``ssh`` to a real ``sshd`` on 127.0.0.1 that this script
  starts itself (tests/support/sshd.py's ``LoopbackSshd``: temporary keys, an ``ssh -F`` config,
  alias ``iris-test``; the host's command is this Python's ``-m iris_gui``), or, with
  ``--host NAME``, a saved host (its device ``NAME:cpu``, or ``--device``);
- local: ``ProcessRunner``, the window's warm worker process, over a pipe.

Both sides feed the same live plot the way the window does: the runner runs in a QThread whose
object emits ``chunk_ready(token, chunk)`` from the runner's observer (as ui/jobs/worker.py's
TrainingWorker does), a queued signal brings each chunk to the GUI thread, where
``LossPlotPanel.append_chunk`` buffers it and the panel's own ~30 Hz single-shot timer redraws
(``flush``: the curve's ``setData``), after which Qt repaints the plot's view. The panel is
shown offscreen (QT_QPA_PLATFORM=offscreen), 1000 x 600 px.

Figure 1, steady state: each run's ``timings.epoch_us`` (the median of its synchronised chunks,
taken by the engine where the run trains, the host for the remote side, so the link is never
inside it), remote / local per replicate and of the medians. Target: <= 1.02. Each run's
``timings.cpu_wait_share`` is printed with it: the share of the trainer's CPU work that stood in
line for a core behind other work (engine/timing/contention.py). From 10% a run is flagged ``busy``:
its figure is the machine's load as much as the work, and a ratio built on it is not a
measurement of the link. On a 2-core machine the remote side's ssh client, sshd and the worker
(plus this process, which decodes the frames and paints) share the cores, so some waiting there
is the cost of the setup itself; the ratio over the pairs where neither run was busy is printed
apart. Where the kernel's autogroup is on (Linux's default on desktops), the CPU is shared
between sessions before processes: the remote worker has a session of its own (sshd's), the
local one shares this script's, beside the process that decodes and paints; on a busy machine
that alone makes the local side slower. The line ``scheduling:`` says which groups the two
workers are in; ``--local-own-session`` starts the local worker under ``setsid`` so both sides
are scheduled alike, which isolates the link's own cost.

Figure 2, latency of the live curve, per chunk, in ms (all chunks of all replicates pooled):
``link`` = ``time.time()`` when the runner's observer receives the chunk - ``chunk.stamp``
(``time.time()`` where it was emitted: the host, for the remote side; the same clock on
loopback, NOT on a real remote host, whose clock offset is then inside the figure);
``gui`` = when the queued signal runs in the GUI thread; ``flush`` = the end of the panel's next
``flush`` (the chunk is in the curve); ``plot`` = the end of the next Paint of the plot's view
after that flush (stamped by a zero-delay timer posted from the Paint event, so it fires once
the paint is done): the chunk is on screen. The redraw timer alone adds 0-33 ms by design.
Target: median ``plot`` <= 100 ms for the remote side over loopback; the local worker's path
is printed as the baseline.

Prints a table per run, the medians and a final line with both targets and PASS or MISS.

    python benchmarks/remote_overhead.py [--epochs 20000] [--replicates 5] [--host NAME]
                                         [--device cpu] [--warm-epochs 500]
                                         [--local-own-session]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path
from typing import Any

from _gui_support import (
    machine_facts,
    prepare_environment,
    quiet_offscreen_warnings,
    remove,
)
from _remote_report import (
    ChunkTimes,
    Run,
    report,
    row,
)

START_TIMEOUT_S = 180.0
SETTLE_MS = 150  # after a run's result: let its last flush and paint happen before the next run
PANEL_SIZE = (1000, 600)
SSHD_MODULE = Path(__file__).resolve().parent.parent / "tests" / "support" / "sshd.py"


def load_sshd_module() -> Any:
    """tests/support/sshd.py, imported by path (tests is not a package this script can import)."""
    spec = importlib.util.spec_from_file_location("iris_test_sshd", SSHD_MODULE)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {SSHD_MODULE}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def autogroup(pid: int) -> str:
    """The CFS autogroup (one per session) ``pid`` is scheduled in, or "" where not known."""
    try:
        return Path(f"/proc/{pid}/autogroup").read_text().split()[0]
    except (OSError, IndexError):
        return ""


def scheduling_note(local_pid: int, remote_pid: int | None) -> str:
    """With autogroup on, the kernel shares the CPU between sessions before processes: the
    remote worker (its own ssh session) and the local one (this script's session, beside the
    process that paints) then get different shares of a busy machine."""
    try:
        enabled = Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return ""
    if not enabled:
        return "scheduling: kernel autogroup off (one CPU share per process)"
    groups = [f"this process {autogroup(os.getpid()) or '?'}",
              f"local worker {autogroup(local_pid) or '?'}"]
    if remote_pid is not None:
        groups.append(f"remote worker {autogroup(remote_pid) or '?'}")
    return ("scheduling: kernel autogroup on (the CPU is shared between sessions first): "
            + ", ".join(groups) + "; on a busy machine a worker alone in its session gets more")


def own_session_workers(tmp: Path) -> None:
    """Spawned processes (the local worker) start through ``setsid``: a session, and so an
    autogroup, of their own. ``setsid`` execs in place (the child is no group leader), so the
    pid and the pipes multiprocessing hands over stay as they were."""
    import multiprocessing
    import shutil

    setsid = shutil.which("setsid")
    if setsid is None:
        raise SystemExit("--local-own-session needs setsid (util-linux)")
    wrapper = tmp / "python-own-session"
    wrapper.write_text(f'#!/bin/sh\nexec {setsid} "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    multiprocessing.set_executable(str(wrapper))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20_000)
    parser.add_argument("--replicates", type=int, default=5)
    parser.add_argument("--host", default="", help="a saved host (iris-gui hosts add) instead "
                        "of a loopback sshd started here")
    parser.add_argument("--device", default="cpu", help="the device on both sides (the "
                        "remote one is HOST:DEVICE)")
    parser.add_argument("--warm-epochs", type=int, default=500,
                        help="an untimed first run on each side (one-time costs)")
    parser.add_argument("--local-own-session", action="store_true",
                        help="start the local worker in a session of its own (setsid), as sshd "
                        "starts the remote one: with the kernel's autogroup on, this separates "
                        "the CPU share a session gets on a busy machine from the link's cost")
    args = parser.parse_args()
    if args.replicates < 1:
        parser.error("--replicates must be at least 1")
    tmp = prepare_environment("iris-gui-remote-overhead-")
    sshd = None
    try:
        if args.local_own_session:
            own_session_workers(tmp)
        if args.host:
            from iris_gui.engine.remote.hosts import HostsError, find_host

            try:
                host = find_host(args.host)
            except HostsError as error:
                parser.error(str(error))
            where = f"saved host {host.describe()} (clocks may differ: latencies include it)"
        else:
            module = load_sshd_module()
            reason = module.skip_reason()
            if reason is not None:
                raise SystemExit(f"cannot start a loopback sshd: {reason}; "
                                 "give a saved host with --host NAME")
            sshd = module.LoopbackSshd().start()
            os.environ["IRIS_GUI_SSH_CONFIG"] = str(sshd.config_path)
            from iris_gui.engine.remote.hosts import Host

            host = Host("lab", "iris-test", command=f"{sys.executable} -m iris_gui")
            where = f"loopback sshd on 127.0.0.1:{sshd.port} (alias iris-test, same clock)"
        measure(args, host, where)
    finally:
        if sshd is not None:
            sshd.stop()
        remove(tmp)


def measure(args: argparse.Namespace, host: Any, where: str) -> None:
    from PySide6.QtCore import QEvent, QEventLoop, QObject, QThread, QTimer, Signal, Slot
    from PySide6.QtWidgets import QApplication

    from iris_gui.engine.remote.runner import RemoteRunner
    from iris_gui.engine.spec.config import RunConfig
    from iris_gui.engine.timing.contention import is_busy
    from iris_gui.engine.timing.stats import summarize
    from iris_gui.engine.workers.runner import ProcessRunner
    from iris_gui.ui.panels.loss_plot.panel import LossPlotPanel

    quiet_offscreen_warnings()
    app = QApplication.instance() or QApplication([sys.argv[0]])

    class Relay(QObject):
        """TrainingWorker's run slot, with the observer's arrival time beside each chunk."""

        chunk_ready = Signal(int, object)  # token, (Chunk, time.time() in the observer)
        run_finished = Signal(int, object)  # token, RunResult or the error's text

        def __init__(self, runners: dict[str, Any]) -> None:
            super().__init__()
            self.runners = runners

        @Slot(int, object, str)
        def run(self, token: int, config: Any, side: str) -> None:
            try:
                result = self.runners[side].run(
                    config, lambda chunk: self.chunk_ready.emit(token, (chunk, time.time())))
            except Exception as error:  # noqa: BLE001 - reported in the table, never a hang
                result = f"{type(error).__name__}: {error}"
            self.run_finished.emit(token, result)

    class Probe(QObject):
        """Lives in the GUI thread: takes chunks to the panel and stamps flush and paint."""

        def __init__(self) -> None:
            super().__init__()
            self.run: Run | None = None
            self.token = 0
            self.unflushed: list[ChunkTimes] = []
            self.unpainted: list[ChunkTimes] = []
            self.loop = QEventLoop()
            self.timed_out = False
            self.paints = 0

        @Slot(int, object)
        def on_chunk(self, token: int, item: Any) -> None:
            chunk, observed = item
            times = ChunkTimes(stamp=chunk.stamp, observer=observed, gui=time.time())
            if self.run is not None and token == self.token:
                self.run.chunks.append(times)
                self.unflushed.append(times)
            panel.append_chunk(token, chunk)

        @Slot(int, object)
        def on_finished(self, token: int, result: Any) -> None:
            if self.run is not None and token == self.token:
                if isinstance(result, str):
                    self.run.error = result
                else:
                    self.run.result = result
            panel.end_live(token)  # as the window does: the last points are drawn at once
            QTimer.singleShot(SETTLE_MS, self.loop.quit)

        def flushed(self) -> None:
            now = time.time()
            for times in self.unflushed:
                times.flush = now
            self.unpainted.extend(self.unflushed)
            self.unflushed = []

        def eventFilter(self, watched: Any, event: Any) -> bool:
            if event.type() == QEvent.Type.Paint:
                self.paints += 1
                if self.unpainted:
                    done, self.unpainted = self.unpainted, []
                    QTimer.singleShot(0, lambda: self._painted(done))
            return False

        @staticmethod
        def _painted(done: list[ChunkTimes]) -> None:
            now = time.time()
            for times in done:
                times.painted = now

        def timeout(self) -> None:
            self.timed_out = True
            self.loop.quit()

    class TimedPanel(LossPlotPanel):
        def flush(self) -> None:  # the panel's timer and end_live both call this
            super().flush()
            probe.flushed()

    probe = Probe()
    panel = TimedPanel()
    panel.resize(*PANEL_SIZE)
    panel.show()
    panel.plot_item.scene().views()[0].viewport().installEventFilter(probe)
    app.processEvents()

    remote_device = f"{host.name}:{args.device}"
    remote, local = RemoteRunner(host), ProcessRunner()
    thread: Any = None
    print(machine_facts())
    own = " in a session of its own (--local-own-session)" if args.local_own_session else ""
    print(f"remote: {where}; local: the warm worker process (ProcessRunner){own}")
    try:
        started = time.perf_counter()
        remote_devices = remote.start(START_TIMEOUT_S)
        remote_start = time.perf_counter() - started
        started = time.perf_counter()
        local.start(START_TIMEOUT_S)
        local_start = time.perf_counter() - started
        if not any(d.id == remote_device for d in remote_devices):
            raise SystemExit(f"{host.name} has no device {remote_device}; it has "
                             f"{', '.join(d.id for d in remote_devices)}")
        print(f"connection and remote worker ready in {remote_start:.1f} s (pid "
              f"{remote.remote_pid} there, torch {remote.torch_version}); local worker in "
              f"{local_start:.1f} s (torch {local.torch_version})")
        process = getattr(local, "_process", None)  # the worker's pid: not in the interface
        note = scheduling_note(process.pid if process is not None else 0,
                               remote.remote_pid if where.startswith("loopback") else None)
        if note:
            print(note)

        relay = Relay({"remote": remote, "local": local})
        thread = QThread()
        thread.setObjectName("benchmark-relay")
        relay.moveToThread(thread)
        relay.chunk_ready.connect(probe.on_chunk)  # queued: the relay lives in its thread
        relay.run_finished.connect(probe.on_finished)

        class Requests(QObject):
            run = Signal(int, object, str)

        requests = Requests()
        requests.run.connect(relay.run)
        guard = QTimer()
        guard.setSingleShot(True)
        guard.timeout.connect(probe.timeout)
        thread.start()

        base = RunConfig(epochs=args.epochs, device=args.device, threads=1,
                         record="every-epoch", engine="eager")
        configs = {"remote": base.replace(device=remote_device), "local": base}
        run_timeout_s = max(120.0, args.epochs * 0.005)

        def train(side: str, replicate: int, epochs: int | None = None) -> Run:
            config = configs[side] if epochs is None else configs[side].replace(epochs=epochs)
            probe.token += 1
            probe.run = run = Run(side, replicate)
            probe.unflushed, probe.unpainted = [], []
            panel.begin_live(probe.token, f"{side} run", config.epochs, 1)
            guard.start(round(run_timeout_s * 1000))
            requests.run.emit(probe.token, config, side)
            probe.loop.exec()
            guard.stop()
            probe.run = None
            if probe.timed_out:
                raise SystemExit(f"the {side} run did not finish within {run_timeout_s:.0f} s")
            return run

        warm = min(args.warm_epochs, args.epochs)
        for side in ("remote", "local"):
            warmed = train(side, 0, warm)
            if warmed.error or warmed.result.status.value != "completed":
                raise SystemExit(f"the {side} warm-up run failed: "
                                 f"{warmed.error or warmed.result.message}")

        print(f"{args.epochs:,} epochs, {base.dataset}, {base.engine}, record {base.record}, "
              f"{base.threads} thread, device {args.device}; {args.replicates} replicates, "
              f"alternating; untimed warm-up of {warm} epochs per side")
        print("latency ms = time.time() at each step - chunk.stamp; link: observer, gui: "
              "queued signal runs, flush: in the curve, plot: painted")
        header = (f"{'rep':>3} {'side':<6} {'epoch us':>8} {'IQR':>6} {'cpu wait':>8} "
                  f"{'chunks':>6} {'link':>5} {'gui':>5} {'flush':>6} {'plot':>6} "
                  f"{'plot p95':>8}  note")
        print(header)
        print("-" * len(header))

        runs: dict[str, list[Run]] = {"remote": [], "local": []}
        for rep in range(1, args.replicates + 1):
            order = ("remote", "local") if rep % 2 else ("local", "remote")
            for side in order:
                run = train(side, rep)
                runs[side].append(run)
                print(row(run, is_busy), flush=True)
        paints = probe.paints
    finally:
        if thread is not None:
            thread.quit()
            thread.wait()
        remote.close()
        local.close()
        panel.close()
        app.processEvents()

    report(runs, summarize, is_busy, paints)


if __name__ == "__main__":
    main()
