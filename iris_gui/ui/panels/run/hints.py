"""An engine's refusal in the Run panel's words: the command-line hints its one line ends with
("give --dataset digits or images", "choose --record device or none") name the field and the
choices to pick in the window instead ("choose Data set “Digits” or “Synthetic images”").

The engine keeps one wording for every front; a flag this panel has no field for is left as
written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# A flag, and its values joined by "or": "--dataset digits or images", "--batch full".
_HINT = re.compile(r"\b(?:give|choose|use) --([a-z][a-z-]*)((?: (?!or\b)[\w.:]+)(?: or [\w.:]+)*)?")

# Each flag an engine's hint names, as its field is labelled in the Run panel.
FIELDS = {"dataset": "Data set", "model": "Model", "record": "Loss recording",
          "optimizer": "Optimizer", "call": "Call style", "engine": "Engine",
          "data-path": "Data path", "precision": "Precision", "batch": "Batch",
          "world": "Processes", "threads": "Threads", "device": "Device"}
# What a flag's field is called in the window, where it is not a field of its own.
ELSEWHERE = {"data": "Data set → Open CSV…"}

# item text for a flag's value, or None where the field has no such choice
ItemText = Callable[[str, str], str | None]


def items_of(combos: dict[str, Any]) -> ItemText:
    """The choice each flag's combo (flag -> ValueCombo) lists for a value: "Digits" for
    digits (its name, not its shape), None where it lists no such value."""
    def text(flag: str, value: str) -> str | None:
        combo = combos.get(flag)
        if combo is None:
            return value if flag == "batch" and value == "full" else None
        index = combo.findData(value)
        return combo.itemText(index).partition(" (")[0] if index >= 0 else None
    return text


def form_words(text: str, item_text: ItemText, fields: dict[str, str] = FIELDS) -> str:
    """``text`` with each hint naming its field (``fields``: flag -> field label) and each
    value its choice as the field lists it (``item_text(flag, value)``)."""
    def said(match: re.Match[str]) -> str:
        flag, values = match.group(1), (match.group(2) or "").strip()
        if flag in ELSEWHERE:
            return f"choose {ELSEWHERE[flag]}"
        if flag not in fields:
            return match.group(0)
        choices = [item_text(flag, value) for value in values.split(" or ")] if values else []
        if not choices or None in choices:
            return f"choose {fields[flag]}"
        return f"choose {fields[flag]} " + " or ".join(f"“{c}”" for c in choices)

    return _HINT.sub(said, text)
