"""Exceptions the engine raises for input a user can correct."""


class EngineError(Exception):
    """Base class for errors whose message is meant for the user, as one line."""


class ConfigError(EngineError, ValueError):
    """A run description names a value outside what is allowed."""


class DeviceUnavailable(ConfigError):
    """The requested device is unknown or absent on this machine."""


class RunCancelled(EngineError):
    """A job was stopped on request before it had a result (explain checks between blocks)."""


class RecordError(EngineError, ValueError):
    """A stored record does not have the shape its type needs; the message names the field
    (``timings is null``), so a reader can skip the record and say why."""
