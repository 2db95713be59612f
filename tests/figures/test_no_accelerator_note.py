"""A sweep without an accelerator says, in one note, what it compares and how a GPU series
would appear; a sweep stored with the former words shows the same note once."""

from __future__ import annotations

from iris_gui.engine.records.sweep_model import (
    FORMER_NO_ACCELERATOR_NOTES,
    NO_ACCELERATOR_NOTE,
    NO_ACCELERATOR_SERIES,
    is_no_accelerator_note,
)
from iris_gui.figures.crossover.crossover_text import (
    NO_ACCELERATOR,
    NO_ACCELERATOR_TITLE,
    status_notes,
)
from iris_gui.ui.panels.samples.sweep import sample_cpu_sweep


def test_the_note_says_what_is_compared_and_where_a_gpu_series_comes_from():
    assert NO_ACCELERATOR is NO_ACCELERATOR_NOTE and NO_ACCELERATOR_TITLE is NO_ACCELERATOR_SERIES
    assert NO_ACCELERATOR_NOTE.startswith(
        "no accelerator here: the sweep compares CPU series (threads, engines). ")
    for words in ("A GPU series appears when a GPU is present or a GPU host is added",
                  "Hosts…", "iris-gui hosts add", "scripts/gpu_check.sh on a GPU server"):
        assert words in NO_ACCELERATOR_NOTE, words


def test_a_stored_sweeps_former_words_are_the_same_note_said_once():
    stored = sample_cpu_sweep()
    stored.notes = [*FORMER_NO_ACCELERATOR_NOTES]
    notes = status_notes(stored)
    assert notes.count(NO_ACCELERATOR_NOTE) == 1
    assert not set(notes) & set(FORMER_NO_ACCELERATOR_NOTES)
    assert all(is_no_accelerator_note(n) for n in (NO_ACCELERATOR_NOTE,
                                                   *FORMER_NO_ACCELERATOR_NOTES))
