"""Make the README's picture of mini-batches from real runs on this machine (offscreen).

    python scripts/batch_pictures.py [--out-dir resources] [--epochs 300]

In a throwaway data directory the CLI trains Iris four ways: the note's full batch, batch 32
resident, batch 32 from the loader with no workers and with two persistent ones. Then the
window opens on that data at 1280×800 with the Batch, Data path, Step µs and Data wait columns
shown, all four curves overlaid, and is grabbed as view-batches.png. Your runs and layout are
untouched. Prints the machine it ran on, for the caption.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from readme_pictures import SCREEN, cpu_name, iris

WAIT_MS = 300_000
SHOWN = ("batch", "data_path", "step_us", "data_wait")  # the results columns' keys
HIDDEN = ("saved", "dataset", "device_name", "threads", "execution", "call", "precision",
          "speedup")


def measure(epochs: int) -> list[int]:
    base = ["train", "--epochs", str(epochs)]
    iris(*base)
    iris(*base, "--batch", "32")
    iris(*base, "--batch", "32", "--data-path", "loader")
    iris(*base, "--batch", "32", "--data-path", "loader", "--workers", "2",
         "--persistent-workers")
    return [row["id"] for row in json.loads(iris("runs", "list", "--json"))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=Path("resources"))
    parser.add_argument("--epochs", type=int, default=300)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="iris-gui-batches-"))
    screen = scratch / "screen.json"
    screen.write_text(json.dumps(SCREEN))
    os.environ["IRIS_GUI_DATA_DIR"] = str(scratch / "data")
    runs = measure(args.epochs)
    print(iris("runs", "list"))
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={screen}"

    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from iris_gui.ui.app import create_window
    from iris_gui.ui.window.settings import AppSettings

    app = QApplication(sys.argv)
    settings = AppSettings(QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat))
    window = create_window(settings)
    window.show()
    args.out_dir.mkdir(parents=True, exist_ok=True)

    def shoot() -> None:
        window.results.set_hidden_columns(list(HIDDEN), window.results.column_keys())
        window.results.select_ids(runs)
        window.results_dock.raise_()
        window.plot.set_log_y(True)
        window.plot.flush()
        app.processEvents()
        path = args.out_dir / "view-batches.png"
        window.grab().save(str(path))
        print(f"wrote {path}")
        print(f"machine: {cpu_name()}, {os.cpu_count()} logical CPUs, no accelerator used")
        window.close()
        app.quit()

    window.controller.devices_ready.connect(lambda *_: QTimer.singleShot(500, shoot))
    QTimer.singleShot(WAIT_MS, lambda: (print("timed out", file=sys.stderr), app.exit(1)))
    window.controller.start()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
