"""The remote worker through a real Slurm: ``scripts/slurm_cluster.py``'s one-node cluster on
this machine, reached through the loopback sshd, with the docs' own ``srun`` prefix.

Plain ``srun`` (no ``-u``) forwards the job's output a line at a time: these runs pass only
because every frame ends with a newline. The host's worker is a Slurm job step with a fake GPU
(``--gres=gpu:1``), and it is this machine, so its environment can be read in /proc.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.cli import run_cli
from support.signalled import running
from support.slurm import Cluster, slurm
from support.sshd import LoopbackSshd, wait_for

from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.records.sweep_model import SweepSpec
from iris_gui.engine.remote.hosts import Host
from iris_gui.engine.remote.job_pool import JobPool
from iris_gui.engine.remote.runner import RemoteRunner
from iris_gui.engine.remote.ssh import SSH_CONFIG_ENV
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.faults import FAULT_ENV
from iris_gui.engine.train.trainer import train
from iris_gui.engine.workers.runner import WorkerError

__all__ = ["slurm"]

pytestmark = pytest.mark.slow

DOCS = Path(__file__).resolve().parents[2] / "docs" / "remote.md"
PYTHON_IRIS_GUI = f"{shlex.quote(sys.executable)} -m iris_gui"


def docs_example() -> list[str]:
    """The docs' Slurm example, ``hosts add hpc login... --prefix "srun ..."``, as words."""
    found = re.search(r"iris-gui (hosts add \S+ \S+ --prefix \"srun [^\"]+\")", DOCS.read_text())
    assert found, "docs/remote.md has no `hosts add ... --prefix \"srun ...\"` example"
    return shlex.split(found.group(1))


def docs_prefix() -> str:
    """The ``--prefix`` of the docs' Slurm example, as written there."""
    words = docs_example()
    return words[words.index("--prefix") + 1]


def docs_host(name: str, prefix: str = "") -> RemoteRunner:
    """A runner for the docs' Slurm host, under ``name`` (each its own connection and job)."""
    return RemoteRunner(Host(name, "iris-test", prefix=prefix or docs_prefix(),
                             command=PYTHON_IRIS_GUI))


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


@pytest.fixture(scope="module", autouse=True)
def time_limited(sshd: LoopbackSshd, slurm: Cluster) -> Iterator[Future]:
    """A run that outlives its job's time limit, started with the module so that Slurm's
    check of the limit (every 30 s) comes beside the other tests: a future of (the run, its
    job id). Once the run has started, the job's end time is brought forward to now
    (``scontrol update EndTime=now``, what an elapsed ``--time`` would have made it): slurmctld
    ends the job at its next check, DUE TO TIME LIMIT, within 30 s instead of a minute and more.

    Its loader reads each row 50 ms late (``IRIS_GUI_FAULT=slow-items:50``, set on the host's
    command line): the worker sleeps while it waits instead of taking a core from the tests
    beside it, and hears Slurm's SIGTERM between two batches of eight rows."""
    with pytest.MonkeyPatch.context() as patch, ThreadPoolExecutor(1) as pool:
        patch.setenv(SSH_CONFIG_ENV, str(sshd.config_path))
        runner = docs_host("hpc-limit")
        runner.host = replace(runner.host,
                              command=f"env {FAULT_ENV}=slow-items:50 {PYTHON_IRIS_GUI}")

        def run() -> tuple[object, str]:
            runner.start()
            job = runner.placement["SLURM_JOB_ID"]
            config = RunConfig(epochs=10_000_000, device="hpc-limit:cpu", threads=1, batch=8,
                               data_path="loader")

            def observe(chunk: object) -> None:
                if not ended:  # once; with the controller stopped by a test beside, when back
                    ended.append(wait_for(lambda: slurm.try_command(
                        "scontrol", "update", f"jobid={job}", "EndTime=now"), 120,
                        f"slurmctld to bring job {job}'s end forward"))

            ended: list[str] = []
            return runner.run(config, observe), job

        try:
            yield pool.submit(run)
        finally:
            runner.close()


