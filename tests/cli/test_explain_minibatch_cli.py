"""``iris-gui explain`` of a mini-batch run on the loader, through a subprocess: the text says
what one step is made of (the JSON's fields are Breakdown.to_dict's, tested in the engine)."""

from __future__ import annotations

import subprocess

from support.cli import describe, run_cli

LOADER = ["explain", "--batch", "32", "--data-path", "loader", "--epochs", "10", "--repeat", "1"]


def test_text_says_the_steps_per_epoch_and_the_share_spent_fetching_data(tmp_path) -> None:
    proc: subprocess.CompletedProcess = run_cli(LOADER, tmp_path / "data")
    assert proc.returncode == 0, describe(proc)
    lines = proc.stdout.splitlines()
    assert "A GPU would launch about" in lines[0]
    assert lines[1].startswith("regime: ")  # the answer's block: the answer and the regime
    assert proc.stdout.split("\n\n")[0] == "\n".join(lines[:2])
    assert ", batch 32, loader, 0 workers, 1 thread:" in lines[3]  # under the answer
    assert any(line.split()[:1] == ["data"] for line in lines), proc.stdout
    assert any(line.startswith("per step        4 steps per epoch: syncs 1, kernels -, "
                               "fetching data ") for line in lines), proc.stdout
    sentence = next(line for line in lines if line.startswith("4 steps per epoch"))
    assert sentence.startswith("4 steps per epoch of 32 rows: 1 sync per step")
    assert "% of each step fetching data (loader, 0 workers; unprofiled, " in sentence
    assert any(line.startswith("Syncing the loss every step") for line in lines)

