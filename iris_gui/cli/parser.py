"""The argument parser: every bad value ends as one line and exit status 2."""

from __future__ import annotations

import argparse
import os
from typing import NoReturn

from iris_gui.cli.ceilings_cmd import add_ceilings_command
from iris_gui.cli.model_options import add_model_options, add_sweep_model_options, model_values
from iris_gui.cli.remote_parser import add_remote_commands
from iris_gui.cli.roofline_cmd import add_roofline_options
from iris_gui.cli.wins_cmd import add_wins_command
from iris_gui.engine.spec.batch_settings import DATA_PATHS, PRECISIONS, parse_batch
from iris_gui.engine.spec.config import (
    DATASETS,
    OPTIMIZERS,
    SCALERS,
    ConfigError,
    RunConfig,
    parse_hidden,
)
from iris_gui.engine.spec.engines import ENGINES
from iris_gui.version import __version__

DEFAULTS = RunConfig()


class OneLineParser(argparse.ArgumentParser):
    """argparse prints the usage block before an error; we print the error alone, one line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _hidden(text: str) -> tuple[int, ...]:
    try:
        return parse_hidden(text)
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _csv(text: str) -> list[str]:
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise argparse.ArgumentTypeError("give at least one value, separated by commas")
    return items


def _repeat(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 1000:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; repeat must be a whole number from 1 to 1000")
    return int(text)


# The store's ids are SQLite integers: 1 to 2**63 - 1. A larger one would overflow on its
# way into SQLite (a traceback), so it is refused here, with the bad values.
MAX_ID = 2**63 - 1


def _is_id(text: str) -> bool:
    return text.isascii() and text.isdigit() and 1 <= int(text) <= MAX_ID


def _id(text: str) -> int:
    """One stored run's or sweep's id."""
    if not _is_id(text.strip()):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an id: ids are whole numbers from 1 to {MAX_ID:,} (SQLite's "
            "integers)")
    return int(text.strip())


def _run_ids(text: str) -> list[int]:
    items = _csv(text)
    if not all(_is_id(item) for item in items):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a list of run ids such as 1,2 (each a whole number from 1 to "
            f"{MAX_ID:,})")
    return [int(item) for item in items]


def _width(text: str) -> int:
    if not text.isdigit() or not 200 <= int(text) <= 10_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; the width is 200 to 10000 pixels")
    return int(text)


def _add_run_options(parser: argparse.ArgumentParser, single: bool) -> None:
    """The RunConfig fields as options; defaults are the note's experiment."""
    group = parser.add_argument_group("run")
    # None, not iris: --data alone means CSV data, and --dataset iris --data f.csv is refused.
    group.add_argument("--dataset", choices=DATASETS, default=None,
                       help="a built-in data set (default iris), or csv with --data")
    group.add_argument("--data", default=None, metavar="PATH.csv",
                       help="train on your own CSV: a header, numeric features, a target column")
    group.add_argument("--target", default=None, metavar="COLUMN",
                       help="the CSV's target column (default: its last column)")
    if single:
        group.add_argument("--device", default=DEFAULTS.device, help="cpu, cuda:0, mps, ... (see 'devices')")
        # None, not the default itself: train tells "not given" (the engine's own recording)
        # from a typed --record every-epoch (refused by an engine that cannot).
        group.add_argument("--record", default=None, metavar="every-epoch|every:N|device|none",
                           help="how the loss is brought back to the host (default: every-epoch, "
                                "as the note; device for an engine that keeps its losses there)")
        group.add_argument("--call", choices=("call", "forward"), default=DEFAULTS.call,
                           help="model(x) through nn.Module.__call__, or model.forward(x) as the note")
        group.add_argument("--engine", choices=ENGINES, default=DEFAULTS.engine,
                           help="the rung of the engine ladder (default eager: the note's loop)")
    group.add_argument("--epochs", type=int, default=DEFAULTS.epochs)
    group.add_argument("--lr", type=float, default=DEFAULTS.lr)
    group.add_argument("--hidden", type=_hidden, default=DEFAULTS.hidden, metavar="10[,10...]")
    group.add_argument("--optimizer", choices=OPTIMIZERS, default=DEFAULTS.optimizer)
    group.add_argument("--momentum", type=float, default=DEFAULTS.momentum)
    group.add_argument("--scaler", choices=SCALERS, default=DEFAULTS.scaler)
    group.add_argument("--test-size", type=float, default=DEFAULTS.test_size)
    group.add_argument("--seed", type=int, default=DEFAULTS.seed, help="weight initialisation seed")
    group.add_argument("--split-seed", type=int, default=DEFAULTS.split_seed)
    group.add_argument("--threads", type=int, default=DEFAULTS.threads,
                       help="intra-op threads (default 1: never slower for this model size, and "
                            "torch's default is 2.5-3.5x slower beside another busy thread)")
    group.add_argument("--world", type=int, default=DEFAULTS.world, metavar="N",
                       help="train one model on N processes together (data-parallel, gloo)")
    group.add_argument("--rows", type=int, default=DEFAULTS.synthetic_rows, help="synthetic data set rows")
    group.add_argument("--features", type=int, default=DEFAULTS.synthetic_features, help="synthetic features")
    group.add_argument("--classes", type=int, default=DEFAULTS.synthetic_classes, help="synthetic classes")
    group.add_argument("--repeat", type=_repeat, default=1, help="replicates; median and IQR are reported")
    add_model_options(group)
    _add_batch_options(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--no-save", action="store_true", help="do not keep the run(s) in the store")


def _batch(text: str) -> int:
    try:
        return parse_batch(text)
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _add_batch_options(parser: argparse.ArgumentParser) -> None:
    """Mini-batches, the data path and the precision (engine/spec/batch_settings.py)."""
    group = parser.add_argument_group("batches, data path, precision")
    group.add_argument("--batch", type=_batch, default=DEFAULTS.batch, metavar="full|N",
                       help="rows per optimizer step (default full: the note's full batch); "
                            "N shuffles every epoch")
    group.add_argument("--drop-last", action="store_true",
                       help="drop each epoch's last partial batch")
    group.add_argument("--data-path", choices=DATA_PATHS, default=DEFAULTS.data_path,
                       help="resident: the data on the device, batches by index; loader: a "
                            "torch DataLoader over host tensors")
    group.add_argument("--workers", type=int, default=DEFAULTS.workers,
                       help="the loader's worker processes (num_workers)")
    group.add_argument("--pin-memory", action="store_true", help="the loader pins its batches")
    group.add_argument("--non-blocking", action="store_true",
                       help="copy the loader's batches with non_blocking=True")
    # Not given (None): persistent whenever there are workers (RunConfig decides).
    group.add_argument("--persistent-workers", action=argparse.BooleanOptionalAction,
                       default=None, help="keep the loader's workers between epochs (the "
                       "default with --workers 1 or more); --no-persistent-workers starts "
                       "and stops them every epoch")
    group.add_argument("--prefetch-factor", type=int, default=DEFAULTS.prefetch_factor,
                       help="batches each loader worker prepares ahead")
    group.add_argument("--precision", choices=PRECISIONS, default=DEFAULTS.precision,
                       help="float32 (the note's), float64, or bfloat16/float16 autocast")
    group.add_argument("--tf32", action="store_true", help="allow TF32 for CUDA matmuls")


def build_parser() -> OneLineParser:
    parser = OneLineParser(prog="iris-gui", description=(
        "A lab for timing PyTorch training on the CPU and on accelerators. With no command, "
        "opens the desktop app."), epilog=(
        "Ctrl+C or SIGTERM during train, compare or sweep stops the run at its next chunk and "
        "keeps it as stopped (exit status 130 for Ctrl+C, 143 for SIGTERM); a second signal "
        "aborts the run in progress, but never a save, which finishes first. At any other "
        "moment a signal ends the command at once, with one line and the same statuses."))
    parser.add_argument("--version", action="version", version=f"iris-gui {__version__}")
    # One of these, or a command: each is a whole invocation on its own.
    alone = parser.add_mutually_exclusive_group()
    alone.add_argument("--self-test", action="store_true",
                       help="start the app offscreen, train a short run in the worker process, "
                            "export a PNG, then short native and manual runs; exit 0 only if "
                            "all of it worked")
    alone.add_argument("--install-desktop", action="store_true",
                       help="add iris-gui to your desktop's application menu: writes "
                            "iris-gui.desktop and its icon under $XDG_DATA_HOME (default "
                            "~/.local/share), starting this same iris-gui")
    alone.add_argument("--uninstall-desktop", action="store_true",
                       help="remove what --install-desktop wrote, and nothing else")
    commands = parser.add_subparsers(dest="command", metavar="command")

    devices = commands.add_parser("devices", help="list the devices this machine can train on")
    devices.add_argument("--json", action="store_true")
    devices.set_defaults(command_parser=devices)

    add_ceilings_command(commands)

    train = commands.add_parser("train", help="train once (the note's experiment by default)")
    _add_run_options(train, single=True)
    train.set_defaults(command_parser=train)

    compare = commands.add_parser("compare", help="every device x recording (and each --calls style), in one table")
    _add_run_options(compare, single=False)
    compare.set_defaults(command_parser=compare)
    compare.add_argument("--devices", type=_csv, default=["all"], metavar="all|cpu,cuda:0")
    compare.add_argument("--records", type=_csv, default=["every-epoch", "every:200", "device", "none"],
                         metavar="every-epoch,every:200,device,none")
    compare.add_argument("--calls", type=_csv, default=[DEFAULTS.call], metavar="call,forward")
    compare.add_argument("--baseline", default=None,
                         help="row number or label prefix such as cpu/none (default: first row)")
    compare.add_argument("--engines", type=_csv, default=None, metavar="all|eager,lean,...",
                         help="the engine ladder: per device, the note's loop and each engine "
                              "(with --record, default device), speedups against the note's "
                              "loop; 'all' takes every engine available on each device")
    compare.add_argument("--record", default=None, metavar="device|none|...",
                         help="with --engines: how the rungs record the loss (default device)")

    explain = commands.add_parser(
        "explain", help="profile a window of epochs: where each epoch's time goes, and why",
        description=(
            "Profile a window of epochs and break each epoch into forward, loss, backward, "
            "optimizer, loss recording and the loop's own Python, with syncs, kernels and copies "
            "counted and the costs the note names measured by paired, unprofiled runs. Here "
            "--epochs N (or --window N) is the profiled window, 10 to 100,000 epochs (default 200), "
            "not a run's length; --repeat is the number of paired replicates (default 5, at most "
            "100); explain saves nothing."))
    _add_run_options(explain, single=True)
    explain.add_argument("--window", dest="epochs", type=int, metavar="N",
                         help="profiled epochs, the same as --epochs here (default 200)")
    explain.add_argument("--trace", metavar="FILE.json",
                         help="keep the profiled window's trace there, as the profiler writes "
                              "it: open it in https://ui.perfetto.dev or chrome://tracing")
    explain.set_defaults(command_parser=explain, epochs=200, repeat=5)

    runs = commands.add_parser("runs", help="the stored runs")
    actions = runs.add_subparsers(dest="action", metavar="action", required=True)
    listing = actions.add_parser("list", help="one line per stored run")
    listing.add_argument("--json", action="store_true")
    show = actions.add_parser("show", help="one run in full")
    show.add_argument("id", type=_id)
    show.add_argument("--json", action="store_true")
    show.add_argument("--curve", action="store_true", help="include the loss curve (with --json)")
    export = actions.add_parser("export", help="write every run as a CSV row, or for TensorBoard")
    export.add_argument("--csv", metavar="PATH")
    export.add_argument("--tensorboard", metavar="DIR",
                        help="a folder per run (run-ID) of TensorBoard event files: the loss "
                             "curve, the timings, the settings as hparams")
    export.add_argument("--runs", type=_run_ids, metavar="ID[,ID...]",
                        help="these runs only (default: every run)")
    delete = actions.add_parser("delete", help="delete one run")
    delete.add_argument("id", type=_id)
    for action_parser in (listing, show, export, delete):
        action_parser.set_defaults(command_parser=action_parser)

    plot = commands.add_parser(
        "plot", help="draw stored runs' loss curves (or, with --ladder, their engine ladder) "
                     "to a PNG, SVG or CSV")
    plot.add_argument("--runs", type=_run_ids, metavar="ID[,ID...]")
    plot.add_argument("--sweep", type=_id, metavar="ID",
                      help="draw a stored sweep's crossover plot instead (see 'sweeps list')")
    plot.add_argument("--families", action="store_true",
                      help="the stored model-size sweeps of the MLP, CNN and Transformer on "
                           "one plot against FLOPs per step (see 'wins')")
    plot.add_argument("--out", required=True, metavar="FILE.png|.svg|.csv")
    plot.add_argument("--width", type=_width, default=1600, metavar="PX", help="PNG width (default 1600)")
    plot.add_argument("--log-y", action="store_true", help="logarithmic loss axis")
    plot.add_argument("--ladder", action="store_true",
                      help="the engine ladder of these runs instead: steady-state µs per epoch "
                           "per rung, grouped by device, with speedups against the note's loop")
    add_roofline_options(plot)
    plot.set_defaults(command_parser=plot)
    report = commands.add_parser(
        "report", help="a shareable report of stored runs: one self-contained HTML file, or "
                       "Markdown with its images beside it",
        description=(
            "The loss plot of the runs, their engine ladder (when they span several engines), "
            "a sweep's crossover (--sweep), the results table, the explain sentences of runs "
            "that were explained, and each run's environment and the command that repeats it. "
            "HTML embeds its images and refers to nothing outside the file; .md writes "
            "NAME-loss.png (and the others) beside it."))
    report.add_argument("--runs", type=_run_ids, default=[], metavar="ID[,ID...]",
                        help="the runs, in the order the table lists them (speedups against "
                             "the first)")
    report.add_argument("--wins", action="store_true",
                        help="add the note's list of when the GPU wins, answered from the "
                             "stored sweeps (as 'iris-gui wins' says it)")
    report.add_argument("--sweep", type=_id, metavar="ID",
                        help="add a stored sweep's crossover figure (see 'sweeps list')")
    report.add_argument("--out", required=True, metavar="FILE.html|.md")
    report.add_argument("--log-y", action="store_true", help="logarithmic loss axis")
    report.set_defaults(command_parser=report)
    _add_sweep_commands(commands)
    add_wins_command(commands, _csv)
    return parser


def _ints(text: str) -> list[int]:
    items = _csv(text)
    if not all(item.replace("_", "").isdigit() for item in items):
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of whole numbers such as "
                                         "120,1000")
    return [int(item.replace("_", "")) for item in items]


