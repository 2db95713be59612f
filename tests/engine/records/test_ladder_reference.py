"""The ladder has one reference per device, the note's loop on the note's settings, and names
every other setting on its rows: a batch-32 or bfloat16 eager run is its own rung, a busy
reference makes no ratio there a result, and a quiet run of the note's loop is preferred."""

from __future__ import annotations

from support.made_runs import made_run

from iris_gui.engine.records.ladder import is_note_loop, ladder_rows
from iris_gui.figures.ladder.ladder_text import bar_label, rung_names


def test_one_reference_per_device_and_other_settings_named() -> None:
    busy_note = made_run(120.0, wait=0.4)
    quiet_note = made_run(100.0)
    batched = made_run(400.0, batch=32)
    half = made_run(90.0, precision="bfloat16")
    lean = made_run(50.0, engine="lean", record="device")
    rows = ladder_rows([busy_note, quiet_note, batched, half, lean], [1, 2, 3, 4, 5])
    assert not is_note_loop(batched) and not is_note_loop(half) and is_note_loop(busy_note)
    references = [row.run_id for row in rows if row.note_loop]
    assert references == [2]  # the quiet one, though the busy one came first
    by_id = {row.run_id: row for row in rows}
    assert rows[0].run_id == 2  # the reference leads its device
    assert {row.reference_id for row in rows} == {2}
    assert by_id[3].settings == "batch 32" and by_id[4].settings == "bfloat16"
    assert by_id[2].settings == by_id[5].settings == ""
    names = dict(zip((row.run_id for row in rows), rung_names(rows), strict=True))
    assert names[3] == "eager · batch 32" and names[4] == "eager · bfloat16"
    assert names[2] == "eager (the note's loop) · run 2"
    assert names[1] == "eager (the note's loop) · run 1"
    assert by_id[1].unfit == "CPU busy"
    assert bar_label(by_id[1]) == "not a result · 120 µs"
    assert bar_label(by_id[2]) == "the note's loop · 100 µs"
    assert bar_label(by_id[5]) == "2.0× vs the note's loop · 50 µs"
    assert bar_label(by_id[3]) == "0.2× vs the note's loop · slower here · 400 µs"


def test_a_busy_reference_makes_no_ratio_on_its_device_a_result() -> None:
    rows = ladder_rows([made_run(100.0, wait=0.3), made_run(50.0, engine="lean",
                                                            record="device")], [1, 2])
    note, lean = rows
    assert note.note_loop and note.unfit == "CPU busy"
    assert bar_label(note) == "the note's loop (CPU busy) · 100 µs"
    assert lean.unfit == "CPU busy" and not lean.speedup_is_result
    # Its own bar has no busy mark: the label says whose busy CPU it was.
    assert bar_label(lean) == "not a result (CPU busy reference) · 50 µs"
    assert "the CPU was busy with other work during the note's loop on cpu" in \
        lean.standing_reason
    assert lean.to_dict()["standing"] == "busy"


def test_other_data_on_one_device_is_not_compared() -> None:
    rows = ladder_rows([made_run(100.0), made_run(50.0, engine="lean", record="device",
                                                  dataset="wine")], [1, 2])
    assert rows[1].unfit == "other data"
    assert bar_label(rows[1]).startswith("not a result: other data · ")
