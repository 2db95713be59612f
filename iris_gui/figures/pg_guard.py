"""One guard around pyqtgraph, for items torn down after Python has let go of them.

When a figure's widget is deleted after Python's cyclic collector has already cleared its items
(the collector runs from the GUI thread's timer, ui/jobs/gc_guard.py, and may meet a figure
whose widget waits for ``deleteLater``), Qt's layout can still ask a legend or title
``LabelItem`` for its size hint during the teardown; pyqtgraph's override then reads an
attribute the collector removed, and the AttributeError surfaces in the event loop. Seen twice
in full test runs after the figures moved to figures/, never reproduced alone. An item in that
state is being destroyed: it has no size to give, so it answers an empty one.
"""

from __future__ import annotations

from pyqtgraph.graphicsItems.LabelItem import LabelItem
from PySide6.QtCore import QSizeF

_original = LabelItem.sizeHint


def _size_hint(self: LabelItem, hint: object, constraint: object) -> QSizeF:
    if "_sizeHint" not in self.__dict__:
        return QSizeF(0, 0)
    return _original(self, hint, constraint)


if getattr(LabelItem.sizeHint, "__name__", "") != "_size_hint":
    LabelItem.sizeHint = _size_hint
