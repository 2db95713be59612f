"""Every item of the note's list is a sweep the sweep accepts, at every width it names, on the
CPU and within the memory a point may use here: checked without timing anything (the answers
are tests/engine/records/test_note_list.py's, the command tests/cli/test_cli_wins.py's)."""

from __future__ import annotations

import pytest
import torch

from iris_gui.engine.records.note_list import ITEMS
from iris_gui.engine.sweep import sweep
from iris_gui.engine.sweep.shapes import point_config, point_flops, row_values, values_held


@pytest.mark.parametrize("item", ITEMS, ids=lambda i: i.key)
def test_each_items_sweep_passes_the_sweeps_checks_and_fits_in_memory(item) -> None:
    spec = item.spec
    sweep._check(spec)
    assert [engine for _, engine, _ in sweep.series_of(spec)] == ["eager"]
    for width in spec.hidden:
        config = point_config(spec, width, optimizer=spec.optimizer, lr=spec.lr, seed=spec.seed)
        assert config.engine == "eager"
        for rows in spec.rows:
            for batch in spec.batches:
                reason = sweep.memory_reason(torch.device("cpu"), rows, row_values(spec), width,
                                             spec.classes, batch, values_held(spec, width))
                assert reason is None, (item.key, rows, width, batch, reason)
    flops = [point_flops(spec, max(spec.rows), w) for w in spec.hidden]
    assert flops == sorted(flops) and len(set(flops)) == len(flops)  # the work grows