@pytest.fixture(scope="module")
def hpc(sshd: LoopbackSshd, slurm: Cluster) -> Iterator[RemoteRunner]:
    """The docs' Slurm host, connected once for the module."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SSH_CONFIG_ENV, str(sshd.config_path))
        runner = docs_host("hpc")
        try:
            runner.start()
            yield runner
        finally:
            runner.close()


def test_the_worker_is_a_slurm_job_with_the_gpu_it_asked_for(hpc: RemoteRunner,
                                                             slurm: Cluster) -> None:
    assert "--gres=gpu:1" in docs_prefix().split()
    worker = environ(hpc.remote_pid)
    assert worker["SLURM_JOB_ID"] in slurm.jobs()
    assert worker["CUDA_VISIBLE_DEVICES"] in ("0", "1", "2", "3")  # a fake GPU of the job's
    assert hpc.devices and hpc.devices[0].id == "hpc:cpu"
    # The worker says so in its greeting: `hosts test`, each run's record.
    assert hpc.placement == {"SLURM_JOB_ID": worker["SLURM_JOB_ID"],
                             "SLURMD_NODENAME": slurm.script.node_name(slurm.root),
                             "CUDA_VISIBLE_DEVICES": worker["CUDA_VISIBLE_DEVICES"]}


def test_a_run_through_srun_equals_the_local_run(hpc: RemoteRunner) -> None:
    # The manual engine: the note's 20,000 epochs in a fifth of eager's time, the same
    # question (a long curve, bit for bit, through srun's line-by-line forwarding).
    config = RunConfig(epochs=20_000, seed=3, device="hpc:cpu", engine="manual", threads=1)
    chunks: list = []
    remote = hpc.run(config, chunks.append)
    local = train(config.replace(device="cpu"))
    assert remote.status is RunStatus.COMPLETED, remote.message
    assert remote.epochs_completed == 20_000 and len(remote.losses) == 20_000
    # A result frame of 20,000 losses is one line of about 110 KB: srun passes it whole.
    assert np.array_equal(remote.losses, local.losses)
    assert remote.env.host == "hpc" and remote.env.execution == "ssh"
    assert remote.env.host_placement.startswith(f"Slurm job {hpc.placement['SLURM_JOB_ID']} on ")
    assert len(chunks) >= 2 and chunks[-1].epochs_done == 20_000


def test_a_stopped_run_and_the_next_share_the_job(hpc: RemoteRunner) -> None:
    job = environ(hpc.remote_pid)["SLURM_JOB_ID"]
    chunks: list = []

    def observe(chunk: object) -> None:
        chunks.append(chunk)
        if len(chunks) == 1:
            hpc.request_stop()

    stopped = hpc.run(RunConfig(epochs=2_000_000, device="hpc:cpu"), observe)
    assert stopped.status is RunStatus.STOPPED, stopped.message
    assert 0 < stopped.epochs_completed < 2_000_000
    after = hpc.run(RunConfig(epochs=300, device="hpc:cpu"))
    assert after.status is RunStatus.COMPLETED, after.message
    assert environ(hpc.remote_pid)["SLURM_JOB_ID"] == job


def test_a_sweep_on_one_job_names_its_job(hpc: RemoteRunner) -> None:
    spec = SweepSpec(rows=(120, 240), hidden=(10,), devices=("hpc:cpu",), engines=("lean",),
                     threads=("1",), min_seconds=0.02)
    result = hpc.sweep(spec)
    assert result.status == "completed", result.message
    assert [p.rows for p in result.points] == [120, 240]
    placed = hpc.placement
    assert result.env["jobs"] == [f"Slurm job {placed['SLURM_JOB_ID']} on "
                                  + f"{placed['SLURMD_NODENAME']}, CUDA_VISIBLE_DEVICES="
                                  + placed["CUDA_VISIBLE_DEVICES"]]


def jobs_end(slurm: Cluster, *jobs: str) -> None:
    """Wait for these jobs (their ids) to leave Slurm's queue, ended or forgotten."""
    wait_for(lambda: not set(jobs) & set(slurm.jobs()), 30, f"Slurm to end jobs {sorted(jobs)}")


