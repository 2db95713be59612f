"""AppSettings over an INI file: values round-trip, and bad stored values never raise."""

import json

import pytest
from PySide6.QtCore import QByteArray, QSettings

from iris_gui.engine.spec.config import MAX_EPOCHS, RunConfig
from iris_gui.ui.panels.run.panel import ControlsPanel
from iris_gui.ui.window.settings import AppSettings

CONFIG = RunConfig(dataset="wine", hidden=(16, 8), optimizer="adam", lr=3e-4, epochs=5000,
                   device="cuda:0", record="every:250", call="call", seed=2**40)


@pytest.fixture
def ini(tmp_path):
    path = str(tmp_path / "settings.ini")

    def open_settings() -> AppSettings:
        return AppSettings(QSettings(path, QSettings.Format.IniFormat))

    return open_settings


def store_raw(ini, key: str, value) -> None:
    settings = ini()
    settings._settings.setValue(key, value)
    settings.sync()


def test_config_and_execution_round_trip(ini):
    writer = ini()
    writer.save_config(CONFIG, "in-process")
    writer.sync()
    assert ini().load_config() == (CONFIG, "in-process")


def test_nothing_stored_gives_defaults(ini):
    assert ini().load_config() == (RunConfig(), "process")


@pytest.mark.parametrize("garbage", ["{not json", "[1, 2]", "null", "", "42"])
def test_garbage_json_falls_back_to_defaults(ini, garbage):
    store_raw(ini, "run/config", garbage)
    assert ini().load_config()[0] == RunConfig()


def test_bad_fields_fall_back_one_by_one(ini):
    stored = CONFIG.to_dict() | {"epochs": MAX_EPOCHS + 1, "hidden": "10", "lr": 10**400,
                                 "dataset": "mnist", "future_field": 1}
    store_raw(ini, "run/config", json.dumps(stored))
    config, _ = ini().load_config()
    assert config == CONFIG.replace(epochs=RunConfig().epochs, hidden=RunConfig().hidden,
                                    lr=RunConfig().lr, dataset=RunConfig().dataset)


def test_unknown_execution_falls_back(ini):
    store_raw(ini, "run/execution", "threads")
    assert ini().load_config()[1] == "process"


def test_window_geometry_round_trips(ini):
    assert ini().load_window() == (None, None)
    writer = ini()
    writer.save_window(QByteArray(b"\x01\x02geometry\x00"), QByteArray(b"state\xff"))
    writer.sync()
    geometry, state = ini().load_window()
    assert bytes(geometry.data()) == b"\x01\x02geometry\x00"
    assert bytes(state.data()) == b"state\xff"


def test_window_values_of_the_wrong_type_are_ignored(ini):
    store_raw(ini, "window/geometry", "not bytes")
    assert ini().load_window() == (None, None)


def test_log_y_round_trips(ini):
    assert ini().log_y is False
    writer = ini()
    writer.log_y = True
    writer.sync()
    assert ini().log_y is True


def test_panel_restores_what_it_saved(ini, qtbot):
    first = ControlsPanel()
    qtbot.addWidget(first)
    first.set_config(CONFIG)
    first.set_execution("in-process")
    writer = ini()
    writer.save_config(first.config(), first.execution())
    writer.sync()
    second = ControlsPanel()
    qtbot.addWidget(second)
    config, execution = ini().load_config()
    second.set_config(config)
    second.set_execution(execution)
    assert (second.config(), second.execution()) == (CONFIG, "in-process")


def test_theme_round_trips_and_unknown_values_read_as_system(ini):
    assert ini().theme == "system"
    writer = ini()
    writer.theme = "dark"
    writer.sync()
    assert ini().theme == "dark"
    store_raw(ini, "view/theme", "purple")
    assert ini().theme == "system"


@pytest.mark.parametrize("keys", [[], ["saved"], ["saved", "device_name", "threads"]])
def test_hidden_columns_round_trip_by_key(ini, keys):
    assert ini().hidden_columns is None  # never chosen: the table's defaults
    writer = ini()
    writer.hidden_columns = keys
    writer.known_columns = ["id", "saved"]
    writer.sync()
    assert ini().hidden_columns == keys and ini().known_columns == ["id", "saved"]


@pytest.mark.parametrize("garbage", ["not json", json.dumps({"a": 1}), json.dumps([1, "saved"])])
def test_hidden_columns_of_the_wrong_shape_are_ignored(ini, garbage):
    store_raw(ini, "results/hidden_column_keys", garbage)
    assert ini().hidden_columns in (None, ["saved"])


def test_a_version_1_file_is_migrated_once_to_keys(ini):
    settings = ini()._settings  # a new file: at today's version already
    assert settings.value("settings/version") in (2, "2")
    settings.remove("settings/version")
    settings.setValue("results/hidden_columns", json.dumps(["Saved", "Test acc.", "Gone"]))
    settings.setValue("results/known_columns", json.dumps(["ID", "Saved", "Test acc."]))
    settings.sync()
    migrated = ini()
    assert migrated.hidden_columns == ["saved", "test_accuracy"]  # an unknown title dropped
    assert migrated.known_columns == ["id", "saved", "test_accuracy"]
    raw = migrated._settings
    assert raw.value("results/hidden_columns") is None and raw.value("settings/version") in (2, "2")
    migrated.hidden_columns = ["saved"]
    migrated.sync()
    assert ini().hidden_columns == ["saved"]  # not migrated again


@pytest.mark.parametrize("version", ["7", "not a number", "-3"])
def test_an_odd_or_newer_version_never_stops_the_window(ini, version):
    store_raw(ini, "settings/version", version)
    store_raw(ini, "results/hidden_column_keys", json.dumps(["saved"]))
    assert ini().hidden_columns in (None, ["saved"])


def test_the_advanced_section_state_round_trips(ini):
    assert ini().advanced_open is False
    writer = ini()
    writer.advanced_open = True
    writer.sync()
    assert ini().advanced_open is True
