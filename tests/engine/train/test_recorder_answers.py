"""What each recording choice needs, as its recorder says it: the rungs and the loops ask the
recorder (engine/train/recording.py) and never compare the choice's name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from iris_gui.engine.spec.config import parse_recording
from iris_gui.engine.train.recording import make_recorder

ENGINE = Path(__file__).resolve().parents[3] / "iris_gui" / "engine"
assert ENGINE.is_dir(), ENGINE  # a moved test must not search nothing


@pytest.mark.parametrize("text, every, on_host, on_device", [
    ("every-epoch", 1, [True, True, True, True], False),
    ("every:2", 2, [True, False, True, False], False),
    ("device", 1, [False] * 4, True),
    ("none", 0, [False] * 4, False),
])
def test_each_recorder_says_what_its_choice_needs(text, every, on_host, on_device):
    recorder = make_recorder(parse_recording(text), 4, torch.device("cpu"))
    assert recorder.loss_every == every
    assert [recorder.reads_on_host(epoch) for epoch in range(4)] == on_host
    assert recorder.keeps_on_device is on_device


def test_no_rung_or_loop_reads_the_recording_choices_name():
    # make_recorder is the one place that turns the choice into a recorder.
    asking = re.compile(r"recording\.mode|\.record\s*==|type\(\w+\.recorder\)")
    places = [path.relative_to(ENGINE).as_posix()
              for folder in ("rungs", "train", "sweep", "explain")
              for path in sorted((ENGINE / folder).rglob("*.py"))
              for line in path.read_text().splitlines() if asking.search(line)]
    assert places == ["train/recording.py"] * 3
