"""Ids on the command line: SQLite's integers are 1 to 2**63 - 1; anything else is refused by
the parser in one line (exit 2), never an OverflowError traceback from the store."""

from __future__ import annotations

import pytest
from support.cli import describe, one_line_error, run_many

TOO_BIG = str(2**63)
HUGE = "9" * 30

CASES = {
    "runs show 2^63": ["runs", "show", TOO_BIG],
    "runs show huge": ["runs", "show", HUGE],
    "runs delete 2^63": ["runs", "delete", TOO_BIG],
    "runs show 0": ["runs", "show", "0"],
    "sweeps show 2^63": ["sweeps", "show", TOO_BIG],
    "sweeps delete 2^63": ["sweeps", "delete", TOO_BIG],
    "plot --runs 2^63": ["plot", "--runs", f"1,{TOO_BIG}", "--out", "x.csv"],
    "plot --sweep 2^63": ["plot", "--sweep", TOO_BIG, "--out", "x.csv"],
    "report --runs 2^63": ["report", "--runs", TOO_BIG, "--out", "x.md"],
    "report --sweep 2^63": ["report", "--runs", "1", "--sweep", TOO_BIG, "--out", "x.md"],
}


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict:
    data = tmp_path_factory.mktemp("ids")
    jobs = [(args, data) for args in CASES.values()]
    jobs.append((["runs", "show", str(2**63 - 1)], data))
    procs = run_many(jobs)
    return {"cases": dict(zip(CASES, procs[:-1], strict=True)), "largest": procs[-1],
            "data": data}


@pytest.mark.parametrize("name", list(CASES))
def test_an_id_outside_sqlite_is_one_line(answers: dict, name: str) -> None:
    line = one_line_error(answers["cases"][name])
    assert "9,223,372,036,854,775,807" in line, line


def test_the_largest_id_reaches_the_store(answers: dict) -> None:
    """2**63 - 1 is a valid id: the store answers that there is no such run."""
    proc = answers["largest"]
    line = one_line_error(proc)
    assert f"no run {2**63 - 1}" in line, describe(proc)