def _batches(text: str) -> list[int]:
    """``16,64,full`` -> [16, 64, 0]: each a batch size (``_batch``), once each, in order."""
    return list(dict.fromkeys(_batch(item) for item in _csv(text)))


def _add_sweep_commands(commands: argparse._SubParsersAction) -> None:
    from iris_gui.engine.records.sweep_model import SweepSpec

    spec = SweepSpec()
    sweep = commands.add_parser(
        "sweep", help="where the GPU starts to win: one training over a grid of problem sizes "
                      "on every device x engine, fitted, with the crossovers")
    sweep.add_argument("--devices", type=_csv, default=list(spec.devices),
                       metavar="all|cpu,cuda:0")
    sweep.add_argument("--engines", type=_csv, default=list(spec.engines),
                       metavar="eager,manual,...")
    sweep.add_argument("--threads", type=_csv, default=list(spec.threads), metavar="1,all",
                       help="CPU series: intra-op threads (all: torch's default, the physical "
                            "cores)")
    sweep.add_argument("--world", type=_ints, default=list(spec.worlds), metavar="1,2,...",
                       help="CPU series: processes training each point together")
    sweep.add_argument("--rows", type=_ints, default=list(spec.rows), metavar="120,1000,...")
    sweep.add_argument("--hidden", "--width", type=_ints, default=list(spec.hidden),
                       metavar="10,64,...", help="the widths swept: the MLP's hidden layer, a "
                                                 "cnn's channels, a transformer's features")
    add_sweep_model_options(sweep, spec)
    sweep.add_argument("--batch", type=_batches, default=list(spec.batches),
                       metavar="16,64,...,full",
                       help="batch sizes to sweep, rows per optimizer step (default full: the "
                            "note's full batch); several find where one series overtakes "
                            "another along the batch size")
    sweep.add_argument("--features", type=int, default=spec.features)
    sweep.add_argument("--classes", type=int, default=spec.classes)
    sweep.add_argument("--min-seconds", type=float, default=spec.min_seconds,
                       help="each point's timed window, at least (default 0.3)")
    sweep.add_argument("--min-epochs", type=int, default=spec.min_epochs,
                       help="each point's timed window, at least (default 20)")
    sweep.add_argument("--parallel", type=int, default=1, metavar="N",
                       help="on a Slurm host (prefix srun ...): its points on N jobs at once, "
                            "each its own node (default 1)")
    sweep.add_argument("--json", action="store_true")
    sweep.add_argument("--no-save", action="store_true")
    sweep.set_defaults(command_parser=sweep)
    sweeps = commands.add_parser("sweeps", help="the stored sweeps")
    actions = sweeps.add_subparsers(dest="action", metavar="action", required=True)
    listing = actions.add_parser("list", help="one line per stored sweep")
    listing.add_argument("--json", action="store_true")
    show = actions.add_parser("show", help="one sweep: points, fits, crossovers")
    show.add_argument("id", type=_id)
    show.add_argument("--json", action="store_true")
    delete = actions.add_parser("delete", help="delete one sweep")
    delete.add_argument("id", type=_id)
    for action_parser in (listing, show, delete):
        action_parser.set_defaults(command_parser=action_parser)
    add_remote_commands(commands)


