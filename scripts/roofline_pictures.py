"""Render the window with its Roofline tab raised over real runs, offscreen, as docs show it.

    python scripts/roofline_pictures.py --data DIR --runs 1,2 --sweep 1 [--size 1280x800]
        [--out resources/roofline-1280x800.png]

``DIR`` is a data directory whose store holds the runs, the sweep and the ceilings (made with
``iris-gui ceilings``, ``train`` and ``sweep`` under ``IRIS_GUI_DATA_DIR=DIR``): the window opens
over it on one screen of the given size with a throwaway settings file, the runs are selected
in the results table, the sweep is shown in the Crossover view, and the Roofline tab is
raised and grabbed. Nothing of yours is read or written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--runs", default="")
    parser.add_argument("--sweep", type=int, default=None)
    parser.add_argument("--size", default="1280x800")
    parser.add_argument("--out", type=Path, default=Path("resources/roofline-1280x800.png"))
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    scratch = Path(tempfile.mkdtemp(prefix="iris-gui-roofline-"))
    screen = scratch / "screen.json"
    screen.write_text(json.dumps({"screens": [{
        "name": args.size, "x": 0, "y": 0, "width": width, "height": height,
        "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}], "windowFrameMargins": True}))
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={screen}"
    os.environ["IRIS_GUI_DATA_DIR"] = str(args.data)

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from iris_gui.ui.app import create_window
    from iris_gui.ui.jobs.run_state import RunState
    from iris_gui.ui.window.settings import AppSettings

    app = QApplication(sys.argv)
    settings = AppSettings(QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat))
    window = create_window(settings)
    window.show()
    window.controller.start()
    # The worker's devices, so the window shows what a user sees once it is ready.
    deadline = time.monotonic() + 120
    while window.controller.state is not RunState.IDLE and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.05)
    if args.sweep is not None:
        window.crossover_presenter.reopen(args.sweep)
    ids = [int(v) for v in args.runs.split(",") if v]
    window.results_dock.raise_()
    window.results.select_ids(ids)
    window.roofline_dock.raise_()
    for _ in range(20):
        app.processEvents()
    window.roofline_presenter.redraw()
    app.processEvents()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(args.out))
    marks = window.roofline.marks()
    print(f"wrote {args.out} ({window.width()}x{window.height()}): {len(marks)} marks, "
          f"{len(window.roofline.roofs())} roofs; "
          + "; ".join(f"{m.label}: {m.regime or 'not placed'}" for m in marks))
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
