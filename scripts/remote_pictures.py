"""Make the README's pictures of a host: the Hosts dialog after a real connection test, and the
window after a real run on the host's device. Real runs, offscreen, on this machine.

The host is this machine reached through a real sshd on 127.0.0.1 (tests/support/sshd.py, with
temporary keys and its own ``ssh -F`` config), named ``lab``; its only device is this
machine's CPU, so the run is ``lab:cpu``. Everything goes into a throwaway folder (store,
settings, hosts list): nothing of the user's is read or written.

    QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/remote_pictures.py [--out-dir resources]

Writes view-hosts.png and view-remote-run.png (1280×800 window, dialog at its own size).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
SCREEN = {"screens": [{"name": "1280x800", "x": 0, "y": 0, "width": 1280, "height": 800,
                       "logicalDpi": 96, "logicalDpiX": 96, "logicalDpiY": 96}]}
WAIT_MS = 240_000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=ROOT / "resources")
    parser.add_argument("--epochs", type=int, default=3000)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="iris-gui-remote-pictures-"))
    (scratch / "screen.json").write_text(json.dumps(SCREEN))
    os.environ.update(IRIS_GUI_DATA_DIR=str(scratch / "data"),
                      XDG_CONFIG_HOME=str(scratch / "config"),
                      QT_QPA_PLATFORM=f"offscreen:configfile={scratch / 'screen.json'}")
    from support.sshd import LoopbackSshd

    with LoopbackSshd() as sshd:
        os.environ["IRIS_GUI_SSH_CONFIG"] = str(sshd.config_path)
        return _shoot(scratch, args.out_dir, args.epochs)


def _shoot(scratch: Path, out: Path, epochs: int) -> int:
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from iris_gui.engine.remote.hosts import Host, add_host
    from iris_gui.ui.app import create_window
    from iris_gui.ui.window.settings import AppSettings

    add_host(Host("lab", "iris-test", command=f"{sys.executable} -m iris_gui"))
    add_host(Host("cluster", "login.hpc.example.org", prefix="srun --gres=gpu:1 --time=10"))
    app = QApplication(sys.argv)
    settings = AppSettings(QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat))
    window = create_window(settings)
    window.show()
    out.mkdir(parents=True, exist_ok=True)
    combo = window.controls.form.device_combo

    def on_devices(devices: list) -> None:
        if combo.findData("lab:cpu") < 0 or window.results.model.rowCount():
            return
        combo.setCurrentIndex(combo.findData("lab:cpu"))
        window.controls.form.epochs_spin.setValue(epochs)
        window.controls.train_button.click()

    def on_finished(*_: object) -> None:
        QTimer.singleShot(800, shoot_window)

    def shoot_window() -> None:
        window.plot.flush()
        app.processEvents()
        path = out / "view-remote-run.png"
        window.grab().save(str(path))
        print(f"wrote {path}")
        dialog = window.hosts_presenter.show_dialog(window)
        dialog.table.selectRow(0)
        dialog.test_button.click()
        QTimer.singleShot(500, lambda: wait_for_test(dialog))

    def wait_for_test(dialog) -> None:
        if "connected" not in dialog.result_label.text():
            QTimer.singleShot(300, lambda: wait_for_test(dialog))
            return
        app.processEvents()
        path = out / "view-hosts.png"
        dialog.grab().save(str(path))
        print(f"wrote {path}")
        dialog.close()
        window.close()
        app.quit()

    window.controller.devices_ready.connect(on_devices)
    window.controller.run_finished.connect(on_finished)
    QTimer.singleShot(WAIT_MS, lambda: (print("timed out", file=sys.stderr), app.exit(1)))
    window.controller.start()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