def config_from_args(args: argparse.Namespace, **overrides: object) -> RunConfig:
    """Build the RunConfig the options describe; ConfigError names any bad value."""
    values: dict[str, object] = {
        "dataset": _dataset(args), "epochs": args.epochs, "lr": args.lr, "hidden": args.hidden,
        "optimizer": args.optimizer, "momentum": args.momentum, "scaler": args.scaler,
        "test_size": args.test_size, "seed": args.seed, "split_seed": args.split_seed,
        "threads": args.threads, "world": args.world, "synthetic_rows": args.rows,
        "synthetic_features": args.features, "synthetic_classes": args.classes,
    }
    for name in ("device", "record", "call", "engine"):
        if getattr(args, name, None) is not None:
            values[name] = getattr(args, name)
    for name in BATCH_FIELDS:
        if hasattr(args, name):
            values[name] = getattr(args, name)
    if getattr(args, "data", None) is not None:
        if not args.data.strip():
            raise ConfigError("--data names no file; give the path of a CSV file")
        # Absolute: the run is kept with its file, and a later run on the same file is
        # compared with it, from whatever directory it was started.
        values["data_file"] = os.path.abspath(os.path.expanduser(args.data))
    if getattr(args, "target", None) is not None:
        values["target"] = args.target
    values.update(model_values(args))
    values.update(overrides)
    return RunConfig(**values)


BATCH_FIELDS = ("batch", "drop_last", "data_path", "workers", "pin_memory", "non_blocking",
                "persistent_workers", "prefetch_factor", "precision", "tf32")


def _dataset(args: argparse.Namespace) -> str:
    """csv when --data names a file and no --dataset was given; iris when neither was."""
    if args.dataset is not None:
        return args.dataset
    return "csv" if getattr(args, "data", None) is not None else DEFAULTS.dataset