def placed_jobs(placements: list[str]) -> list[str]:
    """The job ids in a sweep's placements ("Slurm job N on ...")."""
    return [re.match(r"Slurm job (\d+)", placed)[1] for placed in placements]


def test_a_cancelled_job_keeps_its_run_as_stopped_and_names_slurm(
        ssh_config_env: str, slurm: Cluster) -> None:
    runner = docs_host("hpc3")
    chunks: list = []
    try:
        runner.start()
        job = environ(runner.remote_pid)["SLURM_JOB_ID"]

        def observe(chunk: object) -> None:
            chunks.append(chunk)
            if len(chunks) == 1:
                slurm.command("scancel", job)

        result = runner.run(RunConfig(epochs=2_000_000, device="hpc3:cpu"), observe)
    finally:
        runner.close()
    # SIGTERM, then KillWait before SIGKILL: the worker stops at its next chunk and answers.
    assert result.status is RunStatus.STOPPED, result.message
    assert 0 < result.epochs_completed < 2_000_000
    assert len(result.losses) == result.epochs_completed
    assert result.message.endswith(f": Slurm cancelled job {job} (scancel)"), result.message
    jobs_end(slurm, job)


def test_a_job_waiting_in_the_queue_is_named_and_cancelled_on_giving_up(
        ssh_config_env: str, slurm: Cluster) -> None:
    node = slurm.script.node_name(slurm.root)
    runner = docs_host("hpc4")
    said: list[str] = []
    runner.on_status = said.append
    slurm.command("scontrol", "update", f"nodename={node}", "state=drain", "reason=iris-test")
    try:
        with pytest.raises(WorkerError) as refused:
            runner.start(timeout=6)
    finally:
        runner.close()
        slurm.command("scontrol", "update", f"nodename={node}", "state=resume")
    queued = re.fullmatch(r"hpc4: waiting in Slurm's queue \(job (\d+)\)", said[0] if said else "")
    assert queued, said
    job = queued[1]
    assert str(refused.value) == (f"hpc4: still waiting in Slurm's queue (job {job}) after 6 s; "
                                  f"job {job} was cancelled")
    # srun would have waited on after ssh ended: the job is gone, not started later.
    jobs_end(slurm, job)


