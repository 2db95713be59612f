"""RunConfig: a frozen, validated description of one training run.

The defaults are the note's experiment: Iris, an 80/20 split with seed 42, MinMax scaling fitted
on the training part, a 4-10-3 ReLU MLP, full-batch SGD at lr 0.01 for 20,000 epochs, with
``loss.item()`` every epoch and ``model.forward(x)`` as the note writes it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, NamedTuple

from iris_gui.engine.spec.batch_settings import check_batch_settings, default_persistent
from iris_gui.engine.spec.engines import (
    ENGINES,
    calls_module,
    unsupported_batching,
    unsupported_choice,
    unsupported_model,
)
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.spec.models import check_model, family, input_shape

DATASETS = ("iris", "wine", "breast_cancer", "digits", "synthetic", "images", "sequences", "csv")
SCALERS = ("minmax", "standard", "none")
OPTIMIZERS = ("sgd", "adam")
CALL_STYLES = ("call", "forward")

MAX_EPOCHS = 10_000_000
MAX_LAYERS = 8
MAX_WIDTH = 4096
MAX_LR = 100.0
MAX_THREADS = 256
MAX_WORLD = 64
MAX_SYNTHETIC_ROWS = 10_000_000
MAX_SYNTHETIC_FEATURES = 10_000
MAX_SYNTHETIC_CLASSES = 100
# Float64 in scikit-learn, then float32 copies on the host and the device: 50 M values is
# about 1 GB all told, which fits any machine this runs on; beyond that we refuse up front
# rather than let the process be killed for memory mid-run.
MAX_SYNTHETIC_VALUES = 50_000_000


class Recording(NamedTuple):
    """How the loss is brought back from the device: ``mode`` and, for ``every``, the interval."""

    mode: str  # "every-epoch" | "every" | "device" | "none"
    interval: int = 1

    @property
    def reads_on_host(self) -> bool:
        """Whether recorded epochs read their loss on the host (every-epoch, every:N)."""
        return self.mode in ("every-epoch", "every")

    @property
    def stride(self) -> int:
        """The epochs between two recorded losses: N for every:N, else 1."""
        return self.interval if self.mode == "every" else 1


def parse_recording(text: str) -> Recording:
    """Parse ``every-epoch``, ``every:N``, ``device`` or ``none``."""
    value = str(text).strip()
    if value in ("every-epoch", "device", "none"):
        return Recording(value)
    if value.startswith("every:"):
        count = value[len("every:"):]
        if count.isdigit() and 1 <= int(count) <= MAX_EPOCHS:
            return Recording("every", int(count))
        raise ConfigError(
            f"record {value!r} is malformed: every:N needs a whole number N from 1 to "
            f"{MAX_EPOCHS:,} (for example every:200)"
        )
    raise ConfigError(f"record {value!r} is not allowed; choose every-epoch, every:N, device or none")


def parse_hidden(text: str) -> tuple[int, ...]:
    """Parse hidden layer widths written as ``10`` or ``10,10``."""
    parts = [p.strip() for p in str(text).split(",")]
    try:
        widths = tuple(int(p) for p in parts)
    except ValueError:
        raise ConfigError(
            f"hidden {text!r} is not allowed; give layer widths as whole numbers, e.g. 10 or 10,10"
        ) from None
    _check_hidden(widths)
    return widths


def _check_hidden(widths: tuple[int, ...]) -> None:
    if not 1 <= len(widths) <= MAX_LAYERS:
        raise ConfigError(f"hidden has {len(widths)} layers; from 1 to {MAX_LAYERS} are allowed")
    for width in widths:
        if not 1 <= width <= MAX_WIDTH:
            raise ConfigError(
                f"hidden layer width {width} is not allowed; widths run from 1 to {MAX_WIDTH}"
            )


def _check_int(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{name} {value!r} is not allowed; it must be a whole number from {low:,} to {high:,}")


def _check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"{name} {value!r} is not allowed; choose one of: {', '.join(allowed)}")


@dataclass(frozen=True)
class RunConfig:
    """What to run. Construction validates; an invalid value raises ConfigError."""

    dataset: str = "iris"
    test_size: float = 0.2
    split_seed: int = 42
    scaler: str = "minmax"
    hidden: tuple[int, ...] = field(default=(10,))
    optimizer: str = "sgd"
    lr: float = 0.01
    momentum: float = 0.0
    epochs: int = 20_000
    seed: int = 0
    device: str = "cpu"
    threads: int = 1
    record: str = "every-epoch"
    call: str = "forward"
    engine: str = "eager"
    synthetic_rows: int = 1000
    synthetic_features: int = 20
    synthetic_classes: int = 3
    # Mini-batches (batching.py): 0 is the note's full batch; N shuffles the training rows
    # every epoch with a generator seeded from ``seed`` and steps through them N at a time.
    batch: int = 0
    drop_last: bool = False
    # How batches reach the model: "resident" (the data set on the device, batches by index)
    # or "loader" (a torch DataLoader over host tensors, copied to the device every step).
    data_path: str = "resident"
    workers: int = 0
    pin_memory: bool = False
    non_blocking: bool = False
    # None (not said): persistent whenever there are workers (batch_settings.default_persistent);
    # a constructed config always holds True or False.
    persistent_workers: bool | None = None
    prefetch_factor: int = 2
    # float32 (the note's), float64, or bfloat16/float16 autocast (precision.py).
    precision: str = "float32"
    tf32: bool = False
    # Your own data (dataset "csv", csv_data.py): the file and its target column ("" is the
    # last column).
    data_file: str = ""
    target: str = ""
    # The model family (spec/models.py): "mlp" (``hidden``), "cnn", "transformer", or your
    # own "FILE.py:NAME"; a CNN's channels or a transformer's features (``width``), its blocks
    # or layers (``depth``), a transformer's ``heads``; the synthetic images' and sequences'
    # shape.
    model: str = "mlp"
    width: int = 16
    depth: int = 2
    heads: int = 2
    seq_len: int = 16
    image_size: int = 16
    channels: int = 1
    # Data-parallel training (parallel/): the processes that train one model together, each
    # with ``threads`` threads and a shard of the rows; 1 is one process, as the note's.
    world: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "hidden", tuple(self.hidden))
        if self.persistent_workers is None:
            object.__setattr__(self, "persistent_workers", default_persistent(self.workers))
        _check_choice("dataset", self.dataset, DATASETS)
        _check_choice("scaler", self.scaler, SCALERS)
        _check_choice("optimizer", self.optimizer, OPTIMIZERS)
        _check_choice("call style", self.call, CALL_STYLES)
        _check_int("epochs", self.epochs, 1, MAX_EPOCHS)
        _check_int("seed", self.seed, 0, 2**63 - 1)
        _check_int("split seed", self.split_seed, 0, 2**32 - 1)
        _check_int("threads", self.threads, 1, MAX_THREADS)
        _check_hidden(self.hidden)
        _check_float("lr", self.lr, 0.0, MAX_LR, low_open=True)
        _check_float("momentum", self.momentum, 0.0, 1.0, high_open=True)
        _check_float("test size", self.test_size, 0.05, 0.95)
        recording = parse_recording(self.record)
        _check_choice("engine", self.engine, ENGINES)
        check_model(self)
        reason = (unsupported_choice(self.engine, recording.mode, self.optimizer, self.call)
                  or unsupported_model(self.engine, family(self.model)))
        if reason is not None:
            raise ConfigError(reason)
        if not isinstance(self.device, str) or not self.device.strip():
            raise ConfigError("device is empty; name one, e.g. cpu or cuda:0 (see iris-gui devices)")
        if self.dataset in ("synthetic", "images", "sequences"):
            self._check_synthetic()
        self._check_batching()
        self._check_data_file()
        self._check_world()

    def _check_world(self) -> None:
        _check_int("world", self.world, 1, MAX_WORLD)
        if self.world > 1 and (self.engine not in ("eager", "lean")
                               or self.data_path != "resident"
                               or self.precision not in ("float32", "float64")):
            raise ConfigError(f"world {self.world} is not allowed with these settings; a "
                              "data-parallel run takes the eager or lean engine, resident "
                              "data and float32 or float64")
        if 0 < self.batch < self.world:
            raise ConfigError(f"batch {self.batch} is smaller than world {self.world}: every "
                              f"process needs a row of every batch; give --batch "
                              f"{self.world} or more")

    def _check_batching(self) -> None:
        check_batch_settings(self)
        reason = unsupported_batching(self.engine, self.batch, self.data_path, self.precision,
                                      self.tf32)
        if reason is not None:
            raise ConfigError(reason)

    def _check_data_file(self) -> None:
        if self.dataset == "csv":
            if not isinstance(self.data_file, str) or not self.data_file.strip():
                raise ConfigError("data set csv needs a file: give --data path.csv")
        elif self.data_file or self.target:
            raise ConfigError(f"a data file and target apply only to CSV data, not to the "
                              f"{self.dataset} data set; give --data path.csv")

    def _check_synthetic(self) -> None:
        _check_int("synthetic rows", self.synthetic_rows, 20, MAX_SYNTHETIC_ROWS)
        _check_int("synthetic features", self.synthetic_features, 2, MAX_SYNTHETIC_FEATURES)
        _check_int("synthetic classes", self.synthetic_classes, 2, MAX_SYNTHETIC_CLASSES)
        per_row = math.prod(input_shape(self, self.synthetic_features))
        values = self.synthetic_rows * per_row
        if values > MAX_SYNTHETIC_VALUES:
            each = "features" if self.dataset == "synthetic" else "values each"
            raise ConfigError(
                f"synthetic data of {self.synthetic_rows:,} rows x {per_row:,} {each} "
                f"({values:,} values) is too large for memory; at most "
                f"{MAX_SYNTHETIC_VALUES:,} values are allowed"
            )
        if self.synthetic_classes > 2**self.synthetic_features:
            raise ConfigError(
                f"synthetic classes {self.synthetic_classes} need more than "
                f"{self.synthetic_features:,} features; at most 2**features classes are allowed"
            )

    @property
    def recording(self) -> Recording:
        return parse_recording(self.record)

    def replace(self, **changes: Any) -> RunConfig:
        """A copy with ``changes``. Persistent workers that were the default follow the new
        number of workers (0 -> 2 persists, 2 -> 0 does not); a choice against it is kept."""
        if ("workers" in changes and "persistent_workers" not in changes
                and self.persistent_workers == default_persistent(self.workers)):
            changes["persistent_workers"] = None
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["hidden"] = list(self.hidden)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        """Rebuild a config; keys this version does not know are ignored (older/newer stores)."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    @property
    def calls_module(self) -> bool:
        """Whether the call style applies: rungs past ``lean`` never call the module, and a
        call style named beside them would describe something that did not happen."""
        return calls_module(self.engine)

    @property
    def batch_label(self) -> str:
        """``full`` or the batch size, as the CLI's --batch takes it."""
        return str(self.batch) if self.batch else "full"


def _check_float(
    name: str, value: Any, low: float, high: float, low_open: bool = False, high_open: bool = False
) -> None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        ok = (value > low if low_open else value >= low) and (value < high if high_open else value <= high)
    if not ok:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        raise ConfigError(f"{name} {value!r} is not allowed; it must be a finite number in {left}{low:g}, {high:g}{right}")
