"""RemoteRunner and HostRunners through a real sshd on 127.0.0.1 (tests/support/sshd.py).

The "remote" side is this machine, reached through ssh with the harness's keys and config; its
PATH is sshd's default, so the hosts here name this venv's Python as their command. A worker
takes seconds to start (it imports torch), so one connection (``lab``, launched through the
real ``srun`` of tests/support/slurm.py's one-node cluster where it runs, else straight) is
shared, and the two tests that end it (a killed ssh, a close) come
last; the fake workers (a banner, a version mismatch, a deaf host) need no torch and have their
own connections.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from support.slurm import Cluster, slurm_if_here
from support.sshd import LoopbackSshd, alive, wait_for

from iris_gui import __version__
from iris_gui.engine.jobs.places import Places
from iris_gui.engine.jobs.service import JobService
from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.records.sweep_model import SweepSpec
from iris_gui.engine.remote.host_runners import HostRunners
from iris_gui.engine.remote.hosts import Host
from iris_gui.engine.remote.protocol import PROTOCOL, HandshakeError
from iris_gui.engine.remote.runner import RemoteRunner
from iris_gui.engine.remote.ssh import SETUP_VENV, SSH_CONFIG_ENV
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import EngineError
from iris_gui.engine.workers.in_process import InProcessRunner
from iris_gui.engine.workers.runner import STOP_GRACE_SECONDS, WorkerError

PYTHON_IRIS_GUI = f"{shlex.quote(sys.executable)} -m iris_gui"
LONG = 2_000_000  # epochs: a run that is still going when a test ends it

__all__ = ["slurm_if_here"]


def cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().rstrip("\0").split("\0")


def lab_host(**changes: str) -> Host:
    return Host(**{"name": "lab", "destination": "iris-test", "command": PYTHON_IRIS_GUI,
                   **changes})


class Chunks:
    """An observer that keeps the chunks and says when ``count`` of them arrived."""

    def __init__(self, count: int = 1, then: Callable[[], None] | None = None) -> None:
        self.chunks: list[Chunk] = []
        self.count, self.then = count, then
        self.enough = threading.Event()

    def __call__(self, chunk: Chunk) -> None:
        self.chunks.append(chunk)
        if len(self.chunks) == self.count:
            self.enough.set()
            if self.then is not None:
                self.then()


@pytest.fixture(scope="module")
def ssh_env(sshd: LoopbackSshd) -> Iterator[str]:
    """IRIS_GUI_SSH_CONFIG for the whole module (the shared connection outlives a test)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SSH_CONFIG_ENV, str(sshd.config_path))
        yield str(sshd.config_path)


@pytest.fixture(scope="module")
def hosts(ssh_env: str, slurm_if_here: Cluster | str) -> Iterator[HostRunners]:
    """The shared host, launched through srun with options of its own where the test cluster
    runs (srun forwards the job's output a line at a time), else straight through ssh."""
    prefix = "srun --gres=gpu:1 --comment='two words'" if isinstance(slurm_if_here, Cluster) \
        else ""
    runners = HostRunners([lab_host(prefix=prefix)])
    try:
        yield runners
    finally:
        runners.close()


@pytest.fixture
def lab(hosts: HostRunners) -> RemoteRunner:
    """The shared connection, connected (again, if a test ended it)."""
    runner = hosts.for_device("lab:cpu")
    assert runner is not None
    runner.start()
    return runner


@pytest.fixture
def own_runners(ssh_env: str) -> Iterator[list[RemoteRunner]]:
    """Runners a test makes for itself; closed afterwards, whatever happened."""
    made: list[RemoteRunner] = []
    yield made
    for runner in made:
        runner.close()


# -- connecting -----------------------------------------------------------------------------


def test_discovery_lists_the_hosts_devices(hosts: HostRunners, lab: RemoteRunner) -> None:
    assert hosts.for_device("cpu") is None
    assert hosts.for_device("lab:cuda:0") is lab
    ids = [d.id for d in lab.devices]
    assert ids[0] == "lab:cpu" and all(i.startswith("lab:") for i in ids)
    cpu = lab.devices[0]
    assert cpu.kind == "cpu" and cpu.name
    assert cpu.engines.get("eager", "missing") is None
    assert lab.torch_version
    assert lab.remote_pid > 0 and lab.remote_pid != os.getpid()
    assert alive(lab.remote_pid)
    words = cmdline(lab.remote_pid)
    assert words[-2:] == ["worker", "--stdio"], words
    assert lab.start() == lab.devices, "a second start reconnected"
    assert [d.id for d in lab.refresh_devices()] == ids


