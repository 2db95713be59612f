"""Nothing lost, ever: kill -9 of the command line and of the window at random
moments, start-up, training and the save included. SIGKILL cannot be caught, so nothing the
product does on the way out helps: only the save's own transaction does.

After every trial the runs store must hold every run a process reported saved (``train
--json`` printed its id; the window's save returned its id and the window showed it), and
every run whose save returned an id at all (seen by a hook, before anything printed it); the
store must still open (``runs list --json`` exits 0, SQLite's integrity check says ok), no
file may be set aside (``runs.sqlite3.invalid-*``), and no recovery file may be left claimed
by a dead importer (``recovered/*.importing-*``: its run would never be added back).

The moments are drawn from a seeded generator (KILL9_SEED) and aimed by events the process
under test writes on stderr (tests/support/kill.py), never by fixed sleeps:

- ``timer``: a delay from the start of the process, start-up included;
- ``training``: a short delay after the n-th run's first chunk (a 300-epoch run trains for
  tens of milliseconds, so this lands in the training, its end or its save);
- ``statement``: the process kills itself just before the k-th SQL statement of its saves
  (BEGIN, each INSERT, COMMIT), or just after a save has returned its id, before anything
  printed it. A k beyond the saves' steps lets the process end normally.

The quick trials run with ``make test``; ``make test-reliability`` (IRIS_GUI_LONG_TRIALS=1)
runs the long ones.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support.cli import IRIS, cli_env, run_cli
from support.kill import Watched, alive, children_of, spawn

LONG = os.environ.get("IRIS_GUI_LONG_TRIALS") == "1"
# The long trials take minutes on a quiet machine and several times that beside other work:
# their limit is pytest-timeout's 300 s scaled to what they do, not the quick trials' own.
pytestmark = [pytest.mark.skipif(sys.platform != "linux", reason="SIGKILL and /proc"),
              pytest.mark.timeout(1800 if LONG else 300)]

SEED = int(os.environ.get("KILL9_SEED", "9"))
CLI_TRIALS = 60 if LONG else 3
CONCURRENT_ROUNDS = 12 if LONG else 1
WINDOW_TRIALS = 24 if LONG else 2
EPOCHS = 300  # a run trains for tens of milliseconds
STEPS_PER_SAVE = 6  # BEGIN, three INSERTs, COMMIT, and the return of the id
WINDOW_RUNS = 6
PROCESS_TIMEOUT_S = 120
# How soon the store must answer ``runs list`` once the killed process is gone.
ANSWER_WITHIN_S = 10.0
# How long a killed window's worker process may outlive it.
WORKER_GONE_WITHIN_S = 30.0
DB = "runs.sqlite3"
LEFT_TO_FINISH = 10**6  # a kill step no process reaches


@dataclass
class Ledger:
    """What the processes said, over all the trials on one data directory."""

    reported: dict[int, str] = field(default_factory=dict)  # id -> the trial that printed it
    # id -> the trial whose save returned it
    committed: dict[int, str] = field(default_factory=dict)
    trials: list[str] = field(default_factory=list)
    kills: int = 0

    def note(self, trial: str, watched: Watched, reported: list[int]) -> None:
        for run_id in reported:
            assert run_id not in self.reported, f"{trial}: id {run_id} reported twice"
            self.reported[run_id] = trial
        for run_id in watched.committed():
            assert run_id not in self.committed, f"{trial}: id {run_id} returned by two saves"
            self.committed[run_id] = trial
        # A run reported saved was saved by this process's own save.
        assert set(reported) <= set(watched.committed()), (trial, reported, watched.stderr)
        killed = watched.proc.returncode == -signal.SIGKILL
        self.kills += killed
        self.trials.append(f"{trial}: exit {watched.proc.returncode}, reported {reported}, "
                           f"committed {watched.committed()}")
        if not killed:
            assert watched.proc.returncode == 0, f"{trial}\n{watched.stdout}\n{watched.stderr}"
            assert "Traceback" not in watched.stderr, f"{trial}\n{watched.stderr}"


def list_runs(data: Path, timeout: float = PROCESS_TIMEOUT_S) -> subprocess.CompletedProcess:
    return subprocess.run([*IRIS, "runs", "list", "--json"], capture_output=True, text=True,
                          check=False, env=cli_env(data), timeout=timeout)


def check_store(data: Path, ledger: Ledger) -> list[int]:
    """Every reported and committed run is in the store, which opens and is whole; the ids.
    ``runs list`` runs in this process: once the killed processes are gone, what it reads is
    the store's, and how soon another process gets an answer is wait_for_answer's."""
    done = run_cli(["runs", "list", "--json"], data)
    history = "\n".join(ledger.trials)
    assert done.returncode == 0, f"runs list failed:\n{done.stdout}\n{done.stderr}\n{history}"
    stored = {run["id"] for run in json.loads(done.stdout)}
    lost = {i: t for i, t in ledger.reported.items() if i not in stored}
    assert not lost, f"runs reported saved are not in the store: {lost}\n{history}"
    lost = {i: t for i, t in ledger.committed.items() if i not in stored}
    assert not lost, f"runs whose save returned an id are not in the store: {lost}\n{history}"
    names = sorted(p.name for p in data.iterdir())
    assert not [n for n in names if ".invalid-" in n], f"a store was set aside: {names}"
    recovered = data / "recovered"
    if recovered.is_dir():
        left = sorted(p.name for p in recovered.iterdir())
        # A ``*.tmp`` is a recovery file killed while being written: its save never returned,
        # so nothing was promised. A claimed ``*.importing-<pid>`` whose importer died is never
        # imported by anyone: a run the user was told would be added back, lost.
        assert not [n for n in left if ".importing-" in n], \
            f"recovery files left claimed by a dead importer: {left}\n{history}"
    # Closed before the store below opens: SQLite's locks are POSIX locks, which any close of
    # the same file in this process drops (RunStore.open reads the header with a plain open),
    # so two connections to one file in one process must not overlap.
    conn = sqlite3.connect(data / DB)
    try:
        integrity = conn.execute("PRAGMA integrity_check").fetchall()
    finally:
        conn.close()
    assert integrity == [("ok",)], f"the store is damaged: {integrity}\n{history}"
    # And it still opens for writing (adding back any recovery file), as the next save would.
    from iris_gui.store.runs import RunStore

    with RunStore.open(data / DB) as store:
        ids = {run.id for run in store.list_runs()}
        # Whole, not half saved: each run reads back with its full curve and its chunks.
        for run_id in sorted(ids):
            result = store.get(run_id).result
            losses, chunks = len(result.losses), len(result.chunk_epochs)
            assert losses == result.epochs_completed == EPOCHS and chunks > 0, \
                f"run {run_id} is not whole: {losses} losses, {chunks} chunks\n{history}"
    assert stored <= ids
    return sorted(ids)


def reported_ids(stdout: str) -> list[int]:
    """The ids ``train --json`` printed: its run and the replicates'."""
    if not stdout.strip():
        return []
    try:
        record = json.loads(stdout)
    except json.JSONDecodeError:
        return []  # killed in the middle of printing: nothing was reported
    ids = [record["id"]] if "id" in record else []
    return sorted({*ids, *record.get("repeat", {}).get("ids", [])})


