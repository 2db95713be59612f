"""The engine ladder's names and rules, without torch: what each rung is and which choices it
supports. The rungs themselves live in engine/rungs/ (they import torch).

From the note's loop down to the arithmetic's floor, every rung trains the same model (data,
split, scaling, initial weights, loss, optimizer, learning rate) and its curve agrees with
``eager``'s; what changes is how much framework stands between the host and the arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

ENGINES = ("eager", "lean", "manual", "compiled", "graph", "persistent", "native")
ALL_RECORDINGS = ("every-epoch", "every", "device", "none")
ALL_PRECISIONS = ("float32", "float64", "bfloat16", "float16")


@dataclass(frozen=True)
class EngineInfo:
    name: str
    title: str
    tip: str  # one sentence: what the rung removes
    framework: bool  # False for the reference that uses no framework at all
    recordings: tuple[str, ...] = ALL_RECORDINGS  # Recording.mode values it supports
    optimizers: tuple[str, ...] = ("sgd", "adam")
    module_call: bool = False  # whether the call style (model(x) / model.forward(x)) applies
    devices: tuple[str, ...] = ()  # device kinds it runs on; empty: every kind
    short: str = ""  # the title where a narrow list must show it whole; "" for the title
    minibatch: bool = True  # whether it trains mini-batches (--batch N), not only full batch
    data_paths: tuple[str, ...] = ("resident", "loader")
    precisions: tuple[str, ...] = ("float32",)
    # Whether it trains any module (True), or only the MLP it writes out by hand.
    any_model: bool = False
    # Where the rung is, "module:Class": imported only when the rung is used or asked about
    # (``native`` loads numba, ``compiled`` the compiler); build.spec bundles these modules.
    implementation: str = ""

    @property
    def choice(self) -> str:
        return self.short or self.title


ENGINE_INFO = {info.name: info for info in (
    EngineInfo("eager", "eager (the note's loop)",
               "The note's step as written: forward, loss, zero_grad, backward, optimizer step, "
               "each op dispatched by eager PyTorch and autograd.", True, module_call=True,
               precisions=ALL_PRECISIONS, any_model=True,
               implementation="iris_gui.engine.rungs.eager:EagerRung"),
    EngineInfo("lean", "lean (PyTorch's own switches)",
               "Still eager autograd, with zero_grad(set_to_none=True) and the fused (or "
               "foreach) optimizer kernel: fewer ops and no gradient zeroing per epoch.", True,
               module_call=True, precisions=ALL_PRECISIONS, any_model=True,
               implementation="iris_gui.engine.rungs.eager:LeanRung"),
    EngineInfo("manual", "manual (no autograd)",
               "Forward and backward written out as tensor ops under no_grad, buffers allocated "
               "once and updated in place: no autograd graph is built or walked.", True,
               precisions=("float32", "float64"),
               implementation="iris_gui.engine.rungs.manual:ManualRung"),
    EngineInfo("compiled", "compiled (torch.compile)",
               "torch.compile turns several epochs of the manual step (with mini-batches, one "
               "step per batch) into one generated kernel program (replayed as a CUDA graph on "
               "a GPU); another model than the MLP is compiled as a module, its forward and "
               "backward; compilation is timed apart, before the loop.", True,
               recordings=("device", "none"), minibatch=True,
               data_paths=("resident", "loader"), precisions=("float32",), any_model=True,
               implementation="iris_gui.engine.rungs.compiled:CompiledRung"),
    EngineInfo("graph", "graph (CUDA graphs)",
               "The whole step captured once with torch.cuda.graph and replayed many epochs "
               "(with mini-batches, one epoch of steps) per launch: no Python and no per-op "
               "launch cost left.", True,
               recordings=("device", "none"), devices=("cuda",), minibatch=True,
               data_paths=("resident",), precisions=("float32",), any_model=True,
               implementation="iris_gui.engine.rungs.graph:GraphRung"),
    EngineInfo("persistent", "persistent (one Triton kernel)",
               "One Triton program trains many epochs per launch with the weights held on chip: "
               "an epoch is a few small matrix products, not dozens of kernel launches.", True,
               recordings=("device", "none"), optimizers=("sgd",), minibatch=False,
               data_paths=("resident",),
               implementation="iris_gui.engine.rungs.persistent:PersistentRung"),
    EngineInfo("native", "native (no framework, a reference)",
               "The same arithmetic as one native loop compiled by numba, with no framework at "
               "all: the floor the others are measured against.", False,
               recordings=("device", "none"), optimizers=("sgd",), devices=("cpu",),
               short="native (no framework)", minibatch=False, data_paths=("resident",),
               implementation="iris_gui.engine.rungs.native:NativeRung"),
)}


def default_recording(engine: str) -> str:
    """The recording a run on ``engine`` gets when nobody chose one: the note's every-epoch
    where the rung can bring each loss back, else the first it supports (``device``)."""
    recordings = ENGINE_INFO[engine].recordings
    return "every-epoch" if "every-epoch" in recordings else recordings[0]


def recording_note(engine: str) -> str:
    """One line saying which recording ``engine`` took instead of every-epoch, and why."""
    return (f"recording: {default_recording(engine)} (the {engine} engine keeps every loss in "
            "a buffer on the device)")


def calls_module(engine: str) -> bool:
    """Whether the call style (model(x) or model.forward(x)) means anything for ``engine``."""
    return ENGINE_INFO[engine].module_call


def unsupported_choice(engine: str, recording_mode: str, optimizer: str, call: str) -> str | None:
    """Why ``engine`` cannot run these choices (one line), or None when it can. Device
    availability is separate (rungs.availability): it needs torch."""
    info = ENGINE_INFO[engine]
    if recording_mode not in info.recordings:
        shown = {"every": "every:N"}.get(recording_mode, recording_mode)
        allowed = ", ".join({"every": "every:N"}.get(r, r) for r in info.recordings)
        return (f"the {engine} engine cannot record the loss {shown!r}: it keeps every loss "
                f"in a buffer; choose --record {' or '.join(allowed.split(', '))}")
    if optimizer not in info.optimizers:
        return (f"the {engine} engine implements {' and '.join(info.optimizers)} only, not "
                f"{optimizer}; choose --optimizer {info.optimizers[0]} or another engine")
    if call == "call" and not info.module_call:
        return (f"the call style 'call' (model(x)) applies only to the eager and lean engines; "
                f"the {engine} engine does not call the module: use --call forward")
    return None


def unsupported_model(engine: str, model: str) -> str | None:
    """Why ``engine`` cannot train ``model`` (one line), or None when it can."""
    if model == "mlp" or ENGINE_INFO[engine].any_model:
        return None
    takers = ", ".join(name for name, info in ENGINE_INFO.items() if info.any_model)
    what = "your own model" if model == "file" else f"a {model}"
    return (f"the {engine} engine is written for the MLP and cannot train {what}; "
            f"choose an engine that trains any model ({takers})")


def unsupported_batching(engine: str, batch: int, data_path: str, precision: str,
                         tf32: bool) -> str | None:
    """Why ``engine`` cannot train these batches, data path or precision (one line), or None."""
    info = ENGINE_INFO[engine]
    if batch and not info.minibatch:
        return (f"the {engine} engine trains the full batch only; use --batch full, or an "
                f"engine that takes mini-batches ({', '.join(minibatch_engines())})")
    if data_path not in info.data_paths:
        return (f"the {engine} engine reads resident data only (the data set on the device); "
                f"use --data-path resident")
    if precision not in info.precisions:
        return (f"the {engine} engine trains in {' or '.join(info.precisions)} only, not "
                f"{precision}; choose --precision {info.precisions[0]} or the eager engine")
    return None


def minibatch_engines() -> tuple[str, ...]:
    return tuple(name for name, info in ENGINE_INFO.items() if info.minibatch)
