"""Render the window as it first opens on a 1280×800 screen, light and dark (offscreen).

    python scripts/first_launch_screenshots.py [--out-dir resources] [--epochs 3000]

Qt's offscreen platform is given one 1280×800 screen (with window frames), the window opens
with no saved settings, exactly as a first launch places it, and is grabbed four times:
empty (what a new user sees) and after two short runs of the note's experiment, each light and
dark. Uses a throwaway data directory and settings file, so your runs and layout are untouched.
Writes screenshot-1280x800-{empty-,}{light,dark}.png.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

SCREEN = {"screens": [{"name": "1280x800", "x": 0, "y": 0, "width": 1280, "height": 800,
                       "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}],
          "windowFrameMargins": True}
RECORDS = ("every-epoch", "device")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=Path("resources"))
    parser.add_argument("--epochs", type=int, default=3000)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="iris-gui-shot-"))
    screen = scratch / "screen.json"
    screen.write_text(json.dumps(SCREEN))
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={screen}"
    os.environ["IRIS_GUI_DATA_DIR"] = str(scratch)

    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from iris_gui.ui.app import create_window
    from iris_gui.ui.window.settings import AppSettings

    app = QApplication(sys.argv)
    settings = AppSettings(QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat))
    window = create_window(settings)
    window.show()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    finished: list[object] = []

    def shoot(name: str) -> None:
        for theme in ("light", "dark"):
            window.set_theme(theme)
            app.processEvents()
            window.plot.flush()
            path = args.out_dir / f"screenshot-1280x800-{name}{theme}.png"
            window.grab().save(str(path))
            frame = window.frameGeometry().getRect()
            screen = window.screen().availableGeometry().getRect()
            print(f"wrote {path} ({window.width()}x{window.height()}, frame {frame} on {screen})")
        window.set_theme("light")

    def on_ready(*_: object) -> None:
        app.processEvents()
        shoot("empty-")
        base = window.controls.config().replace(epochs=args.epochs)
        window.controller.train([base.replace(record=r) for r in RECORDS], "process")

    def on_finished(*_: object) -> None:
        finished.append(1)
        if len(finished) == len(RECORDS):
            QTimer.singleShot(300, after_runs)

    def after_runs() -> None:
        runs = window.results.model.runs
        window.results.set_baseline(runs[0].id)
        window.results.select_ids([run.id for run in runs])
        shoot("")
        window.close()
        app.quit()

    window.controller.run_finished.connect(on_finished)
    window.controller.devices_ready.connect(lambda *_: QTimer.singleShot(200, on_ready))
    window.controller.start()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
