"""``train``'s notes: what non-persistent loader workers cost an epoch (once, before the run),
that workers persist by default, and a CSV target of very many classes for its rows."""

from __future__ import annotations

import json

from support.cli import status_out_err

from iris_gui.engine.spec import batch_settings

LOADER = ["train", "--batch", "32", "--data-path", "loader", "--workers", "2", "--epochs", "3",
          "--no-save"]
WARNING = ("note: each epoch starts and stops 2 loader workers: expect about 60 ms an epoch "
           "more; --persistent-workers keeps them\n")


def test_workers_persist_unless_told_not_to_and_then_the_cost_is_said(capsys, monkeypatch,
                                                                      tmp_path):
    monkeypatch.setattr(batch_settings, "loader_start_method", lambda: "fork")
    code, out, _ = status_out_err(LOADER, tmp_path)
    assert code == 0 and "note:" not in out
    assert "loader with 2 workers (persistent)" in out
    code, out, _ = status_out_err([*LOADER, "--no-persistent-workers"], tmp_path)
    assert code == 0 and out.startswith(WARNING) and out.count("note:") == 1
    assert "loader with 2 workers;" in out
    code, out, err = status_out_err([*LOADER, "--no-persistent-workers", "--json"], tmp_path)
    assert code == 0 and err == WARNING
    assert json.loads(out)["config"]["persistent_workers"] is False


def test_a_price_as_target_is_noted_in_the_summary(tmp_path):
    lines = ["size,rooms,price\n"]
    lines += [f"{row % 7},{row % 3},{1000 + row % 121}.5\n" for row in range(150)]
    houses = tmp_path / "houses.csv"
    houses.write_text("".join(lines), encoding="utf-8")
    code, out, _ = status_out_err(["train", "--data", str(houses), "--epochs", "3", "--no-save"], tmp_path)
    assert code == 0
    assert ("  note          target 'price' has 121 distinct values in 150 rows: is it a "
            "measurement rather than a class? choose another with --target\n") in out
