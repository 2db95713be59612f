"""Does the window cost the training anything, and does it stay responsive while a run trains?

App side: the default config (the note's 20,000 epochs, loss recorded every epoch, 1 intra-op
thread) trained the way the user does it: a real MainWindow from ``create_window()`` (settings in
a temporary INI file, runs store in a temporary directory), shown offscreen, its worker started
as ``run_app`` starts it, the config put in the Run panel and ``Train`` triggered. The panels are
connected as in the app: the live curve redraws on its ~30 Hz timer, the status bar refreshes,
and each finished run is saved, listed, selected and overlaid.

Headless side, alternating with the app (app first on odd replicates, headless first on even
ones): ``ProcessRunner().run(config)`` with no observer, from this script's main thread while the
window's event loop is not running. It trains in the same kind of warm spawned worker process as
the app (same torch import and warm-up, one thread, the same chunks pickled over the same pipe),
so the only difference between the sides is what the parent does while the child trains: the
QThread relaying chunks as signals, the plot, the status bar, the event loop. That difference is
the app's own overhead. ``python -m iris_gui train`` was not used: it trains in its own process
with no pipe, so it would mix the runner's cost into the window's.

Prints the medians (IQR) of each side's ``timings.train_seconds`` and ``epoch_us`` and
app / headless. Goal: <= 1.02.

Event-loop stall: during each app run a 5 ms precise QTimer stamps its ticks; prints the p50, p99
and max gap while the run trains (goal: p99 <= 16 ms, one 60 Hz frame), against the same timer
on the idle window (the baseline), and the longest gap at the end of a run (save, results
refresh, overlay), which comes after training and is reported apart. The ticker is part of what
the app side pays (about 2% of a core on a 2-core machine; printed with the idle baseline).

Also per run: the live plot's repaints per second (Paint events of its view) and "parent CPU",
the CPU time of the process that waits for the worker (the window's, or this script's for the
headless side) per second of run, all its threads; the worker process's own CPU is not in it.
On a machine with few cores that CPU is what the trainer competes with.

Contrast: one run with execution ``in-process`` (training in the window's QThread, contending for
the GIL with the GUI thread), its ratio to the headless median and its stalls. Skip it with
--no-in-process.

    python benchmarks/gui_overhead.py [--epochs 20000] [--repeat 3] [--tick-ms 5] [--no-in-process]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _gui_support import (
    gap_figures,
    load_average,
    machine_facts,
    prepare_environment,
    quiet_offscreen_warnings,
    remove,
    temp_settings,
    verdict,
)

IDLE_BASELINE_S = 2.0
WARM_UP_EPOCHS = 200
START_TIMEOUT_S = 180.0
FRAME_MS = 16.0
GOAL_RATIO = 1.02


@dataclass
class AppRun:
    result: Any = None
    ticks: list[float] = field(default_factory=list)  # perf_counter; [0] is the trigger
    last_chunk: float = float("inf")
    repaints: int = 0
    cpu_s: float = 0.0  # this process's CPU time over the run, all threads
    problems: list[str] = field(default_factory=list)

    def training_gaps(self) -> list[float]:
        # Each tick with the next: the shifted copy is one shorter.
        return [b - a for a, b in zip(self.ticks, self.ticks[1:], strict=False)
                if b <= self.last_chunk]

    def end_gap(self) -> float:
        after = [b - a for a, b in zip(self.ticks, self.ticks[1:], strict=False)
                 if b > self.last_chunk]
        return max(after, default=float("nan"))

    @property
    def seconds(self) -> float:
        return self.ticks[-1] - self.ticks[0]


class AppSide:
    """Drives the window as a user would and watches its event loop; a plain object whose
    callables are connected to the controller (they run in the GUI thread)."""

    def __init__(self, window: Any, tick_ms: int) -> None:
        from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer

        self.window, self.controller = window, window.controller
        self.loop = QEventLoop()
        self.ticker = QTimer()
        self.ticker.setTimerType(Qt.TimerType.PreciseTimer)
        self.ticker.setInterval(tick_ms)
        self.ticker.timeout.connect(self._tick)
        self.guard = QTimer()
        self.guard.setSingleShot(True)
        self.guard.timeout.connect(self._timed_out)
        self.run: AppRun | None = None
        self.waiting_idle = self.ending = self.timed_out = False
        c = self.controller
        c.state_changed.connect(self._on_state)
        c.chunk_ready.connect(self._on_chunk)
        c.run_finished.connect(self._on_finished)
        c.message.connect(self._on_message)

        side = self

        class PaintCounter(QObject):
            def eventFilter(self, watched: Any, event: Any) -> bool:
                if event.type() == QEvent.Type.Paint and side.run is not None:
                    side.run.repaints += 1
                return False

        # The plot's QGraphicsView viewport: one Paint event per redraw of the curves.
        self._counter = PaintCounter()
        window.plot.plot_item.scene().views()[0].viewport().installEventFilter(self._counter)

    def wait_idle(self, timeout_s: float) -> None:
        from iris_gui.ui.jobs.run_state import RunState

        if self.controller.state is not RunState.IDLE:
            self.waiting_idle = True
            self._exec(timeout_s)
            self.waiting_idle = False
        if self.controller.state is not RunState.IDLE:
            raise RuntimeError(f"the window's worker did not become ready within {timeout_s:.0f} s")

    def idle_gaps(self, seconds: float) -> AppRun:
        """The ticker on the idle window: the timer's own jitter on this machine, now, and the
        CPU that the ticker alone costs the window's process."""
        from PySide6.QtCore import QTimer

        run = self.run = AppRun(ticks=[time.perf_counter()])
        cpu = time.process_time()
        QTimer.singleShot(round(seconds * 1000), self._end_idle)
        self.ticker.start()
        self._exec(seconds + 10)
        run.cpu_s = time.process_time() - cpu
        self.run = None
        return run

    def train(self, config: Any, execution: str, timeout_s: float) -> AppRun:
        """Put ``config`` in the Run panel, trigger Train, run the event loop until idle again."""
        w = self.window
        w.controls.set_config(config)
        w.controls.set_execution(execution)
        if not w.actions.train.isEnabled():
            raise RuntimeError(f"Train is not enabled (state {self.controller.state.value}, "
                               f"form: {w.controls.problem_label.text()!r})")
        run = self.run = AppRun(ticks=[time.perf_counter()])
        self.ending = False
        cpu = time.process_time()
        self.ticker.start()
        w.actions.train.trigger()
        self._exec(timeout_s)
        run.cpu_s = time.process_time() - cpu
        self.run = None
        if run.result is None:
            raise RuntimeError(f"the app run ended without a result: {run.problems}")
        return run

    def _exec(self, timeout_s: float) -> None:
        self.timed_out = False
        self.guard.start(round(timeout_s * 1000))
        self.loop.exec()
        self.guard.stop()
        if self.timed_out:
            raise RuntimeError(f"timed out after {timeout_s:.0f} s")

    def _tick(self) -> None:
        if self.run is not None:
            self.run.ticks.append(time.perf_counter())
        if self.ending:  # the tick after the run's end: its gap spans the end-of-run work
            self.ending = False
            self.ticker.stop()
            self.loop.quit()

    def _end_idle(self) -> None:
        self.ending = True

    def _on_state(self, state: Any) -> None:
        from iris_gui.ui.jobs.run_state import RunState

        if state is not RunState.IDLE:
            return
        if self.waiting_idle:
            self.loop.quit()
        elif self.run is not None:
            self.ending = True

    def _on_chunk(self, token: int, chunk: Any) -> None:
        if self.run is not None:
            self.run.last_chunk = time.perf_counter()

    def _on_finished(self, token: int, result: Any) -> None:
        if self.run is not None:
            self.run.result = result

    def _on_message(self, text: str) -> None:
        if self.run is not None:
            self.run.problems.append(text)

    def _timed_out(self) -> None:
        self.timed_out = True
        self.ticker.stop()
        self.loop.quit()


