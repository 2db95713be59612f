"""A Slurm host in the window: a job waiting in the queue is said in the status bar, and
closing the window cancels it (srun would wait on after ssh ended and start it later).

Through the real one-node Slurm of tests/support/slurm.py and the loopback sshd, with the
node drained so that the job queues; skipped, saying why, without root or Slurm.
"""

from __future__ import annotations

import re
import shlex
import sys

import pytest
from support.slurm import Cluster, slurm
from support.sshd import wait_for

from iris_gui.engine.remote.hosts import Host, add_host

__all__ = ["slurm"]

pytestmark = pytest.mark.slow

QUEUED_MS = 60_000
PREFIX = "srun --gres=gpu:1 --time=30"  # the docs' (tests/remote/test_slurm.py reads it there)


def test_a_queued_job_is_in_the_status_bar_and_closing_the_window_cancels_it(
        qtbot, open_window, hosts_file, ssh_config_env, slurm: Cluster) -> None:
    node = slurm.script.node_name(slurm.root)
    add_host(Host("hpcw", "iris-test", prefix=PREFIX,
                  command=f"{shlex.quote(sys.executable)} -m iris_gui"))
    slurm.command("scontrol", "update", f"nodename={node}", "state=drain", "reason=iris-test")
    try:
        window = open_window(worker="this process")
        qtbot.waitUntil(lambda: "Slurm's queue" in window.status.currentMessage(),
                        timeout=QUEUED_MS)
        said = re.fullmatch(r"hpcw: waiting in Slurm's queue \(job (\d+)\)…",
                            window.status.currentMessage())
        assert said, window.status.currentMessage()
        job = said[1]
        assert job in slurm.jobs()
        # The window carries on meanwhile: this machine's devices are listed and usable.
        assert window.controls.train_button.isEnabled()
        window.close()
        wait_for(lambda: job not in slurm.jobs(), 30, f"Slurm to forget job {job}")
    finally:
        slurm.command("scontrol", "update", f"nodename={node}", "state=resume")