# -- training -------------------------------------------------------------------------------


def test_a_run_through_ssh_equals_the_local_run(lab: RemoteRunner) -> None:
    from iris_gui.engine.train.trainer import train

    config = RunConfig(epochs=1500, seed=5, device="lab:cpu", engine="eager", threads=1)
    observer = Chunks()
    remote = lab.run(config, observer)
    local = train(config.replace(device="cpu"))
    assert remote.status is RunStatus.COMPLETED, remote.message
    assert local.status is RunStatus.COMPLETED
    assert remote.epochs_completed == local.epochs_completed == 1500
    assert remote.losses.dtype == np.float32 and len(remote.losses) == 1500
    # the same engine on the same machine and torch: bit for bit
    assert np.array_equal(remote.losses, local.losses)
    assert remote.final_loss == local.final_loss
    assert remote.train_accuracy == local.train_accuracy
    assert remote.config.device == "lab:cpu" and remote.config == config
    assert remote.env.host == "lab" and remote.env.execution == "ssh"
    assert remote.env.host_destination == "iris-test" and remote.env.device == "lab:cpu"
    assert remote.env.torch_version == local.env.torch_version
    assert remote.timings.epoch_us > 0
    # the live curve: chunks through the observer, adding up to the stored curve
    assert len(observer.chunks) >= 2
    assert observer.chunks[-1].epochs_done == 1500
    assert np.array_equal(np.concatenate([c.losses for c in observer.chunks]), remote.losses)


