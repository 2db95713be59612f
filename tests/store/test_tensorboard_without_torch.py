"""The TensorBoard export needs no torch: the window exports too, and its process never
imports torch. A process with torch blocked writes a run's event files."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
sys.modules["torch"] = None  # any import of torch fails
import numpy as np
from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.run_rows import StoredRun
from iris_gui.store.tensorboard import write_tensorboard
result = RunResult(RunConfig(epochs=3), RunStatus.COMPLETED, epochs_completed=3,
                   losses=np.array([1.0, 0.5, 0.25], np.float32), final_loss=0.25)
(folder,) = write_tensorboard([StoredRun(7, "", result)], sys.argv[1])
print(folder.name)
"""


def test_a_process_without_torch_writes_the_event_files(tmp_path) -> None:
    done = subprocess.run([sys.executable, "-c", CODE, str(tmp_path)], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "run-0007-cpu-eager-every-epoch"
    assert any(p.name.startswith("events.out.tfevents")
               for p in (tmp_path / "run-0007-cpu-eager-every-epoch").iterdir())
