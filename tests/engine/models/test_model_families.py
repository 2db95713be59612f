"""Model families past the MLP (engine/models/, spec/models.py): a CNN on images, a transformer
on sequences, your own model from a file; the note's MLP unchanged; and every model the config
cannot train refused in one line."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
import pytest
import torch
from support.model_sources import counting_model

from iris_gui.engine.data.datasets import load_dataset
from iris_gui.engine.models import build as build_module
from iris_gui.engine.models.build import build_model, parameter_count
from iris_gui.engine.models.mlp import build_mlp
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.spec.models import input_shape
from iris_gui.engine.train.trainer import train

IMAGES = {"dataset": "images", "synthetic_rows": 200, "image_size": 8, "channels": 2}
SEQUENCES = {"dataset": "sequences", "synthetic_rows": 200, "seq_len": 6,
             "synthetic_features": 4}


def test_the_default_model_is_the_notes_mlp_weight_for_weight() -> None:
    built, mlp = build_model(RunConfig(), 4, 3), build_mlp(4, (10,), 3, 0)
    assert type(built) is type(mlp)
    for (name, ours), (_, theirs) in zip(built.state_dict().items(), mlp.state_dict().items(),
                                         strict=True):
        assert torch.equal(ours, theirs), name


@pytest.mark.parametrize(("changes", "shape"), [
    ({"model": "cnn", "dataset": "digits"}, (1, 8, 8)),
    ({"model": "cnn", **IMAGES}, (2, 8, 8)),
    ({"model": "transformer", **SEQUENCES}, (6, 4)),
    ({"model": "mlp", **IMAGES}, (2, 8, 8)),
    ({"dataset": "digits"}, (64,)),
])
def test_each_family_sees_a_row_in_its_shape_and_trains(changes: dict, shape: tuple) -> None:
    config = RunConfig(epochs=30, lr=0.05, **changes)
    data = load_dataset(config)
    rows = data.x_train.shape[0]
    assert data.x_train.shape == (rows, math.prod(shape)) and data.x_train.dtype == np.float32
    if changes.get("model") != "mlp" and "model" in changes:
        assert input_shape(config, data.n_features) == shape
    result = train(config)
    assert result.status.value == "completed", result.message
    assert result.epochs_completed == 30 and np.all(np.isfinite(result.losses))
    assert 0.0 <= result.test_accuracy <= 1.0


def test_a_seed_gives_one_model_and_one_curve() -> None:
    config = RunConfig(model="cnn", dataset="digits", epochs=5, lr=0.1, seed=3)
    first, second = train(config), train(config)
    assert np.array_equal(first.losses, second.losses)
    other = build_model(RunConfig(model="cnn", dataset="digits", seed=4), 64, 10)
    again = build_model(config, 64, 10)
    assert not torch.equal(next(other.parameters()), next(again.parameters()))


def test_the_shaped_data_sets_come_from_their_seed() -> None:
    for changes in (IMAGES, SEQUENCES):
        one = load_dataset(RunConfig(model="mlp", **changes))
        two = load_dataset(RunConfig(model="mlp", **changes))
        assert np.array_equal(one.x_train, two.x_train)
        assert set(np.unique(one.y_train)) <= set(range(3))


@pytest.mark.parametrize(("changes", "words"), [
    ({"model": "cnn"}, "a cnn needs digits or images data, not iris; give --dataset digits"),
    ({"model": "transformer", "dataset": "digits"},
     "a transformer needs sequences data, not digits"),
    ({"model": "transformer", **SEQUENCES, "seq_len": 5000},
     "seq len 5000 is not allowed; it must be a whole number from 2"),
    ({"model": "transformer", **SEQUENCES, "width": 10, "heads": 3},
     "width 10 must divide into its 3 heads"),
    ({"model": "cnn", "dataset": "digits", "engine": "manual"},
     "the manual engine is written for the MLP and cannot train a cnn;"),
    ({"model": "rnn"},
     "model 'rnn' is not allowed; choose one of: mlp, cnn, transformer, or FILE.py:NAME"),
    ({"model": "cnn", "dataset": "digits", "width": 0}, "width 0 is not allowed"),
    ({"model": "net.py:Net", "engine": "native", "record": "device"},
     "the native engine is written for the MLP and cannot train your own model"),
])
def test_a_model_the_config_cannot_train_is_one_line(changes: dict, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        RunConfig(**changes)
    assert words in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


def test_a_model_too_large_for_the_memory_here_is_refused_before_it_is_built(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_module, "available_memory", lambda: 2**20)
    with pytest.raises(ConfigError, match=r"the cnn model has [\d,]+ parameters .* and this "
                                          r"machine has 0\.0 GiB available"):
        build_model(RunConfig(model="cnn", dataset="digits", width=512, depth=3), 64, 10)


# -- your own model ----------------------------------------------------------------------------

GOOD = '''
import hashlib
import math
from torch import nn

class Net(nn.Module):
    def __init__(self, input_shape, classes):
        super().__init__()
        self.layer = nn.Linear(math.prod(input_shape), classes)

    def forward(self, x):
        return self.layer(x.flatten(1))

def make(input_shape, classes):
    return nn.Sequential(nn.Flatten(), nn.Linear(math.prod(input_shape), classes))
'''

# A Linear layer of the given sizes, whatever the data is: a model of the wrong shape.
LINEAR = """
from torch import nn

