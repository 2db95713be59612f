"""Datasheets (records/datasheet.py): which sheet a device's name finds, that every sheet
names its source and holds the roofs a drawing needs, and that its words carry the label that
keeps it apart from a measurement. Pure data: nothing here measures or reaches the network."""

from __future__ import annotations

import math

import pytest

from iris_gui.engine.records.datasheet import LABEL, SHEETS, datasheet_for


@pytest.mark.parametrize(("device_name", "sheet"), [
    ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB"),
    ("NVIDIA H100 PCIe", "NVIDIA H100 PCIe 80GB"),
    ("NVIDIA H100 NVL", "NVIDIA H100 NVL 94GB"),
    ("NVIDIA H200", "NVIDIA H200 SXM 141GB"),
    ("NVIDIA A100-SXM4-80GB", "NVIDIA A100 SXM4 80GB"),
    ("NVIDIA A100 80GB PCIe", "NVIDIA A100 PCIe 80GB"),
    ("NVIDIA A100-SXM4-40GB", "NVIDIA A100 40GB"),
    ("NVIDIA A100-PCIE-40GB", "NVIDIA A100 40GB"),
    ("NVIDIA GeForce RTX 4070 Laptop GPU", "NVIDIA GeForce RTX 4070 Laptop GPU"),
    ("NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090"),
    ("NVIDIA GeForce RTX 3060", "NVIDIA GeForce RTX 3060"),
    ("Tesla T4", "NVIDIA T4"),
    ("NVIDIA L4", "NVIDIA L4"),
    ("Apple M1", "Apple M1"),
    ("Apple M2", "Apple M2"),
    ("apple m2", "Apple M2"),
])
def test_a_known_device_finds_its_sheet(device_name, sheet):
    found = datasheet_for(device_name)
    assert found is not None and found.name == sheet


@pytest.mark.parametrize("device_name", [
    "", "AMD EPYC 7B13", "Intel(R) Xeon(R) CPU @ 2.20GHz", "cpu",
    # Another chip of the same family: whole words only, and a variant word the match lacks.
    "NVIDIA L40S", "NVIDIA GeForce RTX 4070", "NVIDIA GeForce RTX 4090 Laptop GPU",
    "NVIDIA GeForce RTX 3060 Ti", "NVIDIA GeForce RTX 3060 Laptop GPU", "Apple M1 Pro",
    "Apple M2 Max", "Apple M3",
])
def test_an_unknown_device_finds_none(device_name):
    assert datasheet_for(device_name) is None


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda sheet: sheet.name)
def test_every_sheet_names_its_source_and_both_roofs(sheet):
    assert sheet.source and all(url.startswith("https://") for url in sheet.source.split())
    assert sheet.peak("float32") > 0 and sheet.bandwidth > 0
    assert sheet.matches and all(match == match.lower() for match in sheet.matches)
    assert set(sheet.flops) <= {"float32", "float16", "bfloat16"}
    # A sheet finds itself by each of its own matches.
    assert all(datasheet_for(match) is sheet for match in sheet.matches)


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda sheet: sheet.name)
def test_balance_is_peak_over_bandwidth(sheet):
    for precision in ("float32", "float16", "bfloat16"):
        expected = sheet.peak(precision) / sheet.bandwidth
        assert sheet.balance(precision) == pytest.approx(expected, nan_ok=True)


def test_a_precision_the_sheet_lacks_is_nan():
    t4 = datasheet_for("Tesla T4")
    assert t4 is not None
    assert math.isnan(t4.peak("bfloat16")) and math.isnan(t4.balance("bfloat16"))
    assert "no bfloat16 figure" in t4.words("bfloat16") and LABEL in t4.words("bfloat16")


def test_words_carry_the_figures_and_the_label():
    h100 = datasheet_for("NVIDIA H100 80GB HBM3")
    assert h100 is not None
    assert h100.words("float32") == ("NVIDIA H100 SXM5 80GB: 67 TFLOP/s float32, 3.35 TB/s "
                                     "(datasheet, not measured)")
    l4 = datasheet_for("NVIDIA L4")
    assert l4 is not None and l4.words("float16").endswith("121 TFLOP/s float16, 300 GB/s "
                                                            f"({LABEL})")
    assert all(LABEL in sheet.words("float32") for sheet in SHEETS)
