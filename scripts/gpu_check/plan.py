"""The GPU check's plan: its steps in order of value per second, each with a time limit, in two
calls of the device tool that share one budget each. A call is at most 600 s, and at most 8
files of $OUT come back from it; ``TIMEOUT_S`` is the one ``timeout_s`` to call it with, written
in the README, docs/gpu-check.md and scripts/gpu_check.sh's header (the plan check reads them).
The limits come from CPU figures measured in the replica of the GPU machine and the GPU's
expected speeds, both written in docs/gpu-check.md.

Standard library only: it runs on a GPU server's own Python, with no virtual environment.
"""

from __future__ import annotations

from dataclasses import dataclass

# Two calls of the device tool, each within CALL_S: a machine is lent for about 15 minutes in
# all, at most 600 s a command, and none starts with under 4 minutes left, so the first call
# must leave room to be fixed and run again, or for the second. The first holds what answers
# the note (the experiment on the GPU against the CPU, the ladder's graph and persistent rungs,
# explain on CUDA); the second, optional, the rest.
CALLS = ("first", "rest")
BUDGET_S = 280  # what one call's steps' limits add up to at most
# What a call needs beyond its steps: the interpreter's start, packing after every step, the
# summary. The steps' own kills are inside their limits.
MARGIN_S = 20
CALL_S = BUDGET_S + MARGIN_S  # what one call takes at most
# The device call's timeout_s: a minute past CALL_S, so only a stalled machine reaches it.
TIMEOUT_S = 360
DEVICE_CALL_MAX_S = 600  # the device tool's limit for one command
MIN_LIMIT_S = 10  # no step is scaled below this
PY = "{py}"  # the interpreter the check runs with (PYTHON, else python3)
# What every step imports, checked in the interpreter before the first step: the check refuses
# to start, in one line, without them. Triton and numba only make rungs available.
NEEDED = {"torch": "torch", "sklearn": "scikit-learn", "numpy": "numpy", "pytest": "pytest"}

# What the steps are for, in the order they must come within a call: setup, then what
# measures (the CUDA figures before any CPU-only ones), the export of the runs, the tests.
KINDS = ("setup", "measure", "export", "test")

# The CUDA cases of the engine, cheapest first: curves against the CPU's, the estimator,
# explain and the sweep before any cold torch.compile (tens of seconds each).
CUDA_TEST_FILES = (
    "tests/engine/train/test_devices_timing.py", "tests/engine/train/test_trainer.py",
    "tests/engine/train/test_estimator.py", "tests/engine/explain/test_explain.py",
    "tests/engine/sweep/test_sweep.py", "tests/engine/rungs/test_rungs_compiled_graph.py",
)
COMPILED_TEST_FILES = (
    "tests/engine/rungs/test_minibatch_compiled_graph.py",
    "tests/engine/rungs/test_compiled_recompiles.py",
)
# On the device, not in Triton's interpreter. The ahead-of-time fit checks
# (tests/kernels/test_kernel_fits.py) need no GPU: make test-kernels runs them.
KERNEL_TEST_FILES = ("tests/kernels/test_single_variant.py",
                     "tests/kernels/test_persistent_kernel.py")
PYTEST = (PY, "-m", "pytest", "-v", "-rs", "-p", "no:cacheprovider",
          "--continue-on-collection-errors")
# A model file of the check's own, for the row a user's file takes.
MODEL_FILE = "scripts/gpu_check/model_file.py:Net"


@dataclass(frozen=True)
class Step:
    name: str
    limit: int  # seconds, TERM a few seconds before, KILL at it
    file: str  # what the step's stdout is kept in, in the archive
    command: tuple[str, ...]
    kind: str = "measure"
    call: str = "first"


def iris(*args: str) -> tuple[str, ...]:
    return (PY, "-m", "iris_gui", *args)


def task(name: str) -> tuple[str, ...]:
    return (PY, "scripts/gpu_check/tasks.py", name)


def ladder(*args: str, engines: str = "eager,lean,graph,compiled") -> tuple[str, ...]:
    return iris("compare", "--engines", engines, "--devices", "cuda:0", *args)