class Net(nn.Module):
    def __init__(self, input_shape, classes):
        super().__init__()
        self.layer = nn.Linear({inputs}, {outputs})

    def forward(self, x):
        return self.layer(x)
"""


def own(tmp_path: Path, text: str, name: str = "Net") -> str:
    path = tmp_path / "my_net.py"
    path.write_text(text)
    return f"{path}:{name}"


@pytest.mark.parametrize("name", ["Net", "make"])
def test_your_own_model_trains_from_its_file(tmp_path: Path, name: str) -> None:
    config = RunConfig(model=own(tmp_path, GOOD, name), epochs=20, lr=0.1)
    result = train(config)
    assert result.status.value == "completed", result.message
    assert parameter_count(build_model(config, 4, 3)) == 4 * 3 + 3


@pytest.mark.parametrize(("text", "name", "words"), [
    ("def broken(:\n", "Net", "has a syntax error at line 1"),
    ("import no_such_module_here\n", "Net",
     "could not be imported: ModuleNotFoundError: No module named 'no_such_module_here'"),
    (GOOD, "Missing", "has no 'Missing'; it defines: Net, make"),
    (LINEAR.format(inputs=4, outputs=7), "Net",
     "returns (2, 7) for a batch of 2; it must return (batch, 3) logits"),
    ("from torch import nn\ndef Net(s, c):\n    return nn.ReLU()\n", "Net",
     "has no parameters to train"),
    ("def Net(s, c):\n    return 5\n", "Net", "returned a value of type int, not a torch nn.Module"),
    ("def Net(s, c):\n    raise RuntimeError('no GPU')\n", "Net",
     "Net((4,), 3) in "),
    (LINEAR.format(inputs=9, outputs=3), "Net",
     "cannot take a batch of (4,): RuntimeError"),
])
def test_a_model_file_that_cannot_be_used_is_one_line(tmp_path: Path, text: str, name: str,
                                                      words: str) -> None:
    config = RunConfig(model=own(tmp_path, text, name), epochs=5)
    with pytest.raises(ConfigError) as caught:
        build_model(config, 4, 3)
    assert words in str(caught.value) and "\n" not in str(caught.value), str(caught.value)


def test_a_missing_model_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="model file .*nowhere.py does not exist"):
        build_model(RunConfig(model=f"{tmp_path}/nowhere.py:Net"), 4, 3)


def test_a_run_keeps_its_model_file_and_a_later_run_on_a_changed_file_says_so(
        tmp_path: Path) -> None:
    from iris_gui.engine.records.result import RunResult
    from iris_gui.store.runs import RunStore

    config = RunConfig(model=own(tmp_path, GOOD), epochs=3, lr=0.1)
    first = train(config)
    source = (tmp_path / "my_net.py").read_bytes()
    assert first.model_file == {"path": str(tmp_path / "my_net.py"), "size": len(source),
                                "sha256": hashlib.sha256(source).hexdigest(), "name": "Net"}
    again = RunResult.from_dict(first.to_dict(), first.losses)
    assert again.model_file == first.model_file
    with RunStore.open(tmp_path / "runs.sqlite3") as store:
        store.save(first)
        (tmp_path / "my_net.py").write_text(GOOD + "\n# tuned\n")
        second = train(config)
        store.save(second)
        assert second.data_changed.startswith("the model file changed since run 1 was built from it: "
                                              f"{len(source):,} -> {len(source) + 9:,} bytes")


def test_a_model_file_is_not_sent_to_a_host(tmp_path: Path) -> None:
    from iris_gui.engine.remote.runner import refuse_data_file

    with pytest.raises(ConfigError, match=r"^a model file is not sent over ssh \(it is code, "
                                          r"run where it is\): train .*my_net.py:Net on this"):
        refuse_data_file(RunConfig(model=own(tmp_path, GOOD), device="lab:cpu"), "lab")


def test_a_model_file_name_too_long_for_the_file_system_is_a_refusal_in_one_line(
        tmp_path: Path) -> None:
    long = tmp_path / ("a" * 300 + ".py")  # past NAME_MAX (255) on every common file system
    with pytest.raises(ConfigError) as caught:
        build_model(RunConfig(model=f"{long}:X", epochs=5), 4, 3)
    line = str(caught.value)
    assert "cannot be read" in line and "give --model FILE.py:NAME" in line and "\n" not in line


def test_a_model_file_that_exits_while_imported_is_a_refusal_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        build_model(RunConfig(model=own(tmp_path, "import sys\nsys.exit(0)\n")), 4, 3)
    line = str(caught.value)
    assert "called SystemExit(0) while it was imported" in line and "\n" not in line




@pytest.mark.parametrize(("ending", "said"), [
    ("sys.exit(5)", "raised SystemExit(5) during the run"),
    ("raise Ends('its own')", "raised Ends(its own) during the run"),
])
def test_a_model_file_that_ends_the_program_mid_run_fails_its_run(tmp_path: Path, ending: str,
                                                                  said: str) -> None:
    # Its own code, not a crash of ours: the run is a failed row with one line, not lost.
    model = own(tmp_path, counting_model("class Ends(BaseException):\n    pass",
                                         "self.calls > 3", ending))
    result = train(RunConfig(model=model, epochs=20))
    assert result.status.value == "failed" and said in result.message, result.message
    assert "a model must not end the program" in result.message


def test_a_model_file_too_large_for_the_memory_is_refused_before_it_is_built(
        tmp_path: Path, monkeypatch) -> None:
    import sys

    monkeypatch.setattr(build_module, "available_memory", lambda: 2 ** 20)  # 1 MiB here
    wide = own(tmp_path, "from torch import nn\nBUILT = []\n"
                         "def Net(shape, classes):\n"
                         "    layer = nn.Linear(shape[0] * 100_000, classes)\n"
                         "    BUILT.append(layer.weight.device.type)\n"
                         "    return layer\n")
    with pytest.raises(ConfigError) as caught:
        build_model(RunConfig(model=wide), 4, 3)
    line = str(caught.value)
    assert "model has 1,200,003 parameters (0.0 GiB to train) and this machine has 0.0 GiB" \
        in line and "\n" not in line
    # Built once, on the meta device, never for real.
    [module] = [m for m in list(sys.modules.values())
                if str(tmp_path) in str(getattr(m, "__file__", None) or "")]
    assert module.BUILT == ["meta"]
