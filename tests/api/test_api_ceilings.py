"""``lab.ceilings``: a device's ceilings measured through the job service in this process and
kept, listed back, shown in a notebook; a bad option is one line; every run read afterwards is
placed under them. Nothing here asserts a measured figure."""

from __future__ import annotations

import pytest

import iris_gui as lab


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("IRIS_GUI_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_measured_kept_listed_and_shown():
    measured = lab.ceilings(threads=1, repeat=3)
    assert isinstance(measured, lab.Measured) and measured.id == 1
    assert measured.device == "cpu" and measured.threads == 1 and measured.flops.n == 3
    assert repr(measured).startswith(f"Ceilings 1: cpu ({measured.device_name}), 1 thread, "
                                     "float32: ")
    assert measured.to_dict()["id"] == 1 and measured.to_dict()["bandwidth"]["n"] == 3
    html = measured._repr_html_()
    assert "<th>ceiling</th>" in html and "peak arithmetic" in html
    (listed,) = lab.ceilings(list=True)
    assert listed.id == 1 and listed.to_dict() == measured.to_dict()
    # A run trained afterwards on this device, one thread, is placed under them.
    run = lab.train(epochs=300, progress=False)
    assert run.placement is not None and run.placement.regime in (
        "overhead-bound", "memory-bound", "compute-bound")


def test_not_kept_with_save_false():
    measured = lab.ceilings(threads=1, repeat=3, save=False)
    assert measured.id is None and repr(measured).startswith("Ceilings (not kept): cpu")
    assert lab.ceilings(list=True) == []


@pytest.mark.parametrize(("options", "words"), [
    ({"threads": 0}, "'0' is not allowed; threads must be a whole number from 1 to 1024"),
    ({"repeat": 2}, "'2' is not allowed; repeat must be a whole number from 3 to 50"),
    ({"device": "lab:cuda:0"}, ("--device lab:cuda:0: a host's ceilings are measured on the "
                               "host (iris-gui ceilings --device cuda:0 there)")),
    ({"speed": 3}, "ceilings() has no option 'speed'; it takes "),
])
def test_a_bad_option_is_one_line(options, words):
    with pytest.raises(lab.OptionError) as refused:
        lab.ceilings(**options)
    assert words in str(refused.value) and "\n" not in str(refused.value)
