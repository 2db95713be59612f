"""reduce_window() on event lists shaped as torch.profiler reports a CUDA run, in the field sets
of the torch versions the project supports: 2.13 (activity_type, event_metadata), 2.11, the GPU
server's (is_user_annotation and metadata_json, no activity_type), and 2.4.1, the lowest
(none of those). The same loop must reduce to the same figures whichever fields there are.

The lists in data/ are written after the events a CUDA profile of explain's loop gives (names,
nesting, threads, Kineto's device-side spans of the ranges), not dumped from a GPU run; each
file says which torch's fields it carries. This machine has no GPU, so they are what keeps the
device side of the reduction tested here.
"""

import dataclasses
import inspect
import json
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest
from torch.autograd import DeviceType

from iris_gui.engine.explain.profile_reduce import reduce_window

DATA = Path(__file__).parent / "data"
LOOP_FILES = ["cuda_loop_torch2.4.1.json", "cuda_loop_torch2.11.0.json",
              "cuda_loop_torch2.13.0.json"]
GRAPH_FILES = ["cuda_graph_torch2.11.0.json", "cuda_graph_torch2.13.0.json"]
LOSS_BYTES = 4
COPY_NOTE = "copy sizes are computed from the loss tensor (the profiler gave none)"
# Each torch's fields beyond those all of them have (name, device_type, time_range, is_async,
# cpu_parent, thread, scope), with the value an event the file leaves it out of has.
OPTIONAL_FIELDS = {
    "2.4.1": {},
    "2.11.0": {"is_user_annotation": False, "metadata_json": ""},
    "2.13.0": {"activity_type": None, "is_user_annotation": False, "event_metadata": None},
}
COMMON_KEYS = {"id", "name", "device", "thread", "start", "end", "is_async", "scope", "parent"}
# Exact: the files' times are whole microseconds. Worked out by hand from the loop's file: per epoch, phases as their ranges' lengths (python:
# the gaps between ranges), one .item() (its copy call and stream synchronize: 6 + 74 µs),
# 14 kernels, 10 launch calls (one driver call nested in a runtime call, counted once), and
# 82 µs of kernels + a 1 µs memset + the 1 µs copy of 4 bytes busy on the device.
LOOP_FIGURES = {
    "categories": {"forward": 70, "loss": 38, "backward": 133, "optimizer": 13 + 38,
                   "recording": 88, "python": 15},
    "syncs_per_epoch": 1, "sync_wait_us_per_epoch": 80, "kernels_per_epoch": 14,
    "launch_us_per_epoch": 21 + 12 + 45 + 8, "device_busy_us_per_epoch": 84,
    "copies_per_epoch": 1, "copy_bytes_per_epoch": 4,
}
# Four epochs: two 40 µs step ranges 20 µs apart, each with a 20 µs cudaGraphLaunch replaying
# 12 kernels of 3 µs; no host read, no copy.
GRAPH_FIGURES = {
    "categories": {"step": 20, "python": 5}, "syncs_per_epoch": 0, "sync_wait_us_per_epoch": 0,
    "kernels_per_epoch": 6, "launch_us_per_epoch": 10, "device_busy_us_per_epoch": 18,
    "copies_per_epoch": 0, "copy_bytes_per_epoch": 0,
}