@dataclass
class Plan:
    moment: str  # timer, training, statement
    delay: float = 0.0
    nth: int = 1
    step: int | None = None

    def env(self, data: Path) -> dict[str, str]:
        env = cli_env(data)
        env.pop("K9_KILL_AT_STATEMENT", None)
        env["QT_QPA_PLATFORM"] = "offscreen"
        if self.step is not None:
            env["K9_KILL_AT_STATEMENT"] = str(self.step)
        return env

    def __str__(self) -> str:
        if self.moment == "timer":
            return f"kill {self.delay:.3f} s after the start"
        if self.moment == "training":
            return f"kill {self.delay * 1000:.0f} ms after run {self.nth}'s first chunk"
        if self.moment == "ready":
            return f"kill {self.delay:.3f} s after the worker was ready"
        if self.step is not None and self.step >= LEFT_TO_FINISH:
            return "left to finish"
        return f"kill itself at step {self.step} of its saves"


def draw(rng: random.Random, saves: int, span: float, anchor: str = "training") -> Plan:
    moment = rng.choice(["timer", anchor, "statement"])
    if moment == "timer":
        return Plan("timer", delay=rng.uniform(0.0, span))
    if moment == "statement":
        return Plan("statement", step=rng.randint(1, saves * STEPS_PER_SAVE + 1))
    return Plan(moment, delay=rng.uniform(0.0, 0.15), nth=rng.randint(1, saves))


