"""A loader's workers persist unless the run says otherwise: decided once, in RunConfig, kept
as stored records say, and warned about where they do not persist."""

from __future__ import annotations

import pytest

from iris_gui.engine.spec import batch_settings
from iris_gui.engine.spec.batch_settings import restart_warning
from iris_gui.engine.spec.config import ConfigError, RunConfig

LOADER = {"batch": 32, "data_path": "loader"}


def test_workers_persist_by_default():
    assert RunConfig(**LOADER, workers=2).persistent_workers is True
    assert RunConfig(**LOADER).persistent_workers is False
    assert RunConfig().persistent_workers is False


def test_a_run_may_turn_them_off():
    assert RunConfig(**LOADER, workers=2, persistent_workers=False).persistent_workers is False


def test_persistent_workers_without_workers_are_still_refused():
    with pytest.raises(ConfigError, match="needs --workers 1 or more"):
        RunConfig(**LOADER, persistent_workers=True)


def test_an_old_stored_record_loads_unchanged():
    old = {**RunConfig(**LOADER, workers=2).to_dict(), "persistent_workers": False}
    assert RunConfig.from_dict(old).persistent_workers is False
    older = {key: value for key, value in RunConfig().to_dict().items()
             if key not in ("workers", "persistent_workers", "data_path", "batch")}
    assert RunConfig.from_dict(older).persistent_workers is False


def test_a_default_follows_the_workers_and_a_choice_stays():
    loader = RunConfig(**LOADER)
    assert loader.replace(workers=2).persistent_workers is True
    assert loader.replace(workers=2).replace(workers=0).persistent_workers is False
    off = loader.replace(workers=2, persistent_workers=False)
    assert off.replace(workers=4).persistent_workers is False
    assert off.replace(epochs=5).persistent_workers is False


def test_non_persistent_workers_are_warned_about(monkeypatch):
    monkeypatch.setattr(batch_settings, "loader_start_method", lambda: "fork")
    config = RunConfig(**LOADER, workers=2, persistent_workers=False)
    assert restart_warning(config) == (
        "each epoch starts and stops 2 loader workers: expect about 60 ms an epoch more; "
        "--persistent-workers keeps them")
    monkeypatch.setattr(batch_settings, "loader_start_method", lambda: "spawn")
    assert "about 3,400 ms an epoch more" in restart_warning(config)
    for quiet in (RunConfig(**LOADER, workers=2), RunConfig(**LOADER), RunConfig()):
        assert restart_warning(quiet) == ""


def test_the_loader_starts_workers_as_the_platform_does(monkeypatch):
    import multiprocessing

    monkeypatch.delenv(batch_settings.START_METHOD_ENV, raising=False)  # make test-spawn's
    assert batch_settings.loader_start_method() == multiprocessing.get_all_start_methods()[0]
