"""Make every picture of a view in the README from real runs on this machine (offscreen).

    python scripts/readme_pictures.py [--out-dir resources] [--epochs 3000] [--quick]

Nothing here is sample data. In a throwaway data directory the CLI first measures what the
views show: two runs of the note's experiment (recording every epoch, and on the device),
the engine ladder on every engine this machine can run (`compare --engines all`) and the
default sweep on the CPU (`sweep --devices cpu`), whose figure it exports (`plot --sweep`).
Then the window opens on that data with no saved settings, on a 1280×800 offscreen screen as a
first launch places it, and each view is grabbed as a user would see it: Run + Results,
Explain (after explaining two runs in the window), Ladder and Crossover. Last, it runs
first_launch_screenshots.py (the empty window and two runs, light and dark). It prints the
machine it ran on, for the captions. Your runs and layout are untouched. Writes
view-{results,explain,ladder,crossover}.png, figure-sweep-cpu.png and
screenshot-1280x800-*.png.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

SCREEN = {"screens": [{"name": "1280x800", "x": 0, "y": 0, "width": 1280, "height": 800,
                       "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}],
          "windowFrameMargins": True}
WAIT_MS = 600_000


def iris(*args: str) -> str:
    """One CLI command on the scratch store; its stdout, or the script stops with its stderr."""
    done = subprocess.run([sys.executable, "-m", "iris_gui", *args], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"iris-gui {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def measure(epochs: int, quick: bool) -> dict[str, list[int]]:
    """The runs and the sweep the views show, made through the CLI; their ids."""
    for record in ("every-epoch", "device"):
        iris("train", "--epochs", str(epochs), "--record", record)
    iris("compare", "--engines", "all", "--epochs", str(epochs))
    iris("sweep", "--devices", "cpu", *(["--rows", "120,1000,10000"] if quick else []))
    runs = [row["id"] for row in json.loads(iris("runs", "list", "--json"))]
    sweeps = [row["id"] for row in json.loads(iris("sweeps", "list", "--json"))]
    return {"runs": runs, "sweeps": sweeps}


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=Path("resources"))
    parser.add_argument("--epochs", type=int, default=3000)
    parser.add_argument("--quick", action="store_true", help="a smaller sweep (for a check)")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="iris-gui-pictures-"))
    screen = scratch / "screen.json"
    screen.write_text(json.dumps(SCREEN))
    os.environ["IRIS_GUI_DATA_DIR"] = str(scratch / "data")
    made = measure(args.epochs, args.quick)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    figure = args.out_dir / "figure-sweep-cpu.png"
    iris("plot", "--sweep", str(made["sweeps"][-1]), "--out", str(figure))
    print(f"wrote {figure}")
    print(iris("sweeps", "show", str(made["sweeps"][-1])))
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={screen}"

    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from iris_gui.ui.app import create_window
    from iris_gui.ui.window.settings import AppSettings

    app = QApplication(sys.argv)
    settings = AppSettings(QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat))
    window = create_window(settings)
    window.show()
    out = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    runs, sweeps = made["runs"], made["sweeps"]
    explained: list[int] = []

    def grab(name: str) -> None:
        app.processEvents()
        path = out / f"view-{name}.png"
        window.grab().save(str(path))
        print(f"wrote {path}")

    def shoot_results() -> None:
        window.results.set_baseline(runs[0])
        window.results.select_ids(runs[:2])  # the note's two recordings
        window.results_dock.raise_()
        window.plot.flush()
        grab("results")
        window.controller.explained.connect(on_explained)
        window.explain_dock.raise_()
        window.explain_presenter.explain_selection()

    def on_explained(*_: object) -> None:
        explained.append(1)
        if len(explained) == 2:
            QTimer.singleShot(500, shoot_rest)

    def shoot_rest() -> None:
        grab("explain")
        window.ladder_dock.raise_()
        window.results.select_ids(runs[2:])  # the ladder compare made
        QTimer.singleShot(800, shoot_ladder)

    def shoot_ladder() -> None:
        grab("ladder")
        window.crossover_dock.raise_()
        window.crossover_presenter.reopen(sweeps[-1])
        QTimer.singleShot(800, shoot_crossover)

    def shoot_crossover() -> None:
        grab("crossover")
        print(f"machine: {cpu_name()}, {os.cpu_count()} logical CPUs, no accelerator used")
        window.close()
        app.quit()

    window.controller.devices_ready.connect(lambda *_: QTimer.singleShot(500, shoot_results))
    QTimer.singleShot(WAIT_MS, lambda: (print("timed out", file=sys.stderr), app.exit(1)))
    window.controller.start()
    code = app.exec()
    if code == 0:
        first = Path(__file__).with_name("first_launch_screenshots.py")
        code = subprocess.run([sys.executable, str(first), "--out-dir", str(out),
                               "--epochs", str(args.epochs)], check=False).returncode
    return code


if __name__ == "__main__":
    sys.exit(main())