def carry_out(watched: Watched, plan: Plan) -> None:
    """Wait for the planned moment and kill (a statement plan kills itself), then reap."""
    deadline = watched.started + PROCESS_TIMEOUT_S
    if plan.moment == "timer":
        wait = watched.started + plan.delay - time.monotonic()
        try:
            watched.proc.wait(timeout=max(0.0, wait))
        except subprocess.TimeoutExpired:
            watched.kill()
    elif plan.moment in ("training", "ready"):
        for _ in range(plan.nth):
            if not watched.wait_event(plan.moment, deadline):
                break
        else:
            try:
                watched.proc.wait(timeout=plan.delay)
            except subprocess.TimeoutExpired:
                watched.kill()
    watched.finish(PROCESS_TIMEOUT_S)


def cli_trial(data: Path, rng: random.Random, index: int, ledger: Ledger) -> None:
    repeat = rng.randint(1, 3)
    plan = draw(rng, repeat, span=1.0 + 1.5 * repeat)
    watched = spawn("cli", ["train", "--epochs", str(EPOCHS), "--repeat", str(repeat), "--json"],
                    plan.env(data))
    carry_out(watched, plan)
    ledger.note(f"cli trial {index} (repeat {repeat}, {plan})", watched,
                reported_ids(watched.stdout))


