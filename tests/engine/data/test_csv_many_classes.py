"""A target of very many classes for its rows (a measurement in the last column) gets one
note, on the file's record and the run, where a target of a few classes gets none."""

from __future__ import annotations

from pathlib import Path

from iris_gui.engine.data.csv_data import many_classes_note, read_csv_data
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.trainer import train


def prices_csv(tmp_path: Path, rows: int = 150, distinct: int = 121) -> str:
    """Two features and a price whose first ``distinct`` rows differ (the rest repeat)."""
    lines = ["size,rooms,price\n"]
    for row in range(rows):
        lines.append(f"{row % 7},{row % 3},{1000 + row % distinct}.5\n")
    path = tmp_path / "houses.csv"
    path.write_text("".join(lines), encoding="utf-8")
    return str(path)


def test_a_measurement_as_target_is_noted(tmp_path):
    record = read_csv_data(prices_csv(tmp_path)).record
    assert (record["classes"], record["rows"], record["target"]) == (121, 150, "price")
    assert many_classes_note(record) == (
        "target 'price' has 121 distinct values in 150 rows: is it a measurement rather than "
        "a class? choose another with --target")
    assert many_classes_note(record, "choose another target").endswith("choose another target")


def test_few_classes_or_few_distinct_rows_are_not(tmp_path):
    assert many_classes_note(read_csv_data(prices_csv(tmp_path, distinct=20)).record) == ""
    # 30 classes in 1,000 rows: 3% distinct, classes enough to learn from.
    assert many_classes_note(read_csv_data(prices_csv(tmp_path, 1_000, 30)).record) == ""
    assert many_classes_note({"rows": 150, "target": "price"}) == ""  # an older record


def test_the_run_carries_the_note(tmp_path):
    result = train(RunConfig(dataset="csv", data_file=prices_csv(tmp_path), epochs=5))
    assert result.data_file["classes"] == 121
    assert "121 distinct values in 150 rows" in many_classes_note(result.data_file)