def test_the_docs_example_added_as_written_connects_and_trains(
        ssh_config_env: str, slurm: Cluster, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    name = docs_example()[2]
    added_docs_host(name, tmp_path, monkeypatch)
    tested = run_cli(["hosts", "test", name], tmp_path / "data")
    assert tested.returncode == 0, tested.stderr
    node = slurm.script.node_name(slurm.root)
    said = re.match(rf"{name}: connected in [\d.]+ s, torch \S+; Slurm job (\d+) on {node}, "
                    r"CUDA_VISIBLE_DEVICES=\d$", tested.stdout.splitlines()[0])
    assert said, tested.stdout
    trained = run_cli(["train", "--device", f"{name}:cpu", "--epochs", "300", "--json"],
                      tmp_path / "data")
    assert trained.returncode == 0, trained.stderr
    record = json.loads(trained.stdout)
    assert record["status"] == "completed" and record["epochs_completed"] == 300
    placed = re.fullmatch(rf"Slurm job (\d+) on {node}, CUDA_VISIBLE_DEVICES=\d",
                          record["env"]["host_placement"])
    assert placed, record["env"]
    # Each command's connection was a job of its own, ended with the command.
    jobs = {said[1], placed[1]}
    assert len(jobs) == 2
    jobs_end(slurm, *jobs)


def added_docs_host(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The docs' example added as ``name`` through the CLI, into this test's own hosts file."""
    monkeypatch.setenv("IRIS_GUI_CONFIG_DIR", str(tmp_path / "config" / "iris-gui"))
    words = docs_example()
    words[2:4] = [name, "iris-test"]  # the loopback sshd's alias for the docs' login node
    added = run_cli([*words, "--command", PYTHON_IRIS_GUI], tmp_path / "data")
    assert added.returncode == 0, added.stderr


def test_a_sweep_on_two_jobs_at_once_measures_every_point_once(
        ssh_config_env: str, slurm: Cluster, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    added_docs_host("hpcs", tmp_path, monkeypatch)
    rows = [120, 1_000, 2_000, 5_000]
    done = run_cli(["sweep", "--devices", "hpcs:cpu", "--engines", "eager,lean", "--threads",
                    "1", "--rows", ",".join(map(str, rows)), "--min-seconds", "0.05",
                    "--parallel", "2", "--json"], tmp_path / "data")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "completed", result["message"]
    # In the sweep's order, whichever job measured them: rows x series, each once.
    assert [(p["rows"], p["engine"]) for p in result["points"]] == \
        [(r, e) for r in rows for e in ("eager", "lean")]
    assert all(p["device"] == "hpcs:cpu" and p["status"] == "completed"
               for p in result["points"])
    jobs = result["env"]["hosts"]["hpcs"]["jobs"]
    assert len(jobs) == 2 and all(j.startswith("Slurm job ") for j in jobs), jobs
    node = slurm.script.node_name(slurm.root)
    assert any(n.endswith("measured each other (on a cluster, --exclusive in the prefix gives "
                          "each job a node of its own)") and f"({node})" in n
               for n in result["notes"]), result["notes"]
    jobs_end(slurm, *placed_jobs(jobs))


def test_a_job_cancelled_mid_sweep_gives_its_size_to_another_job(
        ssh_config_env: str, slurm: Cluster) -> None:
    host = docs_host("hpcp").host
    # Each slot's runner, as its thread made it: the observer hears a point in the thread of
    # the job that measured it.
    made = threading.local()

    def runner(of: Host) -> RemoteRunner:
        made.runner = RemoteRunner(of)
        return made.runner

    pool = JobPool(host, 2, runner=runner)
    cancelled: list[str] = []

    def observe(point: object, done: int, total: int) -> None:
        # The first point of a size: its second series has 1.5 s to go on that job.
        if not cancelled:
            cancelled.append(made.runner.placement["SLURM_JOB_ID"])
            slurm.command("scancel", cancelled[0])

    # Two sizes, one a job: the cancelled job's size is the one left to measure again.
    spec = SweepSpec(rows=(120, 500), hidden=(10,), devices=("hpcp:cpu",),
                     engines=("eager", "lean"), threads=("1",), min_seconds=1.5)
    try:
        result = pool.sweep(spec, observe)
    finally:
        pool.close()
    assert result.status == "completed", result.message
    assert [(p.rows, p.engine) for p in result.points] == \
        [(r, e) for r in spec.rows for e in ("eager", "lean")]
    again = [n for n in result.notes if n.startswith(f"job {cancelled[0]} ended while measuring")]
    assert len(again) == 1 and again[0].endswith("that size was measured again on another job")
    assert f"Slurm cancelled job {cancelled[0]} (scancel)" in again[0], again
    assert len(result.env["jobs"]) == 3  # the cancelled job's slot went on with a new one
    # The two jobs still connected when the sweep ended were ended by closing their
    # connections: nothing is left running on the cluster.
    jobs_end(slurm, *placed_jobs(result.env["jobs"]))


def test_the_controller_down_mid_run_and_at_connect(
        ssh_config_env: str, slurm: Cluster, time_limited: Future) -> None:
    # The time-limited job must have ended first: a job that Slurm ends while slurmctld is
    # down is left completing, and its node with it, long after the controller is back. Late
    # in the file, that end is long past.
    _, limited = time_limited.result(timeout=200)
    jobs_end(slurm, limited)
    running = docs_host("hpc5")
    later = docs_host("hpc6")
    chunks: list = []

    down_at: list[float] = []

    def observe(chunk: Any) -> None:
        chunks.append(chunk)
        if len(chunks) == 1:
            slurm.script.stop_daemon(slurm.root, "slurmctld")
            down_at.append(time.time())
        elif chunk.stamp > down_at[0]:  # trained on the host after the controller was gone
            running.request_stop()

    try:
        running.start()
        # A job that runs needs only its node: the run goes on without the controller, and
        # still answers a stop.
        result = running.run(RunConfig(epochs=2_000_000, device="hpc5:cpu"), observe)
        assert result.status is RunStatus.STOPPED, result.message
        assert chunks[-1].stamp > down_at[0] and result.epochs_completed < 2_000_000
        with pytest.raises(WorkerError) as refused:
            later.start(timeout=60)
    finally:
        running.close()
        later.close()
        slurm.script.start_daemon(slurm.root, "slurmctld")
        slurm.script.wait_until_idle(slurm.root)
    message = str(refused.value)
    assert message.startswith("hpc6: the connection to iris-test ended (exit code 1): srun: ")
    assert "Unable to contact slurm controller" in message and "\n" not in message


def test_closing_a_connection_whose_job_is_queued_cancels_the_job(
        ssh_config_env: str, slurm: Cluster) -> None:
    node = slurm.script.node_name(slurm.root)
    runner = docs_host("hpc7")
    slurm.command("scontrol", "update", f"nodename={node}", "state=drain", "reason=iris-test")
    try:
        with ThreadPoolExecutor(1) as pool:
            connecting = pool.submit(runner.start, 60)
            job = str(wait_for(lambda: runner.queued, 30, "srun to say the job is queued"))
            assert job in slurm.jobs()
            runner.close()  # as the window's close does, from another thread
            with pytest.raises(WorkerError):
                connecting.result(timeout=30)
    finally:
        runner.close()
        slurm.command("scontrol", "update", f"nodename={node}", "state=resume")
    jobs_end(slurm, job)


def test_a_run_at_its_jobs_time_limit_is_kept_as_stopped_and_names_the_limit(
        time_limited: Future, slurm: Cluster) -> None:
    # Slurm's next check of the limit (30 s), KillWait (10 s), a batch: well inside.
    result, job = time_limited.result(timeout=200)
    assert result.status is RunStatus.STOPPED, result.message
    assert 0 < result.epochs_completed < 10_000_000
    assert len(result.losses) == -(-result.epochs_completed // result.loss_stride)
    assert result.message.endswith(f": Slurm cancelled job {job} at its time limit"), \
        result.message
    jobs_end(slurm, job)


def test_a_worker_whose_srun_was_killed_with_the_controller_down_ends(
        ssh_config_env: str, slurm: Cluster, time_limited: Future) -> None:
    """srun killed while slurmctld is down: the step daemon keeps the worker's stdin open, so no
    end of file tells the worker that its client is gone. It hears no ``alive`` and ends all
    the same: here after 3 s (IRIS_GUI_FAULT's client-silence), a minute in the product, where
    it had run on for five minutes and more. Closing the lost connection cancels the job its
    srun had started, which would otherwise hold its allocation until its time limit."""
    _, limited = time_limited.result(timeout=200)  # as the controller-down test above: ended
    jobs_end(slurm, limited)
    name = "--job-name=iris-srun-killed"
    runner = docs_host("hpc9", prefix=f"{docs_prefix()} {name}")
    runner.host = replace(runner.host,
                          command=f"env {FAULT_ENV}=client-silence:3 {PYTHON_IRIS_GUI}")
    down = False
    try:
        runner.start()
        worker, job = runner.remote_pid, runner.placement["SLURM_JOB_ID"]
        slurm.script.stop_daemon(slurm.root, "slurmctld")
        down = True
        killed = [pid for pid in _processes_with(b"srun", name.encode()) if _kill(pid)]
        assert killed, "no srun of this connection to kill"
        # Back before the worker ends: a job ended while the controller is down stays
        # completing, and its node with it.
        slurm.script.start_daemon(slurm.root, "slurmctld")
        down = False
        deadline = time.monotonic() + 30
        while running(worker) and time.monotonic() < deadline:
            time.sleep(0.1)  # a poll for the worker's end
        assert not running(worker), f"worker {worker} runs on with its srun killed"
    finally:
        runner.close()
        if down:
            slurm.script.start_daemon(slurm.root, "slurmctld")
        slurm.script.wait_until_idle(slurm.root)
    jobs_end(slurm, job)


def _processes_with(*words: bytes) -> list[int]:
    """The processes here whose command lines hold each of ``words``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            words_of = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError):
            continue
        if entry.name.isdigit() and all(any(w in part for part in words_of) for w in words):
            found.append(int(entry.name))
    return found


def _kill(pid: int) -> bool:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True
