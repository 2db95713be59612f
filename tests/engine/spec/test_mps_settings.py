"""What Apple's GPUs cannot do is refused in one line each, before anything runs (here as on
a Mac: the check needs no device), for this machine's mps and a host's: float64, pin-memory
(torch turns it off there, so the record would claim what did not happen) and TF32."""

from __future__ import annotations

import pytest
from support.cli import one_line_error, run_cli

from iris_gui.engine.spec.batch_settings import device_kind
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError


@pytest.mark.parametrize(("asked", "said"), [
    ({"precision": "float64"}, "precision float64 is not available on mps"),
    ({"data_path": "loader", "pin_memory": True}, "--pin-memory does nothing on mps"),
    ({"tf32": True}, "--tf32 is a mode of NVIDIA GPUs' matmuls"),
])
@pytest.mark.parametrize("device", ["mps", "mac:mps"])
def test_each_is_refused_on_mps(device, asked, said):
    with pytest.raises(ConfigError, match=said):
        RunConfig(device=device, **asked)
    RunConfig(device="cuda:0", **asked)  # where they apply


def test_the_command_line_says_it_in_one_line(tmp_path):
    line = one_line_error(run_cli(["train", "--device", "mps", "--precision", "float64"],
                                  tmp_path))
    assert "precision float64 is not available on mps" in line
    assert RunConfig(device="mps", precision="bfloat16").precision == "bfloat16"


def test_the_device_kind_is_read_from_a_hosts_name_too():
    assert [device_kind(d) for d in ("mps", "cuda:1", "lab:cuda:1", "cpu", "gpu-box:mps")] == [
        "mps", "cuda", "cuda", "cpu", "mps"]
