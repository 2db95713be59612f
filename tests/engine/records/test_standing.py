"""Whether a speedup is a result (records/standing.py) and the comparison's verdict
(words/verdict.py), on made-up runs with fixed figures: a busy CPU, a noisy steady state or
other data is never a finding, overlapping ranges are within the noise."""

from __future__ import annotations

import pytest
from support.made_runs import made_run

from iris_gui.engine.records.compare import compare_groups
from iris_gui.engine.records.standing import Kind, measurable, overlaps, standing
from iris_gui.engine.words.verdict import rows_words, verdict

QUIET = made_run(100.0)


@pytest.mark.parametrize(("run", "kind"), [
    (made_run(50.0), Kind.RESULT),
    (made_run(99.5), Kind.WITHIN_NOISE),  # 100 ± 0.5 and 99.5 ± 0.5 touch
    (made_run(50.0, wait=0.38), Kind.BUSY),
    (made_run(50.0, iqr=6.0), Kind.NOISY),  # IQR 12% of the median
    (made_run(50.0, dataset="wine"), Kind.OTHER_DATA),
    (made_run(50.0, dataset="synthetic", synthetic_rows=5000), Kind.OTHER_DATA),
    (made_run(50.0, failed=True), Kind.PARTIAL),
])
def test_each_kind_against_a_quiet_baseline(run, kind) -> None:
    stand = standing(QUIET, run)
    assert stand.kind is kind
    assert stand.is_result == (kind in (Kind.RESULT, Kind.WITHIN_NOISE))
    assert (stand.reason == "") == (kind is Kind.RESULT)
    assert stand.rerun_helps == (kind in (Kind.BUSY, Kind.NOISY))


def test_a_busy_or_noisy_baseline_makes_every_ratio_no_result() -> None:
    busy = standing(made_run(100.0, wait=0.2), made_run(50.0), "run 2", "the baseline (run 1)")
    assert busy.kind is Kind.BUSY
    assert busy.reason == ("the CPU was busy with other work during the baseline (run 1) (20% "
                           "of its loop waited for a core): the ratio is the machine's load as "
                           "much as the work; re-run it when the machine is quieter")
    assert standing(made_run(100.0, iqr=20.0), made_run(50.0)).kind is Kind.NOISY


def test_the_weightier_reason_wins() -> None:
    # Partial before other data before busy before noisy.
    assert standing(QUIET, made_run(50.0, wait=0.5, iqr=9.0, dataset="wine", failed=True)
                    ).kind is Kind.PARTIAL
    assert standing(QUIET, made_run(50.0, wait=0.5, iqr=9.0, dataset="wine")).kind \
        is Kind.OTHER_DATA
    assert standing(QUIET, made_run(50.0, wait=0.5, iqr=9.0)).kind is Kind.BUSY


def test_settings_other_than_data_do_not_stop_a_comparison() -> None:
    # Batch 32 against the full batch is a fair question about the same data.
    assert standing(QUIET, made_run(50.0, batch=32)).kind is Kind.RESULT


def test_a_steady_state_without_a_spread_cannot_be_judged_within_the_noise() -> None:
    bare = made_run(100.0)
    bare.timings.epoch_us_method = "mean"
    assert not overlaps(bare.timings, QUIET.timings)
    assert measurable(bare).kind is Kind.RESULT
    assert measurable(made_run(1.0, wait=0.5)).kind is Kind.BUSY


def test_rows_words() -> None:
    assert [rows_words(n) for n in ([2], [2, 4], [2, 3, 5])] == [
        "row 2", "rows 2 and 4", "rows 2, 3 and 5"]


def test_the_verdict_names_findings_the_noise_and_what_is_no_result() -> None:
    compared = compare_groups([[QUIET], [made_run(50.0)], [made_run(99.5)],
                               [made_run(40.0, wait=0.3)], [made_run(200.0)]])
    assert verdict(compared) == (
        "Verdict: beyond the noise, against the baseline (row 1): row 2 is 2.00× faster, row 5 "
        "is 2.00× slower; row 3 is within the noise; row 4 is not a result (CPU busy): re-run "
        "it when the machine is quieter.")
    assert compared[3].standing.kind is Kind.BUSY and compared[0].standing.is_result


def test_when_every_row_is_busy_there_is_no_verdict_but_a_rerun() -> None:
    compared = compare_groups([[QUIET], [made_run(50.0, wait=0.3)], [made_run(9.0, wait=0.9)]])
    assert verdict(compared, times="x") == (
        "Verdict: none: 2 rows of 2 beside the baseline are not results (CPU busy), so no "
        "difference here is a finding: re-run them when the machine is quieter.")
    busy_base = compare_groups([[made_run(100.0, wait=0.3)], [made_run(50.0)]])
    assert verdict(busy_base).startswith("Verdict: none: the baseline (row 1) is not a result "
                                         "(the CPU was busy with other work during the "
                                         "baseline")


def test_a_replicated_row_is_as_sound_as_its_least_sound_replicate() -> None:
    compared = compare_groups([[QUIET, QUIET], [made_run(50.0), made_run(51.0, wait=0.4)]])
    assert compared[1].standing.kind is Kind.BUSY


def test_no_difference_beyond_the_noise_is_said_so() -> None:
    compared = compare_groups([[QUIET], [made_run(100.4)]])
    assert verdict(compared) == ("Verdict: no row differs from the baseline (row 1) beyond "
                                 "the noise; row 2 is within the noise.")
