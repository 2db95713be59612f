"""Fixtures for the CLI tests; the helpers live in tests/support/cli.py."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A data directory for one test's subprocesses (IRIS_GUI_DATA_DIR); not created here."""
    return tmp_path / "data"


@pytest.fixture(scope="session")
def repeated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """``train --repeat 3`` (300 epochs, seed 8) into a store of its own: its directory and the
    printed record. Shared read-only: a test that changes the store works on a copy."""
    from support.cli import ok_json, run_cli

    data = tmp_path_factory.mktemp("repeat")
    record = ok_json(run_cli(
        ["train", "--epochs", "300", "--seed", "8", "--repeat", "3", "--json"], data))
    return data, record
