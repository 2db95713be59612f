"""Data sets, the train/test split and scaling, as the note prepares them (host-side numpy)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn import datasets
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from iris_gui.engine.data import shaped
from iris_gui.engine.data.csv_data import read_csv_data
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError


@dataclass(frozen=True)
class Dataset:
    x_train: np.ndarray  # float32, scaled
    x_test: np.ndarray
    y_train: np.ndarray  # int64, as CrossEntropyLoss wants
    y_test: np.ndarray
    n_features: int
    n_classes: int
    # The data set's own names for classes 0, 1, ... (empty for synthetic data, whose classes
    # have only numbers); a run records them so its confusion matrix can name its rows.
    class_names: tuple[str, ...] = ()
    # What a CSV data set was read from (csv_data.py's record: path, size, SHA-256, shape,
    # target); empty for the built-in data sets.
    data_file: dict[str, Any] = field(default_factory=dict)


def _load_raw(config: RunConfig, stop: Callable[[], bool] | None = None
              ) -> tuple[np.ndarray, np.ndarray, tuple[str, ...], dict[str, Any]]:
    if config.dataset == "csv":
        table = read_csv_data(config.data_file, config.target, stop=stop)
        return table.x, table.y, table.class_names, table.record
    if config.dataset == "synthetic":
        try:
            x, y = datasets.make_classification(
                n_samples=config.synthetic_rows,
                n_features=config.synthetic_features,
                n_informative=config.synthetic_features,
                n_redundant=0,
                n_classes=config.synthetic_classes,
                n_clusters_per_class=1,
                random_state=config.split_seed,
            )
            return x, y, (), {}
        except ValueError as error:
            raise ConfigError(f"synthetic data cannot be made: {error}") from None
    if config.dataset in ("images", "sequences"):
        made = shaped.images(config) if config.dataset == "images" else shaped.sequences(config)
        return *made, (), {}
    loaders = {
        "iris": datasets.load_iris,
        "wine": datasets.load_wine,
        "breast_cancer": datasets.load_breast_cancer,
        "digits": datasets.load_digits,
    }
    bunch = loaders[config.dataset]()
    return bunch.data, bunch.target, tuple(str(name) for name in bunch.target_names), {}


def _scaler(name: str):
    return {"minmax": MinMaxScaler, "standard": StandardScaler}[name]()


def load_dataset(config: RunConfig, stop: Callable[[], bool] | None = None) -> Dataset:
    """Load, split and scale; the scaler is fitted on the training part only, as the note does.
    ``stop``: asked while a CSV file is read (RunCancelled when it says so)."""
    x, y, class_names, data_file = _load_raw(config, stop)
    try:
        x_train, x_test, y_train, y_test = train_test_split(
            x, y, test_size=config.test_size, random_state=config.split_seed
        )
    except ValueError:
        # Only a tiny data set gets here (one part would be empty): say so in its numbers
        # rather than in scikit-learn's words.
        raise ConfigError(
            f"{len(x):,} rows are too few to split with test size {config.test_size:g}: the "
            "training or the test part would be empty; add rows or change the test size"
        ) from None
    if config.batch > len(x_train):
        raise ConfigError(
            f"batch {config.batch:,} is larger than the {len(x_train):,} training rows (of {len(x):,} "
            f"rows, test size {config.test_size:g}); choose a batch of at most {len(x_train):,} "
            "or full"
        )
    if config.scaler != "none":
        scaler = _scaler(config.scaler)
        x_train = scaler.fit_transform(x_train)
        x_test = scaler.transform(x_test)
    return Dataset(
        x_train=np.ascontiguousarray(x_train, dtype=np.float32),
        x_test=np.ascontiguousarray(x_test, dtype=np.float32),
        y_train=np.ascontiguousarray(y_train, dtype=np.int64),
        y_test=np.ascontiguousarray(y_test, dtype=np.int64),
        n_features=int(x.shape[1]),
        n_classes=int(np.max(y)) + 1,
        class_names=class_names,
        data_file=data_file,
    )
