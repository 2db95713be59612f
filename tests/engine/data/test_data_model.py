import numpy as np
import pytest
import torch

from iris_gui.engine.data.datasets import load_dataset
from iris_gui.engine.models.mlp import MLP, build_mlp
from iris_gui.engine.spec.config import RunConfig


def test_iris_is_split_and_scaled_as_the_seed_does():
    data = load_dataset(RunConfig())
    assert data.x_train.shape == (120, 4) and data.x_test.shape == (30, 4)
    assert data.x_train.dtype == np.float32 and data.y_train.dtype == np.int64
    assert (data.n_features, data.n_classes) == (4, 3)
    # MinMax fitted on the training part only: it spans exactly [0, 1]; the test part need not.
    assert data.x_train.min() == pytest.approx(0.0) and data.x_train.max() == pytest.approx(1.0)
    assert np.array_equal(load_dataset(RunConfig()).x_test, data.x_test)


@pytest.mark.parametrize("name, features, classes", [
    ("wine", 13, 3), ("breast_cancer", 30, 2), ("digits", 64, 10),
])
def test_bundled_data_sets_load(name, features, classes):
    data = load_dataset(RunConfig(dataset=name, scaler="standard"))
    assert (data.n_features, data.n_classes) == (features, classes)
    assert abs(float(data.x_train.mean())) < 1e-3


def test_synthetic_data_has_the_requested_shape():
    config = RunConfig(dataset="synthetic", synthetic_rows=500, synthetic_features=7,
                       synthetic_classes=4, scaler="none")
    data = load_dataset(config)
    assert data.x_train.shape[0] + data.x_test.shape[0] == 500
    assert (data.n_features, data.n_classes) == (7, 4)


def test_model_is_the_seeds_mlp_and_seeded_without_touching_global_rng():
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    model = build_mlp(4, (10,), 3, seed=0)
    after = torch.rand(1)
    assert torch.equal(before, after)
    assert isinstance(model, MLP)
    shapes = [tuple(p.shape) for p in model.parameters()]
    assert shapes == [(10, 4), (10,), (3, 10), (3,)]
    same = build_mlp(4, (10,), 3, seed=0)
    other = build_mlp(4, (10,), 3, seed=1)
    assert all(torch.equal(a, b)
               for a, b in zip(model.parameters(), same.parameters(), strict=True))
    assert not torch.equal(model.layers[0].weight, other.layers[0].weight)
    assert model(torch.zeros(5, 4)).shape == (5, 3)


@pytest.mark.parametrize("name, names", [
    ("iris", ("setosa", "versicolor", "virginica")), ("breast_cancer", ("malignant", "benign")),
    ("digits", tuple("0123456789")),
])
def test_data_sets_name_their_classes(name, names):
    assert load_dataset(RunConfig(dataset=name)).class_names == names


def test_synthetic_classes_have_no_names():
    config = RunConfig(dataset="synthetic", synthetic_rows=100, synthetic_features=4)
    assert load_dataset(config).class_names == ()


def test_a_result_keeps_its_class_names_and_an_old_record_has_none():
    from iris_gui.engine.records.result import RunResult, RunStatus

    result = RunResult(RunConfig(), RunStatus.COMPLETED, class_names=["setosa", "versicolor"])
    record = result.to_dict()
    assert RunResult.from_dict(record).class_names == ["setosa", "versicolor"]
    del record["class_names"]  # a run saved before the names were recorded
    assert RunResult.from_dict(record).class_names == []
