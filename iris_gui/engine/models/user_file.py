"""Your own model: ``FILE.py:NAME``, an ``nn.Module`` subclass or a factory in a Python file of
yours, called as ``NAME(input_shape, classes)`` (``input_shape`` one row's shape without the
batch: ``(features,)`` for a table, ``(channels, height, width)`` for images, ``(steps,
values)`` for sequences) and returning the module, whose forward takes a batch of that shape
and returns ``(batch, classes)`` logits.

The file is your code, run on your machine by the worker that trains (never by the window's
process): its bytes are read once, hashed for the run's record and run as a module of its own
(named by the hash), each time a run is built. What goes wrong is one line naming the file and what to fix.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from torch import nn

from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.spec.models import model_file_parts, model_file_path

MODULE_PREFIX = "iris_gui_user_model_"


def load_user_model(model: str, shape: tuple[int, ...],
                    classes: int) -> tuple[nn.Module, dict[str, Any]]:
    """The module ``NAME(shape, classes)`` builds, and the record of the file it came from
    (path, size and SHA-256 of the very bytes that ran), kept with the run as a CSV's is."""
    _, name = model_file_parts(model)
    path = model_file_path(model)
    try:
        source = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"model file {path} cannot be read ({error.strerror or error}); give "
                          "--model FILE.py:NAME with the path of a Python file") from None
    digest = hashlib.sha256(source).hexdigest()
    record: dict[str, Any] = {"path": str(path), "size": len(source), "sha256": digest,
                              "name": name}
    module = _imported(path, source, digest)
    target = getattr(module, name, None)
    if target is None:
        names = sorted(n for n, v in vars(module).items()
                       if not n.startswith("_") and (isinstance(v, type) or callable(v)))
        raise ConfigError(f"model file {path} has no {name!r}; it defines: "
                          f"{', '.join(names[:12]) or 'nothing callable'}")
    try:
        built = target(shape, classes)
    except (Exception, SystemExit) as error:  # noqa: BLE001 - the user's code: one line
        raise ConfigError(f"{name}({shape!r}, {classes!r}) in {path} failed: "
                          f"{type(error).__name__}: {_line(error)}") from None
    if not isinstance(built, nn.Module):
        raise ConfigError(f"{name}(input_shape, classes) in {path} returned a value of type "
                          f"{type(built).__name__}, not a torch nn.Module")
    return built, record


def _imported(path: Path, source: bytes, digest: str) -> Any:
    """``source`` (the file's bytes, as hashed) run as a module of its own, named by its
    contents: torch.compile and pickle find a function's module by that name, and a changed
    file is another module rather than the old one overwritten."""
    spec = importlib.util.spec_from_loader(f"{MODULE_PREFIX}{path.stem}_{digest[:16]}",
                                           loader=None, origin=str(path))
    assert spec is not None, "a spec without a loader is always made"
    module = importlib.util.module_from_spec(spec)
    module.__file__ = str(path)
    sys.modules[spec.name] = module  # what dynamo, a dataclass or a pickle looks up
    try:
        exec(compile(source, str(path), "exec"), module.__dict__)  # noqa: S102 - the user's own model file
    except SyntaxError as error:
        sys.modules.pop(spec.name, None)
        raise ConfigError(f"model file {path} has a syntax error at line {error.lineno}: "
                          f"{error.msg}") from None
    except Exception as error:  # noqa: BLE001 - an import inside it fails, or its top raises
        sys.modules.pop(spec.name, None)
        raise ConfigError(f"model file {path} could not be imported: {type(error).__name__}: "
                          f"{_line(error)}") from None
    except (SystemExit, GeneratorExit) as error:  # its top asks the process to end: not ours
        sys.modules.pop(spec.name, None)
        raise ConfigError(f"model file {path} called {type(error).__name__}"
                          f"({_line(error)}) while it was imported; a model file defines a "
                          "model and must not end the program") from None
    return module


def _line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 200 else text[:199] + "…"
