#!/usr/bin/env python3
"""A one-node Slurm cluster on this machine, for the remote tests (and for trying a prefix).

    python3 scripts/slurm_cluster.py start DIR    # munged, slurmctld, slurmd; prints SLURM_CONF
    python3 scripts/slurm_cluster.py stop DIR     # by their pid files

Everything the cluster keeps is under DIR: munge's key, socket, pid and log; slurm.conf and
gres.conf; the controller's state, the node's spool, the logs and pid files. Nothing is written
to /etc: a command finds the cluster through ``SLURM_CONF=DIR/slurm.conf`` (an ssh login gets
it from the test sshd's ``environment=``, as a cluster's login node sets it for its users).
Traffic stays on 127.0.0.1, on ports chosen free at start. The node is this machine as
``slurmd -C`` describes it, with four fake GPUs as GRES: character devices (``/dev/null``'s
numbers; Slurm refuses a plain file), so ``--gres=gpu:1`` sets ``CUDA_VISIBLE_DEVICES``. Its
cores are shared by up to four jobs (the tests hold a connection, a run at its time limit and
a sweep's two jobs at once on a machine of two cores); a GPU is never shared.

It needs root (the daemons run as root, ``SlurmUser=root``) and Debian's ``slurmctld``,
``slurmd``, ``slurm-client`` and ``munge``. KillWait is 10 s: time for a job's worker to stop at
its next chunk after Slurm's SIGTERM, before the SIGKILL.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

DAEMONS = ("slurmd", "slurmctld", "munged")  # stopped in this order
TOOLS = ("munged", "mungekey", "slurmctld", "slurmd", "srun", "squeue", "sinfo", "scontrol",
         "scancel")
READY_SECONDS = 60.0
KILL_WAIT = 10
GPUS = 4
JOBS_PER_CORE = 4


class ClusterError(RuntimeError):
    """The cluster did not start; the message ends with the tail of the daemon's log."""


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool, path=_path()) is None]


def _path() -> str:
    return os.environ.get("PATH", "") + ":/usr/sbin:/sbin"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _node_line() -> str:
    """``NodeName=... CPUs=... RealMemory=...`` as slurmd finds this machine."""
    found = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True,
                           env={**os.environ, "PATH": _path()}, timeout=60)
    line = found.stdout.splitlines()[0]
    return " ".join(word for word in line.split() if not word.startswith("UpTime"))


def node_name(root: Path) -> str:
    line = (root / "node").read_text()
    return line.split()[0].split("=", 1)[1]


def environment(root: Path) -> dict[str, str]:
    """The environment a Slurm command needs to reach this cluster."""
    return {**os.environ, "SLURM_CONF": str(root / "slurm.conf"), "PATH": _path()}


def _write_configs(root: Path) -> None:
    node = _node_line()
    (root / "node").write_text(node)
    name = node.split()[0].split("=", 1)[1]
    devices = root / "dev"
    devices.mkdir(exist_ok=True)
    for index in range(GPUS):
        gpu = devices / f"gpu{index}"
        if not gpu.exists():
            os.mknod(gpu, 0o666 | 0o020000, os.makedev(1, 3))  # a character device, as /dev/null
    for folder in ("state", "spool", "log"):
        (root / folder).mkdir(exist_ok=True)
    munge_socket = root / "munge" / "munge.socket"
    conf = [
        "ClusterName=iris-test",
        f"SlurmctldHost={name}(127.0.0.1)",
        f"SlurmctldPort={_free_port()}",
        f"SlurmdPort={_free_port()}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={munge_socket}",
        f"StateSaveLocation={root / 'state'}",
        f"SlurmdSpoolDir={root / 'spool'}",
        f"SlurmctldPidFile={root / 'slurmctld.pid'}",
        f"SlurmdPidFile={root / 'slurmd.pid'}",
        f"SlurmctldLogFile={root / 'log' / 'slurmctld.log'}",
        f"SlurmdLogFile={root / 'log' / 'slurmd.log'}",
        "SlurmctldDebug=info",
        "SlurmdDebug=info",
        "ProctrackType=proctrack/pgid",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/none",
        "MpiDefault=none",
        "SwitchType=switch/none",
        "SchedulerType=sched/builtin",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core",
        "ReturnToService=2",
        "GresTypes=gpu",
        f"KillWait={KILL_WAIT}",
        "InactiveLimit=0",
        "MinJobAge=10",
        "MessageTimeout=4",
        "SlurmctldTimeout=30",
        "SlurmdTimeout=30",
        f"{node} NodeAddr=127.0.0.1 NodeHostname={name} Gres=gpu:{GPUS} State=UNKNOWN",
        ("PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP "
         f"OverSubscribe=FORCE:{JOBS_PER_CORE}"),
    ]
    (root / "slurm.conf").write_text("\n".join(conf) + "\n")
    (root / "gres.conf").write_text(
        f"NodeName={name} Name=gpu File={devices}/gpu[0-{GPUS - 1}]\n")


