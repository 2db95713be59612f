"""Render the main window after a few short runs to resources/screenshot.png (offscreen).

    python scripts/make_screenshot.py [--out resources/screenshot.png] [--epochs 3000]

Uses a throwaway data directory and settings file, so your runs and layout are untouched.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("resources/screenshot.png"))
    parser.add_argument("--epochs", type=int, default=3000)
    parser.add_argument("--explain-out", type=Path, default=Path("resources/screenshot-explain.png"))
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="iris-gui-shot-"))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["IRIS_GUI_DATA_DIR"] = str(scratch)

    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from iris_gui.ui.app import create_window
    from iris_gui.ui.settings import AppSettings

    app = QApplication(sys.argv)
    settings = AppSettings(QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat))
    window = create_window(settings)
    window.resize(1440, 900)
    window.show()
    records = ["every-epoch", "device", "every:200", "none"]
    finished: list[int] = []

    def queue_runs() -> None:
        base = window.controls.config().replace(epochs=args.epochs)
        window.controller.train([base.replace(record=r) for r in records], "process")

    def on_finished(*_: object) -> None:
        finished.append(1)
        if len(finished) == len(records):
            QTimer.singleShot(300, shoot)

    def shoot() -> None:
        window.results.set_baseline(window.results.model.runs[0].id)
        window.results.select_ids([run.id for run in window.results.model.runs[:3]])
        window.plot.set_log_y(True)
        app.processEvents()
        window.plot.flush()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        window.grab().save(str(args.out))
        print(f"wrote {args.out}")
        runs = window.results.model.runs
        window.results.select_ids([runs[0].id, runs[-1].id])  # every-epoch beside none
        window.controller.explained.connect(on_explained)
        window.explain_dock.raise_()
        window.explain_presenter.explain_selection()

    explained: list[int] = []

    def on_explained(*_: object) -> None:
        explained.append(1)
        if len(explained) == 2:
            QTimer.singleShot(300, shoot_explain)

    def shoot_explain() -> None:
        app.processEvents()
        window.grab().save(str(args.explain_out))
        print(f"wrote {args.explain_out}")
        window.close()
        app.quit()

    window.controller.run_finished.connect(on_finished)
    window.controller.devices_ready.connect(lambda *_: QTimer.singleShot(0, queue_runs))
    window.controller.start()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
