"""Whether a machine can take a data-parallel run's world: pure, so the Run panel says it
before Train as the launcher (parallel/launch.py) refuses it."""

from __future__ import annotations

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError


def check_world(config: RunConfig, cores: int | None) -> None:
    """ConfigError in one line for a world the device or ``cores`` cannot take (``cores``
    None: not known here, a host's worker checks it there)."""
    world = config.world
    if world == 1:
        return
    if not (config.device == "cpu" or config.device.endswith(":cpu")):
        raise ConfigError(f"{world} processes on {config.device}: data-parallel runs train on "
                          "the CPU with gloo here (NCCL on CUDA devices is not built yet); "
                          "choose --device cpu")
    threads = config.threads
    if cores is not None and world * threads > cores:
        most = cores // threads
        fix = (f"choose --world {most} or fewer" if most >= 2
               else "choose --world 1 or fewer --threads")
        raise ConfigError(f"{world} processes of {threads} thread{'s' if threads > 1 else ''} "
                          f"need {world * threads} cores; this machine has {cores}: {fix}")
