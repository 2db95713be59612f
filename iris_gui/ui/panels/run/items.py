"""The Run panel's choices: short item texts that fit its narrowest width (360 px, on a
1024×700 screen as on 1280×800) with what each means in the item's tooltip."""

from __future__ import annotations

import re
from pathlib import PurePath

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.ui.panels.shared.plain_text import plain_tip

# The bundled data sets' shapes (name, rows, features, classes), known without loading them:
# the window never imports scikit-learn.
DATASET_SHAPES = {"iris": ("Iris", 150, 4, 3), "wine": ("Wine", 178, 13, 3),
                  "breast_cancer": ("Breast cancer", 569, 30, 2),
                  "digits": ("Digits", 1_797, 64, 10)}
# (text, value, tooltip)
DATASET_ITEMS = [
    *((f"{name} ({rows:,} × {features})", key,
       f"{name}: {rows:,} rows × {features} features, {classes} classes")
      for key, (name, rows, features, classes) in DATASET_SHAPES.items()),
    ("Synthetic", "synthetic", "made-up classes of the size given below"),
    ("Synthetic images", "images", ("made-up images, each class its own smooth pattern under "
     "noise, of the size given below (for a CNN)")),
    ("Synthetic sequences", "sequences", ("made-up sequences, each class a motif of three steps "
     "at a random place, of the size given below (for a transformer)")),
]
SCALER_ITEMS = [("MinMax (fit on train)", "minmax", "scaled to [0, 1], fitted on the train part"),
                ("Standard (fit on train)", "standard",
                 "zero mean, unit variance, fitted on the train part"),
                ("none", "none", "the features as loaded")]
RECORD_ITEMS = [
    ("every epoch (loss.item())", "every-epoch",
     "loss.item() every epoch, as the note: the host waits for the device each epoch"),
    ("every N epochs", "every", "loss.item() every N epochs: one wait per N epochs"),
    ("on the device", "device",
     "every loss kept in a buffer on the device, copied back once per chunk"),
    ("none (no curve)", "none", "no loss brought back: the loop alone, and no curve"),
]
CALL_ITEMS = [("model(x)", "call", "through nn.Module.__call__ (its hooks and checks)"),
              ("model.forward(x)", "forward", "forward() directly, as the note writes it")]
EXECUTION_ITEMS = [
    ("worker process (isolated)", "process",
     "a worker process of its own, isolated from the window (recommended)"),
    ("this process (GIL cost)", "in-process",
     "the window's own process: shows what contention for Python's GIL costs"),
]
# A file name longer than this is cut in its middle, so that "CSV: <name>" fits the combo.
CSV_NAME_CHARS = 18


def csv_choice(path: str, target: str) -> tuple[str, str]:
    """The data set item for a CSV file: ``CSV: flowers.csv`` and its tooltip (the whole path
    and the target column)."""
    name = PurePath(path).name
    if len(name) > CSV_NAME_CHARS:
        half = (CSV_NAME_CHARS - 1) // 2
        name = f"{name[:half]}…{name[-half:]}"
    column = f"column {target!r}" if target else "the last column"
    return f"CSV: {name}", f"your own data: {path}\ntarget: {column}"


_NOISE = re.compile(r"\((R|TM|tm|C)\)|\bCPU\b|\bProcessor\b|@.*$|\b\d+-Core\b|^(Intel|AMD|NVIDIA)\b")


def device_choice(device: DeviceInfo) -> str:
    """``cpu — Xeon Platinum 8480+``, ``cuda:0 — H200``: the id and the model, without the
    vendor's marks and the figures the tooltip (``describe()``) carries, so that it fits."""
    name = " ".join(_NOISE.sub(" ", device.name).split())
    return f"{device.id} — {name}" if name else device.id


def show_csv(combo: QComboBox, path: str, target: str) -> None:
    """Show the CSV file ``path`` as the data set's "csv" item, added the first time."""
    text, tip = csv_choice(path, target)
    tip = plain_tip(tip)  # the file's path and target column, as written
    index = combo.findData("csv")
    if index < 0:
        combo.addItem(text, "csv")
        index = combo.count() - 1
    combo.setItemText(index, text)
    combo.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
    if combo.currentIndex() == index:
        combo.setToolTip(tip)
