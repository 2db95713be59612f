"""The Python API (``import iris_gui as lab``), in this process as a notebook calls it: runs
saved to the store the window reads, the command line's rules and words for a bad option, Ctrl+C
returning the run as stopped, the records' dict, frame and notebook view."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import iris_gui as lab
from iris_gui.api.records import Runs
from iris_gui.engine.records.result import RunStatus


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("IRIS_GUI_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_train_runs_here_saves_and_reads_back_from_the_store() -> None:
    run = lab.train(epochs=300, seed=3, progress=False)
    assert isinstance(run, lab.Run) and run.id == 1
    assert run.status is RunStatus.COMPLETED and run.epochs_completed == 300
    assert run.env.execution == "in-process"  # the calling process trained it, as it says
    assert run.timings.epoch_us > 0 and len(run.losses) == 300
    record = run.to_dict()
    assert record["id"] == 1 and record["config"]["epochs"] == 300
    json.dumps(record, allow_nan=False)  # what --json prints: plain JSON
    # Placed as every read run is: no ceilings are kept here, and it says how to keep some.
    assert record["placement"]["sentence"].endswith("(iris-gui ceilings measures them)")
    stored = lab.runs()
    assert [r.id for r in stored] == [1] and len(stored[0].losses) == 0  # the list: no curves
    (full,) = lab.runs(1)
    assert list(full.losses) == pytest.approx(list(run.losses))


def test_save_false_keeps_nothing_and_repeat_returns_every_replicate() -> None:
    runs = lab.train(epochs=50, repeat=2, save=False, progress=False)
    assert isinstance(runs, lab.Runs) and [r.id for r in runs] == [None, None]
    assert lab.runs() == []


@pytest.mark.parametrize(("options", "words"), [
    ({"epochs": -5}, "epochs -5 is not allowed; it must be a whole number from 1 to 10,000,000"),
    ({"epoch": 5}, "train() has no option 'epoch'; it takes batch, call,"),
    ({"engine": "warp"}, "argument --engine: invalid choice: 'warp' (choose from 'eager',"),
    ({"device": "cuda:7"}, "device 'cuda:7' is not available here"),
    ({"epochs": True}, "epochs=True is not a value for --epochs; give epochs=EPOCHS"),
    # Refused by the checks a run makes as it is built, below the parser: OptionError too.
    ({"batch": 100_000, "epochs": 5}, "batch 100,000 is larger than the 120 training rows"),
    ({"model": "/nowhere/net.py:Net"}, "model file /nowhere/net.py does not exist"),
    ({"call": "explain", "model": "/nowhere/net.py:Net"}, "model file /nowhere/net.py does"),
    ({"call": "compare", "engines": "all", "devices": "cpu", "model": "/nowhere/net.py:Net"},
     "model file /nowhere/net.py does not exist"),
])
def test_a_bad_option_is_one_line_of_the_command_lines_words_and_saves_nothing(
        options, words, capsys) -> None:
    options = dict(options)
    call = getattr(lab, options.pop("call", "train"))
    with pytest.raises(lab.OptionError) as refused:
        call(**options)
    message = str(refused.value)
    assert words in message and "\n" not in message
    assert capsys.readouterr().err == ""  # no usage block, no traceback
    assert lab.runs() == []


def test_ctrl_c_stops_the_run_at_its_next_chunk_and_returns_it_saved_as_stopped() -> None:
    default = signal.getsignal(signal.SIGINT)

    def interrupt_once_the_handler_is_in() -> None:
        deadline = time.monotonic() + 120
        while signal.getsignal(signal.SIGINT) is default and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)  # as a notebook's interrupt does

    helper = threading.Thread(target=interrupt_once_the_handler_is_in)
    helper.start()
    run = lab.train(epochs=5_000_000, progress=False)
    helper.join()
    assert run.status is RunStatus.STOPPED and run.epochs_completed < 5_000_000
    assert run.id == 1 and lab.runs()[0].status is RunStatus.STOPPED
    assert signal.getsignal(signal.SIGINT) is default  # given back


def test_compare_and_sweep_return_their_records_saved() -> None:
    compared = lab.compare(devices="cpu", records=["every-epoch", "none"], epochs=50,
                           progress=False)
    assert [(r.id, r.config.record) for r in compared] == [(1, "every-epoch"), (2, "none")]
    swept = lab.sweep(rows=[100, 400], devices="cpu", engines="eager", threads=1,
                      min_seconds=0.02, min_epochs=5, progress=False)
    assert swept.id == 1 and [p.rows for p in swept.points] == [100, 400]
    assert all(p.status == "completed" for p in swept.points)
    assert swept.to_dict()["id"] == 1
    frame = swept.to_frame()
    assert list(frame["rows"]) == [100, 400]


def test_the_records_show_themselves_in_a_notebook_and_as_frames() -> None:
    run = lab.train(epochs=200, progress=False)
    html = run._repr_html_()
    assert "<th>µs/epoch ± IQR</th>" in html and '<img src="data:image/png;base64,' in html
    frame = lab.runs().to_frame()
    assert list(frame["id"]) == [1] and frame.loc[0, "epochs_completed"] == 200
    unsaved = lab.train(epochs=20, save=False, progress=False)
    assert "<td style=\"text-align:right\">not saved</td>" in unsaved._repr_html_()


def test_a_record_prints_as_a_line_and_the_stores_list_draws_its_curves() -> None:
    run = lab.train(epochs=200, progress=False)
    assert repr(run) == str(run)
    assert repr(run).startswith("Run 1: cpu · eager · every-epoch · forward: completed, "
                                "200 epochs, ") and "\n" not in repr(run)
    listed = lab.runs()  # from the store's list: the curves are not loaded with it
    data, metadata = listed._repr_mimebundle_()
    assert data["text/plain"] == f"1 run:\n  {run!r}"
    assert data["image/png"] and metadata["image/png"]["alt"] == "Loss per epoch of run 1"
    assert 'alt="Loss per epoch of run 1"' in data["text/html"]
    nothing, _ = Runs()._repr_mimebundle_()  # no run, no figure
    assert "image/png" not in nothing and "<img" not in nothing["text/html"]
    assert nothing["text/plain"] == "0 runs"


def test_importing_the_package_loads_neither_torch_nor_qt() -> None:
    code = ("import sys, iris_gui as lab; assert callable(lab.train); "
            "print(sorted(m for m in ('torch', 'PySide6', 'pyqtgraph') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    # lab.train resolved: the API module is loaded, and still nothing heavy until a call.
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
