"""Slurm's lines about a job it ended, read into the words a stopped run keeps."""

from __future__ import annotations

from iris_gui.engine.remote.slurm import ended_by


def test_a_time_limit_a_cancel_and_a_preemption_are_named() -> None:
    stamp = "2026-12-03T19:06:06"
    time_limit = f"slurmstepd-vm: error: *** STEP 4.0 ON vm CANCELLED AT {stamp} DUE TO TIME " \
        "LIMIT ***"
    assert ended_by([time_limit]) == "Slurm cancelled job 4 at its time limit"
    assert ended_by(["srun: Job step aborted: Waiting up to 12 seconds for job step to finish.",
                     f"slurmstepd-vm: error: *** STEP 3.0 ON vm CANCELLED AT {stamp} ***",
                     "Terminated"]) == "Slurm cancelled job 3 (scancel)"
    preempted = f"slurmstepd: error: *** JOB 9 ON n7 CANCELLED AT {stamp} DUE TO PREEMPTION ***"
    assert ended_by([preempted]) == "Slurm cancelled job 9 (preemption)"
    assert ended_by([f"*** JOB 9 ON n7 CANCELLED AT {stamp} DUE TO NODE FAILURE ***"]) == \
        "Slurm cancelled job 9 (node failure)"


def test_other_lines_name_nothing() -> None:
    assert ended_by([]) is None
    assert ended_by(["srun: job 5 queued and waiting for resources", "*** not slurm ***"]) is None
