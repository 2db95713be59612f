"""Which files a run says it read, held to what it was asked: a worker reports the model file
and the data file it built the run from (path, size, SHA-256), and the store keeps them with
the run. A run that was asked for no file read none; one asked for a file read that file,
under the name asked. A host is never sent a job that names a file, so any file a host's run
reports is made up, and refused before the store sees it."""

from __future__ import annotations

from pathlib import Path

from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.typed import seen
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.models import is_model_file, model_file_parts


def provenance_fault(result: RunResult, config: RunConfig) -> str | None:
    """What is wrong with the files ``result`` says it read, for a run asked as ``config``;
    None when they are the ones asked (or none, when none was)."""
    told = result.model_file
    if is_model_file(config.model):
        path, name = model_file_parts(config.model)
        asked = (str(Path(path).expanduser()), name)
        if told and (told.get("path"), told.get("name")) != asked:
            return (f"names the model file {seen(told.get('path'))}:{seen(told.get('name'))}, "
                    f"where {config.model} was asked")
    elif told:
        return f"names a model file ({seen(told.get('path'))}) where the run asked for none"
    data = result.data_file
    if config.dataset == "csv":
        if data and data.get("path") != str(Path(config.data_file).expanduser().resolve()):
            return (f"names the data file {seen(data.get('path'))}, where "
                    f"{config.data_file} was asked")
    elif data:
        return f"names a data file ({seen(data.get('path'))}) where the run asked for none"
    if result.data_changed:
        return "says a file changed, which only this machine's store can tell"
    return None