def test_the_notes_four_recordings_in_turn_all_complete_through_ssh(lab: RemoteRunner) -> None:
    """every:200's chunks between its recorded epochs hold no loss: the reader takes them, and
    each run after reads only its own messages."""
    for record in ("every-epoch", "every:200", "device", "none", "every-epoch"):
        observer = Chunks()
        result = lab.run(RunConfig(epochs=3000, device="lab:cpu", record=record), observer)
        assert result.status is RunStatus.COMPLETED, f"{record}: {result.message}"
        stride = result.config.recording.stride
        assert result.loss_stride == stride and observer.chunks[-1].epochs_done == 3000
        assert len(result.losses) == (0 if record == "none" else -(-3000 // stride))
        assert np.array_equal(np.concatenate([c.losses for c in observer.chunks]), result.losses)


def test_a_cnn_through_ssh_is_the_local_cnn(lab: RemoteRunner) -> None:
    """Only settings cross: the host builds the same model from the same seed, and its
    result (its parameters and FLOPs counted there) passes every check of the way back."""
    from iris_gui.engine.train.trainer import train

    config = RunConfig(model="cnn", dataset="digits", width=2, depth=1, epochs=3, lr=0.1,
                       device="lab:cpu")
    remote, local = lab.run(config), train(config.replace(device="cpu"))
    assert remote.status is RunStatus.COMPLETED, remote.message
    assert np.array_equal(remote.losses, local.losses)
    assert (remote.parameters, remote.flops_per_step) == (local.parameters, local.flops_per_step)
    assert remote.config == config and remote.env.host == "lab"


def test_a_worker_told_to_end_stops_its_run_and_sends_it_back(
        own_runners: list[RemoteRunner]) -> None:
    """SIGTERM on the host (a scheduler ending the job) stops the run at its next chunk: the
    epochs trained come back as ``stopped``, and the worker then ends. Sent as Slurm sends it
    at a time limit (SIGTERM, SIGCONT, SIGTERM at once): the second changes nothing."""
    runner = RemoteRunner(lab_host(name="ending"))
    own_runners.append(runner)
    runner.start()
    pid = runner.remote_pid

    def as_slurm_ends_a_job() -> None:
        for signum in (signal.SIGTERM, signal.SIGCONT, signal.SIGTERM):
            os.kill(pid, signum)

    observer = Chunks(then=as_slurm_ends_a_job)
    result = runner.run(RunConfig(epochs=LONG, device="ending:cpu"), observer)
    assert result.status is RunStatus.STOPPED, result.message
    assert 0 < result.epochs_completed < LONG == result.config.epochs
    assert len(result.losses) == result.epochs_completed
    assert result.message.endswith(": ending ended the worker (SIGTERM)"), result.message
    wait_for(lambda: not alive(pid), 10, "the worker to end after its answer")

def test_a_refused_config_is_a_config_error(lab: RemoteRunner) -> None:
    pid = lab.remote_pid
    with pytest.raises(EngineError, match="^lab: "):
        lab.run(RunConfig(epochs=10, device="lab:cuda:7"))
    assert lab.alive and lab.remote_pid == pid


def test_stop_from_another_thread_within_the_grace(lab: RemoteRunner) -> None:
    pid = lab.remote_pid
    pressed: list[float] = []

    def press() -> None:
        pressed.append(time.monotonic())
        lab.request_stop()

    observer = Chunks(then=lambda: threading.Thread(target=press).start())
    result = lab.run(RunConfig(epochs=LONG, device="lab:cpu"), observer)
    ended = time.monotonic()
    assert pressed, "no chunk arrived"
    assert result.status is RunStatus.STOPPED, result.message
    assert ended - pressed[0] < STOP_GRACE_SECONDS
    assert 0 < result.epochs_completed < LONG
    assert len(result.losses) == result.epochs_completed
    assert result.env.host == "lab" and result.config.device == "lab:cpu"
    # the connection is kept, and the next run is not stopped by the old stop
    assert lab.alive and lab.remote_pid == pid
    again = lab.run(RunConfig(epochs=50, device="lab:cpu"))
    assert again.status is RunStatus.COMPLETED and again.epochs_completed == 50


def test_the_job_service_turns_a_stop_callable_into_the_hosts_stop(hosts: HostRunners,
                                                                   lab: RemoteRunner) -> None:
    observer = Chunks(count=2)
    service = JobService(Places(InProcessRunner(), hosts, "in-process"))
    kept = service.run(RunConfig(epochs=LONG, device="lab:cpu"), observer,
                       observer.enough.is_set)
    result = kept.result
    assert kept.run_id is None  # no keeper given: nothing saved
    assert result.status is RunStatus.STOPPED
    assert len(observer.chunks) >= 2 and result.epochs_completed < LONG
    assert lab.alive


def test_explain_on_the_host(lab: RemoteRunner) -> None:
    breakdown = lab.explain(RunConfig(device="lab:cpu", engine="eager"), 20)
    assert isinstance(breakdown, dict)
    assert breakdown["epochs_profiled"] == 20
    assert breakdown["epoch_us_unprofiled"] > 0 and breakdown["epoch_us_profiled"] > 0
    assert breakdown["config"]["engine"] == "eager"
    assert breakdown["categories"], breakdown
    assert lab.alive


def test_a_sweep_across_this_machine_and_the_host(hosts: HostRunners, lab: RemoteRunner) -> None:
    spec = SweepSpec(rows=(100, 1000), hidden=(10,), devices=("cpu", "lab:cpu"),
                     engines=("eager",), threads=("1",), min_seconds=0.05, min_epochs=5)
    seen: list[tuple[str, int, int]] = []
    begun: list[tuple[int, int]] = []
    service = JobService(Places(InProcessRunner(), hosts, "in-process"))
    kept = service.sweep(spec, lambda point, done, total: seen.append((point.device, done, total)),
                         lambda done, total: begun.append((done, total)))
    result = kept.result
    assert kept.sweep_id is None
    # Each point's start heard before it, here and through the host's worker, counted alike.
    assert [done for done, _ in begun] == [0, 1, 2, 3] and begun[-1][1] == 4
    assert result.status == "completed", result.message
    assert {(p.device, p.rows) for p in result.points} == {
        ("cpu", 100), ("cpu", 1000), ("lab:cpu", 100), ("lab:cpu", 1000)}
    assert all(p.status == "completed" and p.epoch_us > 0 for p in result.points)
    series = {p.device: p.series for p in result.points}
    assert {f.series for f in result.fits} == set(series.values())
    assert any({c.a, c.b} == set(series.values()) for c in result.crossovers), result.crossovers
    assert len(result.notes) == len(set(result.notes)), result.notes
    assert result.env["hosts"]["lab"]["host"] == "lab"
    assert [d for d, _, _ in seen] == ["cpu", "cpu", "lab:cpu", "lab:cpu"]
    assert [done for _, done, _ in seen] == [1, 2, 3, 4] and seen[-1][2] == 4
    assert lab.alive


def test_the_launch_prefix_is_used(lab: RemoteRunner, slurm_if_here: Cluster | str) -> None:
    if not isinstance(slurm_if_here, Cluster):
        pytest.skip(slurm_if_here)
    job = lab.placement["SLURM_JOB_ID"]
    assert job in slurm_if_here.jobs()
    # ssh's quoting keeps the prefix's words apart: srun got the comment as one word
    comment = slurm_if_here.command("squeue", "-h", "-j", job, "-o", "%k").strip()
    assert comment == "two words"
    assert "CUDA_VISIBLE_DEVICES" in lab.placement  # --gres=gpu:1 reached the worker
    result = lab.run(RunConfig(epochs=200, device="lab:cpu"))
    assert result.status is RunStatus.COMPLETED and result.epochs_completed == 200
    assert result.env.host == "lab" and result.env.host_placement.startswith(f"Slurm job {job}")


def test_a_prefix_that_buffers_by_line_works(own_runners: list[RemoteRunner]) -> None:
    runner = RemoteRunner(lab_host(name="lined", prefix="stdbuf -oL -eL"))
    own_runners.append(runner)
    assert next(d.id for d in runner.start()) == "lined:cpu"
    result = runner.run(RunConfig(epochs=300, device="lined:cpu"))
    assert result.status is RunStatus.COMPLETED and len(result.losses) == 300


# -- refusals -------------------------------------------------------------------------------


def test_an_unknown_host_key_is_refused_and_not_recorded(sshd: LoopbackSshd,
                                                        ssh_env: str) -> None:
    assert sshd.empty_known_hosts_path.read_bytes() == b""
    runner = RemoteRunner(Host("unk", "iris-unknown", command=PYTHON_IRIS_GUI))
    with pytest.raises(WorkerError) as caught:
        runner.start()
    message = str(caught.value)
    assert "not known" in message and "`ssh iris-unknown`" in message, message
    assert message.startswith("unk: ") and "\n" not in message
    assert not runner.alive
    assert sshd.empty_known_hosts_path.read_bytes() == b""


def test_a_key_that_is_not_authorized_is_one_line(ssh_env: str) -> None:
    runner = RemoteRunner(Host("nokey", "iris-nokey", command=PYTHON_IRIS_GUI))
    with pytest.raises(WorkerError, match="refused the login.*ssh-copy-id iris-nokey"):
        runner.start()


def test_a_host_without_iris_gui_says_to_set_it_up(sshd: LoopbackSshd, ssh_env: str) -> None:
    assert not (sshd.home / SETUP_VENV).exists(), "a setup was left behind in the harness home"
    runner = RemoteRunner(Host("lab", "iris-test"))
    with pytest.raises(WorkerError) as caught:
        runner.start()
    message = str(caught.value)
    assert "iris-gui is not installed on iris-test" in message, message
    assert "`iris-gui hosts setup lab`" in message and "\n" not in message
    assert not runner.alive


def test_a_missing_command_is_named(ssh_env: str) -> None:
    runner = RemoteRunner(Host("lab", "iris-test", command="/nonexistent/python -m iris_gui"))
    with pytest.raises(WorkerError, match="the command '/nonexistent/python -m iris_gui' was not "
                                          "found on iris-test"):
        runner.start()


def test_a_host_whose_python_has_no_torch_says_so(ssh_env: str) -> None:
    """The real worker, started where ``import torch`` fails: it answers ``refused``."""
    code = ("import sys; sys.modules['torch'] = None; "
            "from iris_gui.engine.remote.stdio_worker import main; main()")
    runner = RemoteRunner(Host("lab", "iris-test", command=shlex.join([sys.executable, "-c",
                                                                       code])))
    with pytest.raises(HandshakeError) as caught:
        runner.start()
    message = str(caught.value)
    assert message.startswith("lab: torch cannot be imported by ") and "\n" not in message
    assert "give the host the Python that has torch" in message
    assert not runner.alive


FAKE_WORKER = Path(__file__).resolve().parents[1] / "support" / "fake_worker.py"


def fake_host(product: str, protocol: int = PROTOCOL, mode: str = "") -> Host:
    """A host whose worker is tests/support/fake_worker.py in ``mode``."""
    return lab_host(command=shlex.join([sys.executable, str(FAKE_WORKER), product, str(protocol),
                                        mode or "plain"]))


def test_a_banner_before_the_worker_is_skipped(own_runners: list[RemoteRunner]) -> None:
    runner = RemoteRunner(fake_host(__version__))
    own_runners.append(runner)
    devices = runner.start()
    assert [(d.id, d.name) for d in devices] == [("lab:cpu", "Fake CPU")]
    assert runner.torch_version == "0.0-fake"
    pid = runner.remote_pid
    assert alive(pid)
    runner.close()
    wait_for(lambda: not alive(pid), 5, "the fake worker to quit")


@pytest.mark.parametrize(("product", "protocol"), [("0.0.1", PROTOCOL), (__version__, 99)])
def test_a_version_mismatch_names_both_versions_and_the_fix(
        own_runners: list[RemoteRunner], product: str, protocol: int) -> None:
    runner = RemoteRunner(fake_host(product, protocol))
    own_runners.append(runner)
    with pytest.raises((HandshakeError, WorkerError)) as caught:
        runner.start()
    message = str(caught.value)
    assert f"lab runs iris-gui {product} (protocol {protocol})" in message, message
    assert f"this is iris-gui {__version__} (protocol {PROTOCOL})" in message
    assert "`iris-gui hosts setup lab`" in message and "\n" not in message
    assert not runner.alive, "the connection to a mismatched worker was kept"


def test_a_stop_the_host_does_not_answer_closes_the_connection(
        own_runners: list[RemoteRunner]) -> None:
    runner = RemoteRunner(fake_host(__version__, mode="deaf"))
    own_runners.append(runner)
    runner.start()
    pid = runner.remote_pid
    observer = Chunks(then=lambda: threading.Thread(target=runner.request_stop,
                                                    args=(0.3,)).start())
    began = time.monotonic()
    result = runner.run(RunConfig(epochs=100, device="lab:cpu"), observer)
    assert time.monotonic() - began < 5
    assert result.status is RunStatus.STOPPED
    assert "lab did not answer within 0.3 s and the connection was closed" in result.message
    assert result.epochs_completed == 2 and result.losses.tolist() == [1.0, 0.5]
    # kept as a run on the host, as every other ending is
    assert result.config.device == "lab:cpu"
    assert result.env.host == "lab" and result.env.execution == "ssh"
    assert not runner.alive
    wait_for(lambda: not alive(pid), 5, "the deaf worker to end with its connection")


# -- connections that end (last: they end the shared connection) -------------------------


def test_a_killed_connection_keeps_the_epochs_and_leaves_no_orphan(lab: RemoteRunner) -> None:
    runner = lab
    pid = runner.remote_pid
    assert alive(pid)
    ssh = runner._process
    observer = Chunks(count=3, then=ssh.kill)
    result = runner.run(RunConfig(epochs=LONG, device="lab:cpu"), observer)
    assert result.status is RunStatus.FAILED
    epochs = observer.chunks[-1].epochs_done
    assert epochs > 0
    assert result.message.startswith(f"connection to lab lost at epoch {epochs:,} ("), \
        result.message
    assert result.epochs_completed == epochs < LONG
    assert np.array_equal(result.losses, np.concatenate([c.losses for c in observer.chunks]))
    assert result.env.host == "lab" and result.config.device == "lab:cpu"
    wait_for(lambda: not alive(pid), 5, f"the remote worker {pid} to end")
    assert ssh.poll() is not None


def test_close_during_a_run_ends_the_remote_worker_within_two_seconds(
        lab: RemoteRunner) -> None:
    runner = lab  # connected again after the test above killed its connection
    pid = runner.remote_pid
    observer = Chunks()
    results = []
    thread = threading.Thread(
        target=lambda: results.append(runner.run(RunConfig(epochs=LONG, device="lab:cpu"),
                                                 observer)))
    thread.start()
    try:
        assert observer.enough.wait(30), "no chunk arrived"
        began = time.monotonic()
        runner.close()  # as the window's close does, from its own thread
        wait_for(lambda: not alive(pid), 2.0, f"the remote worker {pid} to end")
        assert time.monotonic() - began <= 2.0
    finally:
        thread.join(10)
    assert not thread.is_alive(), "the run did not end with its connection"
    # Closed on purpose: stopped, with what arrived, not a lost connection.
    assert results[0].status is RunStatus.STOPPED, results[0].message
    assert "connection to lab was closed" in results[0].message
    assert 0 < results[0].epochs_completed < LONG
    assert not runner.alive