def check(result: Any, config: Any, execution: str, side: str) -> None:
    """Warn when a run did not train what was asked: the comparison would be meaningless."""
    problems = []
    if result.status.value != "completed":
        problems.append(f"status {result.status.value} ({result.message})")
    if result.config != config:
        problems.append(f"trained {result.config} instead of {config}")
    if result.env.execution != execution:
        problems.append(f"execution {result.env.execution!r} instead of {execution!r}")
    for problem in problems:
        print(f"  WARNING ({side}): {problem}", flush=True)


def stall_text(gaps: list[float]) -> str:
    p50, p99, top = gap_figures(gaps)
    return f"{p50:6.1f} {p99:6.1f} {top:7.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tick-ms", type=int, default=5, help="the stall ticker's interval")
    parser.add_argument("--no-in-process", action="store_true",
                        help="skip the in-process contrast run")
    args = parser.parse_args()
    tmp = prepare_environment("iris-gui-overhead-")
    try:
        measure(args, tmp)
    finally:
        remove(tmp)


def measure(args: argparse.Namespace, tmp: Path) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from iris_gui import APP_NAME
    from iris_gui.engine.spec.config import RunConfig
    from iris_gui.engine.timing.stats import summarize
    from iris_gui.engine.workers.runner import ProcessRunner
    from iris_gui.ui.app import create_window

    quiet_offscreen_warnings()
    app = QApplication([sys.argv[0]])
    app.setApplicationName(APP_NAME)
    window = create_window(temp_settings(tmp))
    if window is None:
        raise SystemExit("the window could not be created (runs store)")
    window.show()
    QTimer.singleShot(0, window.controller.start)  # as run_app does
    side = AppSide(window, args.tick_ms)
    headless = ProcessRunner()
    try:
        side.wait_idle(START_TIMEOUT_S)
        headless.start()
        config = RunConfig(epochs=args.epochs)
        warm = config.replace(epochs=min(WARM_UP_EPOCHS, args.epochs))
        env = side.train(warm, "process", START_TIMEOUT_S).result.env
        headless.run(warm)
        run_timeout = max(120.0, args.epochs * 0.005)  # 5 ms an epoch: far beyond any healthy run

        print(f"torch {env.torch_version}, {env.threads} intra-op thread(s), python {env.python}, "
              f"{QApplication.platformName()} Qt platform")
        print(machine_facts())
        print(f"{args.epochs:,} epochs, record {config.record}, {args.repeat} replicates, "
              f"app and headless alternating; stall ticker {args.tick_ms} ms")
        idle_run = side.idle_gaps(IDLE_BASELINE_S)
        print(f"{'':26} {'train s':>8} {'epoch us':>9} {'p50 ms':>6} {'p99 ms':>6} {'max ms':>7}"
              f" {'end ms':>7} {'repaints/s':>10} {'parent CPU':>10}", flush=True)

        app_runs: list[AppRun] = []
        head_results: list[Any] = []

        def app_once(rep: int) -> None:
            run = side.train(config, "process", run_timeout)
            check(run.result, config, "process", "app")
            app_runs.append(run)
            t = run.result.timings
            print(f"rep {rep} app (process)          {t.train_seconds:8.3f} {t.epoch_us:9.1f} "
                  f"{stall_text(run.training_gaps())} {run.end_gap() * 1000:7.1f} "
                  f"{run.repaints / run.seconds:10.1f} {run.cpu_s / run.seconds:10.0%}",
                  flush=True)

        def headless_once(rep: int) -> None:
            wall, cpu = time.perf_counter(), time.process_time()
            result = headless.run(config)
            share = (time.process_time() - cpu) / (time.perf_counter() - wall)
            check(result, config, "process", "headless")
            head_results.append(result)
            t = result.timings
            print(f"rep {rep} headless               {t.train_seconds:8.3f} {t.epoch_us:9.1f} "
                  f"{'':44} {share:10.0%}", flush=True)

        for rep in range(1, args.repeat + 1):
            order = (app_once, headless_once) if rep % 2 else (headless_once, app_once)
            for once in order:
                once(rep)

        contrast: AppRun | None = None
        if not args.no_in_process:
            side.train(warm, "in-process", START_TIMEOUT_S)  # torch loads into this process here
            contrast = side.train(config, "in-process", run_timeout * 4)
            check(contrast.result, config, "in-process", "in-process")
            t = contrast.result.timings
            print(f"contrast app (in-process)    {t.train_seconds:8.3f} {t.epoch_us:9.1f} "
                  f"{stall_text(contrast.training_gaps())} {contrast.end_gap() * 1000:7.1f} "
                  f"{contrast.repaints / contrast.seconds:10.1f} "
                  f"{contrast.cpu_s / contrast.seconds:10.0%}", flush=True)
    finally:
        window.close()  # the controller shuts its worker down, as when the user quits
        headless.close()
        app.processEvents()

    report(summarize, app_runs, head_results, idle_run, contrast)


