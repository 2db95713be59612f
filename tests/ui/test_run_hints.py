"""The Run panel's words for an engine's command-line hints (ui/panels/run/hints.py): each flag
becomes the field to change and each value the choice as the field lists it."""

from __future__ import annotations

import pytest

from iris_gui.ui.panels.run.hints import form_words

CHOICES = {("record", "device"): "on the device", ("record", "none"): "none",
           ("data-path", "resident"): "resident", ("batch", "full"): "full"}


@pytest.mark.parametrize(("line", "said"), [
    (("the compiled engine cannot record the loss 'every-epoch': it keeps every loss in a "
     "buffer; choose --record device or none"),
     ("the compiled engine cannot record the loss 'every-epoch': it keeps every loss in a "
     "buffer; choose Loss recording “on the device” or “none”")),
    ("the native engine reads resident data only; use --data-path resident",
     "the native engine reads resident data only; choose Data path “resident”"),
    ("drop-last applies to mini-batches; give --batch N as well",
     "drop-last applies to mini-batches; choose Batch as well"),
    ("data set csv needs a file: give --data path.csv",
     "data set csv needs a file: choose Data set → Open CSV…"),
    ("a hint of no field here: give --seed 3", "a hint of no field here: give --seed 3"),
])
def test_each_hint_names_the_field_and_its_choices(line: str, said: str) -> None:
    assert form_words(line, lambda flag, value: CHOICES.get((flag, value))) == said