def test_kill9_of_the_cli_at_random_moments_loses_no_saved_run(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    data, ledger = tmp_path / "data", Ledger()
    for index in range(CLI_TRIALS):
        cli_trial(data, rng, index, ledger)
    if not (data / DB).exists():
        pytest.fail("no trial ever reached the store:\n" + "\n".join(ledger.trials))
    check_store(data, ledger)
    print(f"\n{CLI_TRIALS} cli trials, {ledger.kills} killed, {len(ledger.reported)} runs "
          f"reported, {len(ledger.committed)} committed, none lost")


def test_kill9_of_some_of_several_clis_saving_at_once_loses_no_saved_run(tmp_path: Path) -> None:
    """Three trainers on one store at once, each of them killed at its own random moment or
    left to finish: a kill while another process waits for the write lock must neither lose
    a run nor leave the lock held."""
    rng = random.Random(SEED + 1)
    data, ledger = tmp_path / "data", Ledger()
    for round_ in range(CONCURRENT_ROUNDS):
        started = []
        for index in range(3):
            repeat = rng.randint(2, 4)
            plan = draw(rng, repeat, span=2.0 + 1.5 * repeat)
            if rng.random() < 0.25:
                plan = Plan("statement", step=LEFT_TO_FINISH)
            watched = spawn("cli", ["train", "--epochs", str(EPOCHS), "--repeat", str(repeat),
                                    "--json"], plan.env(data))
            started.append((f"round {round_} process {index} (repeat {repeat}, {plan})",
                            watched, plan))
        # Each process's plan carried out at once: timers by the clock, events by polling.
        pending = list(started)
        counts = {id(w): 0 for _, w, _ in started}
        fired: dict[int, float] = {}
        while pending:
            now = time.monotonic()
            for item in list(pending):
                _trial, watched, plan = item
                if watched.proc.poll() is not None:
                    pending.remove(item)
                    continue
                assert now < watched.started + PROCESS_TIMEOUT_S, f"{_trial}: no end"
                if plan.moment == "timer" and now >= watched.started + plan.delay:
                    watched.kill()
                elif plan.moment == "training":
                    while not watched.events.empty():
                        got = watched.events.get_nowait()
                        if got == "training":
                            counts[id(watched)] += 1
                            if counts[id(watched)] == plan.nth:
                                fired[id(watched)] = now
                    if id(watched) in fired and now >= fired[id(watched)] + plan.delay:
                        watched.kill()
            time.sleep(0.005)
        for trial, watched, _plan in started:
            watched.finish(PROCESS_TIMEOUT_S)
            ledger.note(trial, watched, reported_ids(watched.stdout))
        if (data / DB).exists():
            check_store(data, ledger)
    assert (data / DB).exists(), "\n".join(ledger.trials)
    print(f"\n{CONCURRENT_ROUNDS} rounds of 3 clis, {ledger.kills} killed, "
          f"{len(ledger.reported)} runs reported, {len(ledger.committed)} committed, none lost")


def window_reported(stdout: str) -> list[int]:
    return [int(line.split()[1]) for line in stdout.splitlines()
            if line.startswith("saved ") and line.split()[1].isdigit()]


def wait_for_answer(data: Path) -> float:
    """Seconds until ``runs list`` answers (exit 0) once the killed window is gone."""
    start = time.monotonic()
    while True:
        left = start + ANSWER_WITHIN_S - time.monotonic()
        assert left > 0, f"the store did not answer within {ANSWER_WITHIN_S} s of the kill"
        try:
            done = list_runs(data, timeout=left)
        except subprocess.TimeoutExpired:
            continue
        if done.returncode == 0:
            return time.monotonic() - start
        time.sleep(0.05)


def test_kill9_of_the_window_at_random_moments_loses_no_saved_run(tmp_path: Path) -> None:
    """The window trains WINDOW_RUNS short runs in its worker process, each saved by its own
    save path when it ends, and is killed at a random moment; its worker must not outlive it
    for long, nor keep the store from answering."""
    pytest.importorskip("PySide6")
    rng = random.Random(SEED + 2)
    data, ledger = tmp_path / "data", Ledger()
    lingered = []
    for index in range(WINDOW_TRIALS):
        plan = draw(rng, WINDOW_RUNS, span=5.0)
        if plan.moment == "training":  # after the worker is up: training and saves in turn
            plan = Plan("ready", delay=rng.uniform(0.0, 1.5))
        watched = spawn("window", [str(WINDOW_RUNS), str(EPOCHS)], plan.env(data))
        trial = f"window trial {index} ({plan})"
        children: set[int] = set()
        # The worker's pid, learnt while the window lives (a killed parent's child is
        # re-parented); the plan carried out meanwhile.
        kill_at = watched.started + plan.delay if plan.moment == "timer" else None
        if plan.moment == "ready":
            watched.wait_event("ready", watched.started + PROCESS_TIMEOUT_S)
            kill_at = time.monotonic() + plan.delay
        while watched.proc.poll() is None:
            children |= set(children_of(watched.proc.pid))
            if kill_at is not None and time.monotonic() >= kill_at:
                children |= set(children_of(watched.proc.pid))
                watched.kill()
                break
            assert time.monotonic() < watched.started + PROCESS_TIMEOUT_S, trial
            time.sleep(0.01)
        watched.finish(PROCESS_TIMEOUT_S)
        killed_at = time.monotonic()
        ledger.note(trial, watched, window_reported(watched.stdout))
        if (data / DB).exists():
            answered = wait_for_answer(data)
            ledger.trials[-1] += f", store answered in {answered:.2f} s"
        gone_by = time.monotonic() + WORKER_GONE_WITHIN_S
        while any(alive(pid) for pid in children) and time.monotonic() < gone_by:
            time.sleep(0.05)
        left = [pid for pid in children if alive(pid)]
        ledger.trials[-1] += (f", its {len(children)} child process(es) gone in "
                              f"{time.monotonic() - killed_at:.2f} s" if not left else "")
        if left:
            lingered.append((trial, left))
            for pid in left:  # our own descendants: do not leave them running
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
    assert (data / DB).exists(), "\n".join(ledger.trials)
    check_store(data, ledger)
    assert not lingered, f"worker processes outlived the killed window: {lingered}"
    print(f"\n{WINDOW_TRIALS} window trials, {ledger.kills} killed, {len(ledger.reported)} "
          f"runs reported, {len(ledger.committed)} committed, none lost\n"
          + "\n".join(ledger.trials))