def report(summarize: Any, app_runs: list[AppRun], head_results: list[Any],
           idle_run: AppRun, contrast: AppRun | None) -> None:
    idle = idle_run.training_gaps()
    app_train = summarize([r.result.timings.train_seconds for r in app_runs])
    app_epoch = summarize([r.result.timings.epoch_us for r in app_runs])
    head_train = summarize([r.timings.train_seconds for r in head_results])
    head_epoch = summarize([r.timings.epoch_us for r in head_results])
    print()
    print(f"{'median (IQR)':<16} {'train s':>8} {'IQR':>7} {'epoch us':>9} {'IQR':>7}")
    for name, train_s, epoch_us in (("headless", head_train, head_epoch),
                                    ("app (process)", app_train, app_epoch)):
        flag = "  (noisy)" if train_s.noisy or epoch_us.noisy else ""
        print(f"{name:<16} {train_s.median:8.3f} {train_s.iqr:7.3f} {epoch_us.median:9.1f} "
              f"{epoch_us.iqr:7.1f}{flag}")
    ratio = app_train.median / head_train.median
    print(f"app / headless: train s {ratio:.3f}, epoch us "
          f"{app_epoch.median / head_epoch.median:.3f}   (goal <= {GOAL_RATIO}: "
          f"{verdict(ratio <= GOAL_RATIO)})")

    training = [gap for run in app_runs for gap in run.training_gaps()]
    p50, p99, top = gap_figures(training)
    i50, i99, itop = gap_figures(idle)
    print(f"event-loop gaps while training (all app runs, {len(training):,} ticks): p50 {p50:.1f} "
          f"ms, p99 {p99:.1f} ms, max {top:.1f} ms   (goal p99 <= {FRAME_MS:.0f} ms: "
          f"{verdict(p99 <= FRAME_MS)})")
    print(f"  baseline, idle window ({len(idle):,} ticks): p50 {i50:.1f} ms, p99 {i99:.1f} ms, "
          f"max {itop:.1f} ms; p99 training / idle {p99 / i99:.2f}; the ticker alone costs the "
          f"idle window {idle_run.cpu_s / idle_run.seconds:.1%} of a core")
    ends = [run.end_gap() * 1000 for run in app_runs]
    print(f"  end of run (save, results refresh, overlay), longest gap: median "
          f"{summarize(ends).median:.1f} ms, max {max(ends):.1f} ms")
    repaint_hz = summarize([run.repaints / run.seconds for run in app_runs]).median
    print(f"  live plot repaints: median {repaint_hz:.1f} per second of run (timer: <= 30)")
    if contrast is not None:
        t = contrast.result.timings
        c50, c99, ctop = gap_figures(contrast.training_gaps())
        print(f"contrast, in-process (1 run): train s {t.train_seconds:.3f}, in-process / "
              f"headless {t.train_seconds / head_train.median:.3f} (train s), "
              f"{t.epoch_us / head_epoch.median:.3f} (epoch us); gaps p50 {c50:.1f} ms, "
              f"p99 {c99:.1f} ms, max {ctop:.1f} ms")
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
