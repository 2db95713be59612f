"""Where a scheduler placed the worker: read from its environment, checked in the greeting, and
put into the words that `hosts test`, the details and the report show."""

from __future__ import annotations

import pytest

from iris_gui import __version__
from iris_gui.engine.remote.placement import placement, placement_words
from iris_gui.engine.remote.protocol import PROTOCOL, HandshakeError, check_hello


def greeting(**extra: object) -> dict[str, object]:
    return {"protocol": PROTOCOL, "product": __version__, "torch_version": "2", "python": "3",
            "hostname": "node7", "pid": 12, "devices": [], **extra}


def test_only_the_schedulers_names_are_taken_from_the_environment() -> None:
    environ = {"SLURM_JOB_ID": "22", "SLURMD_NODENAME": "node7", "CUDA_VISIBLE_DEVICES": "0",
               "HOME": "/home/me", "SLURM_JOB_ACCOUNT": "lab"}
    assert placement(environ) == {"SLURM_JOB_ID": "22", "SLURMD_NODENAME": "node7",
                                  "CUDA_VISIBLE_DEVICES": "0"}
    assert placement({"PATH": "/bin"}) == {}


@pytest.mark.parametrize(("found", "words"), [
    ({"SLURM_JOB_ID": "22", "SLURMD_NODENAME": "node7", "CUDA_VISIBLE_DEVICES": "0"},
     "Slurm job 22 on node7, CUDA_VISIBLE_DEVICES=0"),
    ({"SLURM_JOB_ID": "22"}, "Slurm job 22"),
    ({"CUDA_VISIBLE_DEVICES": "1,3"}, "CUDA_VISIBLE_DEVICES=1,3"),
    ({"CUDA_VISIBLE_DEVICES": ""}, "CUDA_VISIBLE_DEVICES=(none)"),
    ({}, ""),
])
def test_placement_in_words(found: dict[str, str], words: str) -> None:
    assert placement_words(found) == words


def test_a_greeting_carries_its_placement() -> None:
    hello = check_hello("hpc", "hello", greeting(placement={"SLURM_JOB_ID": "22"}))
    assert hello.placement == {"SLURM_JOB_ID": "22"}
    assert check_hello("lab", "hello", greeting()).placement == {}


@pytest.mark.parametrize(("value", "named"), [
    (["SLURM_JOB_ID"], "placement is list, not an object"),
    ({"LD_PRELOAD": "x"}, "placement names 'LD_PRELOAD'"),
    ({"SLURM_JOB_ID": 22}, "placement's SLURM_JOB_ID is not a printable string"),
    ({"SLURMD_NODENAME": "\x1b]0;owned\x07"}, "placement's SLURMD_NODENAME is not a printable"),
    ({"CUDA_VISIBLE_DEVICES": "0" * 201}, "of up to 200 characters"),
])
def test_a_greeting_with_a_placement_this_end_cannot_show_is_refused_in_one_line(
        value: object, named: str) -> None:
    with pytest.raises(HandshakeError) as caught:
        check_hello("hpc", "hello", greeting(placement=value))
    message = str(caught.value)
    assert named in message and "not iris-gui's worker" in message and "\n" not in message
