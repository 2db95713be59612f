"""A run's model built as the run would build it, and not trained: its data read, its file (if
it is one) imported and called, a batch passed through it, its parameters and FLOPs a step
counted. The window never imports a model file itself; its worker process checks one here as
soon as it is chosen, so that a file that cannot train says so then, not at Train.
"""

from __future__ import annotations

from iris_gui.engine.data.datasets import load_dataset
from iris_gui.engine.models.cost import model_cost
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.assemble import new_model


def check_model(config: RunConfig) -> tuple[int, float]:
    """The parameters and the FLOPs of one step of ``config``'s model on its data; ConfigError
    in one line where the model cannot be built or cannot take the data."""
    data = load_dataset(config)
    model = new_model(config, data.n_features, data.n_classes)
    return model_cost(model, data.n_features, data.n_classes, len(data.x_train))
