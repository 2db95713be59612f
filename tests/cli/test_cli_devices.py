"""``iris-gui devices`` on a machine without an accelerator: after the list, why there is no GPU
and what to do here and elsewhere; ``--json`` carries the record. Run in this process."""

from __future__ import annotations

import json

import pytest
from support.cli import status_out_err

from iris_gui.engine.train.devices import accelerator_record
from iris_gui.engine.words.machine_steps import HERE, steps_text

RECORD = accelerator_record()


@pytest.mark.skipif(RECORD.present, reason="an accelerator is here: nothing to explain")
def test_devices_says_why_there_is_no_gpu_and_what_to_do(data_dir):
    code, out, err = status_out_err(["devices"], data_dir)
    assert code == 0 and err == ""
    table, _, after = out.partition("\n\n")
    assert table.splitlines()[0].split()[:2] == ["device", "kind"]
    assert after.rstrip("\n") == steps_text(RECORD)
    lines = after.splitlines()
    assert lines[0] == RECORD.why() and lines[1] == "What this machine can measure:"
    assert [line for line in lines if line.startswith("  - the engine ladder")]
    assert len(HERE) == 3 and "For GPU figures:" in lines
    assert any("scripts/gpu_check.sh" in line for line in lines)
    assert any("iris-gui hosts add" in line for line in lines)


def test_devices_json_carries_the_devices_and_the_record(data_dir):
    code, out, _ = status_out_err(["devices", "--json"], data_dir)
    found = json.loads(out)
    assert code == 0 and set(found) == {"devices", "accelerator"}
    assert found["devices"][0]["id"] == "cpu"
    assert found["accelerator"] == RECORD.to_dict()


@pytest.mark.skipif(RECORD.present, reason="an accelerator is here")
def test_an_absent_cuda_device_is_refused_with_the_why(data_dir):
    code, out, err = status_out_err(["train", "--device", "cuda:0", "--epochs", "5"], data_dir)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"device 'cuda:0' is not available here ({RECORD.refusal()}); available: cpu" in err