def _start_munge(root: Path) -> None:
    folder = root / "munge"
    folder.mkdir(exist_ok=True)
    # munged refuses a socket whose folders others cannot reach.
    for path in (root, folder):
        path.chmod(0o755)
    key = folder / "munge.key"
    if not key.exists():
        subprocess.run(["mungekey", "--create", f"--keyfile={key}"], check=True,
                       env=environment(root), capture_output=True, timeout=30)
    key.chmod(0o400)
    subprocess.run(["munged", f"--socket={folder / 'munge.socket'}", f"--key-file={key}",
                    f"--pid-file={root / 'munged.pid'}", f"--log-file={folder / 'munged.log'}",
                    f"--seed-file={folder / 'munged.seed'}", "--force"],
                   check=True, env=environment(root), capture_output=True, timeout=30)


def _log_tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no {path.name})"


def _daemon(root: Path, name: str) -> None:
    done = subprocess.run([name, "-f", str(root / "slurm.conf")], env=environment(root),
                          capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        raise ClusterError(f"{name} exited with {done.returncode}: {done.stderr.strip()}\n"
                           + _log_tail(root / "log" / f"{name}.log"))


READY_STATES = ("idle", "mix", "alloc")  # the node answers (a trailing '*' says it does not)


def wait_until_idle(root: Path, timeout: float = READY_SECONDS) -> None:
    """Poll until the node takes jobs (idle, or running some already), or raise with the
    logs' tails."""
    deadline = time.monotonic() + timeout
    delay = 0.05
    while True:
        state = subprocess.run(["sinfo", "-h", "-o", "%t"], env=environment(root),
                               capture_output=True, text=True, timeout=30,
                               check=False).stdout.strip()
        if state in READY_STATES:
            return
        if time.monotonic() > deadline:
            raise ClusterError(
                f"the node is {state or 'not known'} after {timeout:.0f} s\n"
                + _log_tail(root / "log" / "slurmctld.log") + "\n"
                + _log_tail(root / "log" / "slurmd.log"))
        time.sleep(delay)
        delay = min(delay * 2, 0.25)


def start(root: Path) -> Path:
    """Start the cluster under ``root``; returns its slurm.conf once the node is idle."""
    if os.geteuid() != 0:
        raise ClusterError("a test cluster's daemons run as root: run this as root")
    missing = missing_tools()
    if missing:
        raise ClusterError(f"not installed: {', '.join(missing)} (Debian: slurmctld slurmd "
                           "slurm-client munge)")
    root.mkdir(parents=True, exist_ok=True)
    try:
        _write_configs(root)
        _start_munge(root)
        _daemon(root, "slurmctld")
        _daemon(root, "slurmd")
        wait_until_idle(root)
    except BaseException:
        stop(root)
        raise
    return root / "slurm.conf"


def start_daemon(root: Path, name: str) -> None:
    """Start one of the cluster's daemons again (after ``stop_daemon``)."""
    _daemon(root, name)


def stop_daemon(root: Path, name: str, timeout: float = 20.0) -> None:
    """SIGTERM the daemon named in its pid file and wait until it has gone."""
    pid_file = root / f"{name}.pid"
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pid_file.unlink(missing_ok=True)
        return
    deadline = time.monotonic() + timeout
    while _running(pid):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    pid_file.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return status.rsplit(")", 1)[1].split()[0] != "Z"


def stop(root: Path) -> None:
    for name in DAEMONS:
        stop_daemon(root, name)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: slurm_cluster.py start|stop DIR", file=sys.stderr)
        return 2
    root = Path(argv[1]).resolve()
    if argv[0] == "stop":
        stop(root)
        return 0
    try:
        conf = start(root)
    except (ClusterError, subprocess.SubprocessError, OSError) as error:
        print(f"the test cluster did not start: {error}", file=sys.stderr)
        return 1
    print(f"SLURM_CONF={conf}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