STEPS = (
    Step("environment", 10, "environment.txt", task("environment"), "setup"),
    Step("devices", 15, "devices.json", iris("devices", "--json"), "setup"),
    # The note's own experiment, the GPU first: every recording choice that matters, twice.
    Step("compare", 75, "compare.txt", iris(
        "compare", "--devices", "cuda:0,cpu", "--records", "every-epoch,device,none",
        "--repeat", "2")),
    # The ladder's CUDA rungs, the ones the product exists to show, before any compile.
    Step("ladder cuda", 50, "ladder-cuda.txt", ladder(
        engines="graph,persistent,manual,lean,eager")),
    # Room for a cold start: CUDA's and CUPTI's initialisation, a capture or a Triton compile.
    Step("explain cuda", 25, "explain-cuda.txt", iris("explain", "--device", "cuda")),
    Step("explain cuda graph", 25, "explain-cuda-graph.txt", iris(
        "explain", "--device", "cuda", "--engine", "graph", "--record", "device")),
    Step("explain cuda persistent", 25, "explain-cuda-persistent.txt", iris(
        "explain", "--device", "cuda", "--engine", "persistent", "--record", "device")),
    # Resident batches by index on both devices, every-epoch (a sync per step) against device.
    Step("mini-batches", 25, "minibatch.txt", iris(
        "compare", "--devices", "cuda:0,cpu", "--batch", "32", "--records",
        "every-epoch,device", "--epochs", "300")),
    Step("export runs", 10, "export-runs.txt", task("export-runs"), "export"),
    # ---- the second call: everything else, after the rows that answer the note.
    # The tutorial's loader with workers, pinned memory and non-blocking copies; float16 through
    # eager's GradScaler and lean's; bfloat16 autocast.
    Step("loader cuda", 15, "loader-cuda.txt", iris(
        "train", "--device", "cuda", "--batch", "32", "--data-path", "loader", "--workers",
        "2", "--pin-memory", "--non-blocking", "--persistent-workers", "--epochs", "100"),
        call="rest"),
    Step("float16 cuda", 15, "float16-cuda.txt", ladder(
        "--batch", "32", "--precision", "float16", "--epochs", "300", engines="eager,lean"),
        call="rest"),
    Step("bfloat16 cuda", 15, "bfloat16-cuda.txt", ladder(
        "--precision", "bfloat16", "--epochs", "2000", engines="eager,lean"),
        call="rest"),
    # Models past the MLP on the rungs that train any model; compiled (a cold compile of the
    # module's forward and backward, last in its row) on the CNN.
    Step("cnn cuda", 35, "cnn-cuda.txt", ladder(
        "--model", "cnn", "--dataset", "digits", "--epochs", "300", "--lr", "0.1"),
        call="rest"),
    Step("transformer cuda", 25, "transformer-cuda.txt", ladder(
        "--model", "transformer", "--dataset", "sequences", "--epochs", "100",
        engines="eager,lean,graph"), call="rest"),
    Step("model file cuda", 15, "model-file-cuda.txt", ladder(
        "--model", MODEL_FILE, "--epochs", "2000", engines="eager,lean,graph"), call="rest"),
    # torch.compile's CUDA graphs for the MLP: a cold compile of tens of seconds. 5,000 epochs:
    # the ladder's own baseline, the note's loop, is measured in full by the first call.
    Step("ladder cuda compiled", 35, "ladder-cuda-compiled.txt", ladder(
        "--epochs", "5000", engines="compiled"), call="rest"),
    Step("sweep", 20, "sweep.txt", iris(
        "sweep", "--devices", "cuda:0,cpu", "--engines", "eager,graph,persistent", "--threads",
        "1", "--min-seconds", "0.2"), call="rest"),
    # The note's list of when the GPU wins, item by item: a sweep along each size, the GPU
    # against the CPU at torch's default threads (engine/records/note_list.py). The CNN and
    # transformer items' models are measured above, on the ladder.
    Step("wins", 20, "wins.txt", iris("wins", "--measure", "data,mlp,batch", "--devices",
                                      "cuda:0,cpu"), call="rest"),
    # The control for explain's profiler set-up: does an empty profile slow what follows?
    Step("profiler after", 25, "profiler-after.txt", (
        PY, "benchmarks/profiler_after.py", "--device", "cuda", "--engines", "eager,graph",
        "--epochs", "5000", "--repeat", "2"), call="rest"),
    Step("export runs again", 10, "export-runs-rest.txt", task("export-runs"), "export",
         "rest"),
    # The kernel tests carry the cuda marker too: they get a step (and a limit) of their own.
    Step("cuda tests", 20, "cuda-tests.txt",
         (*PYTEST, "-m", "cuda and not kernels", *CUDA_TEST_FILES), "test", "rest"),
    Step("compiled cuda tests", 20, "compiled-cuda-tests.txt",
         (*PYTEST, "-m", "cuda and not kernels", *COMPILED_TEST_FILES), "test", "rest"),
    Step("kernel tests", 10, "kernel-tests.txt", (*PYTEST, "-m", "kernels", *KERNEL_TEST_FILES),
         "test", "rest"),
)


def steps_of(call: str) -> tuple[Step, ...]:
    return tuple(step for step in STEPS if step.call == call)


def scaled_limits(limits: list[int], budget: int, planned: int = BUDGET_S) -> list[int]:
    """Every limit in proportion to another budget, rounded down so the sum stays within it. A
    smaller budget: limits that would fall below MIN_LIMIT_S get it, the others share the rest."""
    if budget > planned:
        return [limit * budget // planned for limit in limits]
    if budget >= sum(limits):
        return list(limits)
    floored = [False] * len(limits)
    while True:
        fixed = MIN_LIMIT_S * sum(floored)
        rest = sum(limit for limit, low in zip(limits, floored) if not low)
        newly = [i for i, limit in enumerate(limits) if not floored[i]
                 and (rest == 0 or limit * (budget - fixed) // rest < MIN_LIMIT_S)]
        if not newly:
            break
        for i in newly:
            floored[i] = True
    return [MIN_LIMIT_S if low else limit * (budget - fixed) // rest
            for limit, low in zip(limits, floored)]
