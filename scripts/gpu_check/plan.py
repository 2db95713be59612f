"""The GPU check's plan: its steps in order of value per second, each with a time limit, and
the budget they share. The device tool gives the check one call, of at most 600 s, from which at
most 8 files of $OUT come back; ``TIMEOUT_S`` is the one ``timeout_s`` to call it with, written
in the README and in scripts/gpu_check.sh's header (the plan check reads both).

Standard library only: it runs on a GPU server's own Python, with no virtual environment.
"""

from __future__ import annotations

from dataclasses import dataclass

BUDGET_S = 480  # what the steps' limits add up to at most
# What the call needs beyond the steps: the interpreter's start, packing after every step, the
# summary. The steps' own kills are inside their limits.
MARGIN_S = 60
TIMEOUT_S = BUDGET_S + MARGIN_S  # the device call's timeout_s
DEVICE_CALL_MAX_S = 600  # the device tool's limit for one command
MIN_LIMIT_S = 10  # no step is scaled below this
PY = "{py}"  # the interpreter the check runs with (PYTHON, else python3)

# What the steps are for, in the order they must come: setup, then what measures (the CUDA
# figures before any CPU-only ones), the export of the runs, the tests and benchmarks.
KINDS = ("setup", "measure", "export", "test")

# The CUDA cases of the engine, cheapest first: curves against the CPU's, the estimator,
# explain and the sweep before any cold torch.compile (tens of seconds each).
CUDA_TEST_FILES = (
    "tests/engine/train/test_devices_timing.py", "tests/engine/train/test_trainer.py",
    "tests/engine/train/test_estimator.py", "tests/engine/explain/test_explain.py",
    "tests/engine/sweep/test_sweep.py", "tests/engine/rungs/test_rungs_compiled_graph.py",
    "tests/engine/rungs/test_minibatch_compiled_graph.py",
    "tests/engine/rungs/test_compiled_recompiles.py",
)
# On the device, not in Triton's interpreter. The ahead-of-time fit checks
# (tests/kernels/test_kernel_fits.py) need no GPU: make test-kernels runs them.
KERNEL_TEST_FILES = ("tests/kernels/test_single_variant.py",
                     "tests/kernels/test_persistent_kernel.py")
PYTEST = (PY, "-m", "pytest", "-v", "-rs", "-p", "no:cacheprovider",
          "--continue-on-collection-errors")


@dataclass(frozen=True)
class Step:
    name: str
    limit: int  # seconds, TERM a few seconds before, KILL at it
    file: str  # what the step's stdout is kept in, in the archive
    command: tuple[str, ...]
    kind: str = "measure"


def iris(*args: str) -> tuple[str, ...]:
    return (PY, "-m", "iris_gui", *args)


def task(name: str) -> tuple[str, ...]:
    return (PY, "scripts/gpu_check/tasks.py", name)


STEPS = (
    Step("install wheels", 10, "install-wheels.txt", task("install-wheels"), "setup"),
    Step("environment", 10, "environment.txt", task("environment"), "setup"),
    Step("devices", 15, "devices.json", iris("devices", "--json"), "setup"),
    # The note's own experiment, the GPU first: every recording choice that matters.
    Step("compare", 45, "compare.txt", iris(
        "compare", "--devices", "cuda:0,cpu", "--records", "every-epoch,device,none",
        "--repeat", "2")),
    # The ladder's CUDA rungs, the ones the product exists to show, before any compile.
    Step("ladder cuda", 45, "ladder-cuda.txt", iris(
        "compare", "--engines", "graph,persistent,manual,lean,eager,native", "--devices",
        "cuda:0")),
    # Room for a cold start: CUDA's and CUPTI's initialisation, a capture or a Triton compile.
    Step("explain cuda", 25, "explain-cuda.txt", iris("explain", "--device", "cuda")),
    Step("explain cuda graph", 25, "explain-cuda-graph.txt", iris(
        "explain", "--device", "cuda", "--engine", "graph", "--record", "device")),
    Step("explain cuda persistent", 25, "explain-cuda-persistent.txt", iris(
        "explain", "--device", "cuda", "--engine", "persistent", "--record", "device")),
    # Resident batches by index on both devices, every-epoch (a sync per step) against device;
    # the tutorial's loader with workers, pinned memory and non-blocking copies; float16
    # autocast with its gradient scaler.
    Step("mini-batches", 25, "minibatch.txt", iris(
        "compare", "--devices", "cuda:0,cpu", "--batch", "32", "--records",
        "every-epoch,device", "--epochs", "300")),
    Step("loader cuda", 20, "loader-cuda.txt", iris(
        "train", "--device", "cuda", "--batch", "32", "--data-path", "loader", "--workers",
        "2", "--pin-memory", "--non-blocking", "--persistent-workers", "--epochs", "100")),
    Step("float16 cuda", 15, "float16-cuda.txt", iris(
        "train", "--device", "cuda", "--batch", "32", "--precision", "float16", "--engine",
        "lean", "--epochs", "300")),
    # torch.compile's CUDA graphs: a cold compile of tens of seconds, after the rest.
    Step("ladder cuda compiled", 40, "ladder-cuda-compiled.txt", iris(
        "compare", "--engines", "compiled", "--devices", "cuda:0")),
    Step("sweep", 30, "sweep.txt", iris(
        "sweep", "--devices", "cuda:0,cpu", "--engines", "eager,graph,persistent", "--threads",
        "1", "--min-seconds", "0.2")),
    # The note's list of when the GPU wins, item by item: a sweep along each size, the GPU
    # against the CPU at torch's default threads (engine/records/note_list.py).
    Step("wins", 40, "wins.txt", iris("wins", "--measure", "all", "--devices", "cuda:0,cpu")),
    Step("export runs", 10, "export-runs.txt", task("export-runs"), "export"),
    # The kernel tests carry the cuda marker too: they get a step (and a limit) of their own.
    Step("cuda tests", 50, "cuda-tests.txt",
         (*PYTEST, "-m", "cuda and not kernels", *CUDA_TEST_FILES), "test"),
    Step("ladder benchmark cuda", 25, "ladder-bench-cuda.txt", (
        PY, "benchmarks/ladder.py", "--device", "cuda", "--epochs", "5000", "--repeat", "3",
        "--engines", "graph,persistent,eager,lean,manual"), "test"),
    Step("kernel tests", 25, "kernel-tests.txt", (*PYTEST, "-m", "kernels", *KERNEL_TEST_FILES),
         "test"),
)


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
