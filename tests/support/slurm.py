"""A real one-node Slurm for the remote tests: ``scripts/slurm_cluster.py``, started under a
temporary folder and reached through the loopback sshd, whose logins get its ``SLURM_CONF``.

Skipped, with the reason, where the daemons cannot run (not root, Slurm or munge not
installed); a failure where they are installed but do not start.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from support.sshd import LoopbackSshd

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "slurm_cluster.py"


def cluster_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("slurm_cluster", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Cluster:
    """The running cluster: its folder, and Slurm's commands pointed at it."""

    def __init__(self, script: ModuleType, root: Path) -> None:
        self.script, self.root = script, root
        self.conf = root / "slurm.conf"

    def command(self, *words: str) -> str:
        done = subprocess.run(list(words), env=self.script.environment(self.root),
                              capture_output=True, text=True, timeout=30, check=True)
        return done.stdout

    def try_command(self, *words: str) -> bool:
        """Whether the command succeeded (False, say, while slurmctld is stopped)."""
        try:
            self.command(*words)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            return False
        return True

    def jobs(self) -> list[str]:
        """The ids of the jobs Slurm knows as pending or running."""
        return self.command("squeue", "-h", "-o", "%i").split()


def skip_reason(script: ModuleType) -> str | None:
    if os.geteuid() != 0:
        return "a test cluster's daemons run as root, and these tests do not"
    missing = script.missing_tools()
    if missing:
        return f"Slurm is not installed here (no {', '.join(missing)})"
    return None


@contextlib.contextmanager
def started(script: ModuleType, sshd: LoopbackSshd) -> Iterator[Cluster]:
    """The cluster, started and reachable through ``sshd``; a failure if it does not start."""
    root = Path(tempfile.mkdtemp(prefix="iris-slurm-"))
    try:
        script.start(root)
    except script.ClusterError as error:
        script.stop(root)
        pytest.fail(f"Slurm is installed but the test cluster did not start: {error}",
                    pytrace=False)
    sshd.set_login_environment(SLURM_CONF=str(root / "slurm.conf"))
    try:
        yield Cluster(script, root)
    finally:
        sshd.set_login_environment()
        script.stop(root)
        subprocess.run(["rm", "-rf", str(root)], check=False)


@pytest.fixture(scope="module")
def slurm(sshd: LoopbackSshd) -> Iterator[Cluster]:
    script = cluster_script()
    reason = skip_reason(script)
    if reason is not None:
        pytest.skip(f"no test Slurm: {reason}")
    with started(script, sshd) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def slurm_if_here(sshd: LoopbackSshd) -> Iterator[Cluster | str]:
    """The cluster where it can run, else the reason it cannot (for a module whose tests
    mostly need only ssh: they go on without Slurm, and those that need it skip)."""
    script = cluster_script()
    reason = skip_reason(script)
    if reason is not None:
        yield f"no test Slurm: {reason}"
        return
    with started(script, sshd) as cluster:
        yield cluster