def _load(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def _fake_events(doc: dict) -> list:
    """FunctionEvent look-alikes with exactly the fields of the file's torch: a field that torch
    lacks raises AttributeError, as it would there."""
    optional = OPTIONAL_FIELDS[doc["torch"]]
    by_id = {}
    for raw in doc["events"]:
        assert set(raw) <= COMMON_KEYS | set(optional), raw
        event = SimpleNamespace(
            name=raw["name"], device_type=DeviceType.__members__[raw["device"]],
            time_range=SimpleNamespace(start=raw["start"], end=raw["end"]),
            is_async=raw.get("is_async", False), thread=raw["thread"],
            scope=raw.get("scope", 0), cpu_parent=None)
        for key, default in optional.items():
            setattr(event, key, raw.get(key, default))
        if getattr(event, "event_metadata", None) is not None:
            event.event_metadata = SimpleNamespace(**event.event_metadata)
        by_id[raw["id"]] = event
    for raw in doc["events"]:
        if "parent" in raw:
            by_id[raw["id"]].cpu_parent = by_id[raw["parent"]]
    return list(by_id.values())


def _real_events(doc: dict) -> list:
    """The installed torch's own FunctionEvent, given what of the file its constructor takes."""
    from torch.autograd.profiler_util import FunctionEvent

    takes = inspect.signature(FunctionEvent).parameters
    by_id = {}
    for raw in doc["events"]:
        kwargs = {"id": raw["id"], "name": raw["name"], "thread": raw["thread"],
                  "start_us": raw["start"], "end_us": raw["end"],
                  "device_type": DeviceType.__members__[raw["device"]],
                  "is_async": raw.get("is_async", False), "scope": raw.get("scope", 0)}
        for key in ("activity_type", "is_user_annotation", "metadata_json"):
            if key in raw and key in takes:
                kwargs[key] = raw[key]
        if "event_metadata" in raw and "extra_meta" in takes:
            kwargs["extra_meta"] = {k: str(v) for k, v in raw["event_metadata"].items()}
        by_id[raw["id"]] = FunctionEvent(**kwargs)
    for raw in doc["events"]:
        if "parent" in raw:
            by_id[raw["id"]].set_cpu_parent(by_id[raw["parent"]])
    return list(by_id.values())


def _reduce(doc: dict, events: list):
    # A field read that newer torch deprecates (metadata_json on 2.13) warns: fail on it.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return reduce_window(events, doc["epochs"], doc["device_type"], LOSS_BYTES)


def _figures(f) -> dict:
    """The reduction's own figures: not its notes, and not the loader's clock, which explain
    fills in from an unprofiled pass (a full-batch window fetches no data: no data syncs)."""
    figures = {k: v for k, v in dataclasses.asdict(f).items()
               if k not in ("notes", "data_wait_pct", "op_kinds")}
    assert figures.pop("data_syncs_per_epoch") == 0
    assert figures.pop("stepping_us") == 0  # the files' windows are one profiler step
    return figures


def _cpu_event(name: str, start: float, end: float, scope: int = 7) -> SimpleNamespace:
    return SimpleNamespace(name=name, device_type=DeviceType.CPU, is_async=False, scope=scope,
                           time_range=SimpleNamespace(start=start, end=end), cpu_parent=None,
                           thread=1)


def test_the_profilers_steps_between_epochs_are_its_own_and_zero_grad_is_the_optimizers():
    # Two epochs, a profiler step each (ProfilerStep* in prof.events()): forward 10, gap 2,
    # zero_grad 3, gap 1, optimizer 4; the step boundary between them spans 9 µs (from the
    # first epoch's last range to the second's first), which is the profiler's, not python.
    events = []
    for t in (0.0, 29.0):
        events.append(_cpu_event("ProfilerStep*", t, t + 22.0))
        events += [_cpu_event("iris::forward", t + 1, t + 11),
                   _cpu_event("iris::zero_grad", t + 13, t + 16),
                   _cpu_event("iris::optimizer", t + 17, t + 21)]
    figures = reduce_window(events, 2, "cpu", LOSS_BYTES)
    assert figures.categories == {"forward": 10, "loss": 0, "backward": 0, "optimizer": 7,
                                  "recording": 0, "python": 3}
    assert figures.stepping_us == 30 - 21  # the second epoch's forward starts at 30


@pytest.mark.parametrize("name", LOOP_FILES)
def test_the_loop_reduces_to_the_same_figures_whichever_fields_torch_gives(name):
    doc = _load(name)
    f = _reduce(doc, _fake_events(doc))
    assert _figures(f) == LOOP_FIGURES
    # Only 2.4.1 gives no copy sizes; its estimate from the loss is the same 4 bytes.
    assert f.notes == ([COPY_NOTE] if doc["torch"] == "2.4.1" else [])


@pytest.mark.parametrize("name", LOOP_FILES)
def test_the_loops_host_time_by_kind_of_op(name):
    """Per epoch of the recorded loop: two linear layers' and three mm's 83 µs of matrix
    products, the loss read's 86 µs, and the rest (relu, the loss, its backward, the update)."""
    doc = _load(name)
    kinds = _reduce(doc, _fake_events(doc)).op_kinds
    assert kinds == {"matmul": 83.0, "copies": 86.0, "elementwise & other": 141.0}


@pytest.mark.parametrize("name", GRAPH_FILES)
def test_graph_replays_count_as_launches(name):
    doc = _load(name)
    f = _reduce(doc, _fake_events(doc))
    assert _figures(f) == GRAPH_FIGURES
    assert f.launch_us_per_epoch > 0 and f.notes == []


@pytest.mark.parametrize("launch", ["cudaGraphLaunch", "cudaGraphLaunch_v10000",
                                    "cudaGraphLaunch_ptsz", "cuGraphLaunch",
                                    "cuGraphLaunch_ptsz"])
def test_every_spelling_of_a_graph_launch_counts(launch):
    doc = _load("cuda_graph_torch2.11.0.json")
    for raw in doc["events"]:
        if raw["name"].startswith("cudaGraphLaunch"):
            raw["name"] = launch
    assert _reduce(doc, _fake_events(doc)).launch_us_per_epoch == 10


def test_the_installed_torchs_own_events_reduce_to_the_loops_figures():
    """Real FunctionEvents of whichever torch runs the tests (make test-compat runs this on
    others), from the file whose fields match that torch's."""
    from torch.autograd.profiler_util import FunctionEvent

    takes = inspect.signature(FunctionEvent).parameters
    name = ("cuda_loop_torch2.13.0.json" if "activity_type" in takes else
            "cuda_loop_torch2.11.0.json" if "is_user_annotation" in takes else
            "cuda_loop_torch2.4.1.json")
    doc = _load(name)
    f = _reduce(doc, _real_events(doc))
    assert _figures(f) == LOOP_FIGURES


def test_a_kernel_named_as_a_host_op_is_still_a_kernel_without_activity_types():
    """Compiled code launches each Triton kernel inside a host op of the kernel's own name;
    only the names of record_function ranges mark device-side spans."""
    doc = _load("cuda_loop_torch2.4.1.json")
    name = "triton_poi_fused_addmm_relu_0"
    doc["events"] += [
        {"id": 1000, "name": name, "device": "CPU", "thread": 1, "start": 26, "end": 40},
        {"id": 1001, "name": name, "device": "CUDA", "thread": 7, "start": 43, "end": 45},
    ]
    f = _reduce(doc, _fake_events(doc))
    assert f.kernels_per_epoch == LOOP_FIGURES["kernels_per_epoch"] + 0.5
    assert f.device_busy_us_per_epoch == LOOP_FIGURES["device_busy_us_per_epoch"] + 1


@pytest.mark.parametrize("metadata, size", [
    ('{"device": 0, "stream": 7, "bytes": 8}', 8),  # a whole JSON object
    ('"bytes": "16"', 16),  # the number as a string
    ('"device": 0, "stream": 7', None),  # no size: estimated from the loss
])
def test_copy_sizes_from_metadata_json(metadata, size):
    doc = _load("cuda_loop_torch2.11.0.json")
    for raw in doc["events"]:
        if raw["name"].startswith("Memcpy"):
            raw["metadata_json"] = metadata
    f = _reduce(doc, _fake_events(doc))
    assert f.copy_bytes_per_epoch == (LOSS_BYTES if size is None else size)
    assert f.notes == ([COPY_NOTE] if size is None else [])


def test_device_to_device_copies_are_busy_time_but_not_copies():
    doc = _load("cuda_loop_torch2.4.1.json")
    doc["events"].append({"id": 1000, "name": "Memcpy DtoD (Device -> Device)",
                          "device": "CUDA", "thread": 7, "start": 300, "end": 302})
    f = _reduce(doc, _fake_events(doc))
    assert f.copies_per_epoch == 1 and f.kernels_per_epoch == 14
    assert f.device_busy_us_per_epoch == LOOP_FIGURES["device_busy_us_per_epoch"] + 1


GRAPH_NOTE = "CUDA graph replays per epoch but none of their kernels"


@pytest.mark.parametrize("left", [set(), {"Memset (Device)"}], ids=["no-device-work", "memset"])
@pytest.mark.parametrize("name", GRAPH_FILES)
def test_graph_replays_whose_kernels_the_profiler_missed_are_a_note_not_a_zero(name, left):
    # Kineto can lose a graph's kernels (kineto issue #1165): the replays are still on the
    # host. What the device did is then unknown, and the figures say so instead of "0".
    doc = _load(name)
    kernels = [raw for raw in doc["events"] if raw["device"] == "CUDA"
               and not raw.get("is_user_annotation") and not raw["name"].startswith("iris::")]
    doc["events"] = [raw for raw in doc["events"] if raw not in kernels]
    for extra in left:  # a memset the profiler did see, outside the graph
        memset = {**kernels[0], "id": 999, "name": extra}
        if "activity_type" in memset:
            memset["activity_type"] = "gpu_memset"
        doc["events"].append(memset)
    f = _reduce(doc, _fake_events(doc))
    assert f.kernels_per_epoch is None and f.device_busy_us_per_epoch is None
    assert f.copies_per_epoch is None
    assert f.launch_us_per_epoch == GRAPH_FIGURES["launch_us_per_epoch"]
    (note,) = [n for n in f.notes if GRAPH_NOTE in n]
    assert note.startswith("the profiler saw 0.5 CUDA graph replays per epoch")


# ROCm's HIP names for the calls the 2.13 loop file makes on CUDA; its .item() is one
# hipMemcpyWithStream where CUDA makes a copy and a stream synchronize.
HIP_NAMES = {"cudaLaunchKernel": "hipLaunchKernel", "cuLaunchKernel": "hipModuleLaunchKernel",
             "cuLaunchKernelEx": "hipExtModuleLaunchKernel", "cudaMemsetAsync": "hipMemsetAsync",
             "cudaDeviceSynchronize": "hipDeviceSynchronize"}


def test_a_rocm_loop_reduces_to_the_same_figures_by_hips_names():
    # Mocked: the CUDA loop's events renamed as an AMD GPU's profile names them.
    doc = _load("cuda_loop_torch2.13.0.json")
    events = []
    for raw in doc["events"]:
        raw = {**raw, "name": HIP_NAMES.get(raw["name"], raw["name"])}
        if raw["name"] == "cudaStreamSynchronize":
            continue  # its wait is the copy's own on HIP
        if raw["name"] == "cudaMemcpyAsync":
            raw = {**raw, "name": "hipMemcpyWithStream", "end": raw["end"] + 74}
        events.append(raw)
    assert not [e for e in events if e["name"].startswith("cu")]
    f = _reduce(doc, _fake_events({**doc, "events": events}))
    assert _figures(f) == LOOP_FIGURES
