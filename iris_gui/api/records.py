"""What the API returns: the product's own records (a ``RunResult``, a ``SweepResult``, a
``Breakdown``) with the id the store gave them, ``to_dict()`` as the command line's ``--json``
prints it, ``to_frame()`` where pandas is installed (a row per run as ``runs export --csv``
writes it, a row per sweep point as the sweep's CSV), and ``_repr_html_`` for a notebook
(display.py). A run's fields read through: ``run.final_loss``, ``run.timings.epoch_us``.
Printed, a record is one line a person reads (``Run 3: cpu · eager · every-epoch · forward:
completed, 2,000 epochs, 238 ± 8 µs/epoch``); the whole record is ``to_dict()``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.regime import Placement
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.labels import run_label
from iris_gui.engine.words.numbers import measured
from iris_gui.store.export import flat_record
from iris_gui.store.run_rows import StoredRun
from iris_gui.store.sweep_csv import sweep_rows


def _frame(rows: list[dict[str, Any]]) -> Any:
    try:
        import pandas
    except ImportError:
        raise ImportError("to_frame() needs pandas, which is not installed here; "
                          "to_dict() needs nothing (pip install pandas)") from None
    return pandas.DataFrame(rows)


class _Shown:
    """A record shown in a notebook: its table and figure (``_shown``) as a mime bundle, with
    its one line as the plain text."""

    def _shown(self) -> Any:
        raise NotImplementedError

    def _repr_html_(self) -> str:
        return self._shown().html

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        return self._shown().bundle(repr(self))


class _ReadsThrough(_Shown):
    """Fields the wrapper lacks are read from the record it holds (``THROUGH``)."""

    THROUGH = "result"

    def __getattr__(self, name: str) -> Any:
        if name in (self.THROUGH, "__setstate__"):  # not yet set (copy, pickle): no recursion
            raise AttributeError(name)
        return getattr(getattr(self, self.THROUGH), name)


def _run_line(run: Run) -> str:
    """``Run 3: cpu · eager · every-epoch · forward: completed, 2,000 epochs, 238 ± 8 µs/epoch``."""
    r, t = run.result, run.result.timings
    name = f"Run {run.id}" if run.id is not None else "Run (not saved)"
    steady = (f", {measured(t.epoch_us, t.epoch_us_iqr)} µs/epoch" if t.epoch_us == t.epoch_us
              else "")
    return (f"{name}: {run_label(r.config)}: {r.status.value}, "
            f"{r.epochs_completed:,} epochs{steady}")


@dataclass(repr=False)
class Run(_ReadsThrough):
    """One run: its id in the store (None when not saved) and its record."""

    id: int | None
    result: RunResult
    created_at: str = ""
    breakdown: dict[str, Any] | None = None
    # Against its device's latest kept ceilings (store/placing.py); None when not read.
    placement: Placement | None = None

    def stored(self) -> StoredRun:
        return StoredRun(self.id or 0, self.created_at, self.result, breakdown=self.breakdown,
                         placement=self.placement)

    def to_dict(self) -> dict[str, Any]:
        return {**self.stored().to_dict(), "id": self.id}

    def to_frame(self) -> Any:
        return _frame([{**flat_record(self.stored()), "id": self.id}])

    def to_tensorboard(self, folder: str | Path) -> Path:
        """The run as TensorBoard event files in a folder of its own under ``folder``
        (``run-0003-cpu-eager-every-epoch``); that folder."""
        return _tensorboard([self], folder)[0]

    def __repr__(self) -> str:
        return _run_line(self)

    def _shown(self) -> Any:
        from iris_gui.api.display import runs_shown

        return runs_shown([self.stored()], [self.id is not None])


class Runs(_Shown, list):
    """Several runs (a comparison, a ladder, the store's list), shown as one table."""

    def to_dict(self) -> list[dict[str, Any]]:
        return [run.to_dict() for run in self]

    def to_frame(self) -> Any:
        return _frame([{**flat_record(run.stored()), "id": run.id} for run in self])

    def to_tensorboard(self, folder: str | Path) -> list[Path]:
        """Each run as TensorBoard event files in a folder of its own under ``folder``;
        those folders."""
        return _tensorboard(list(self), folder)

    def __repr__(self) -> str:
        return "\n".join([counted(len(self), "run") + (":" if self else ""),
                          *(f"  {_run_line(run)}" for run in self)])

    def _shown(self) -> Any:
        from iris_gui.api.display import runs_shown

        return runs_shown([run.stored() for run in self], [run.id is not None for run in self])


def _tensorboard(runs: list[Run], folder: str | Path) -> list[Path]:
    from iris_gui.cli.session import open_store
    from iris_gui.store.tensorboard import write_tensorboard

    stored = [run.stored() for run in runs]
    listed = [i for i, run in enumerate(runs) if run.id is not None and not len(run.losses)]
    if listed:  # from the store's list, which leaves the curves behind
        with open_store(True) as store:
            for i in listed:
                stored[i] = store.get(runs[i].id)
    return write_tensorboard(stored, Path(folder))


class Ladder(Runs):
    """The engine ladder's runs: the note's loop first, then each rung; shown as the ladder."""

    def _shown(self) -> Any:
        from iris_gui.api.display import runs_shown

        return runs_shown([run.stored() for run in self], [run.id is not None for run in self],
                          ladder=True)


@dataclass(repr=False)
class Sweep(_ReadsThrough):
    """One sweep: its id in the store (None when not saved) and its record."""

    id: int | None
    result: SweepResult

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, **self.result.to_dict()}

    def to_frame(self) -> Any:
        return _frame(sweep_rows(self.result))

    def __repr__(self) -> str:
        r = self.result
        found = sum(1 for c in r.crossovers if c.at is not None)
        name = f"Sweep {self.id}" if self.id is not None else "Sweep (not saved)"
        return (f"{name}: {r.status}, {counted(len(r.points), 'point')}, "
                f"{counted(len(r.fits), 'series fit')}, {counted(found, 'crossing')}")

    def _shown(self) -> Any:
        from iris_gui.api.display import sweep_shown

        return sweep_shown(self.id, self.result)


@dataclass(repr=False)
class Explanation(_ReadsThrough):
    """Where an epoch's time goes (explain's breakdown), with its sentences."""

    THROUGH = "breakdown"
    breakdown: Breakdown

    def to_dict(self) -> dict[str, Any]:
        return {**self.breakdown.to_dict(), "answer": self.breakdown.answer(),
                "sentences": self.breakdown.sentences(),
                "estimate_sentences": self.breakdown.estimate_sentences()}

    def to_frame(self) -> Any:
        return _frame([{"category": name, "us_per_epoch": us}
                       for name, us in self.breakdown.to_dict()["categories"].items()])

    def __repr__(self) -> str:
        b = self.breakdown
        return f"Explanation of {b.device} · {b.engine}: {b.answer()}"

    def _shown(self) -> Any:
        from iris_gui.api.display import explain_shown

        return explain_shown(self.breakdown)


@dataclass(repr=False)
class Measured(_ReadsThrough):
    """A device's measured ceilings (records/ceilings.py): their id in the store (None when
    not kept) and the record."""

    THROUGH = "ceilings"
    id: int | None
    ceilings: Ceilings

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, **self.ceilings.to_dict()}

    def to_frame(self) -> Any:
        return _frame([{"ceiling": what, "unit": unit, **figure.to_dict()}
                       for _, what, unit, figure in self.ceilings.measured()])

    def __repr__(self) -> str:
        c = self.ceilings
        name = f"Ceilings {self.id}" if self.id is not None else "Ceilings (not kept)"
        threads = f", {counted(c.threads, 'thread')}" if c.device == "cpu" else ""
        return (f"{name}: {c.device} ({c.device_name}){threads}, {c.precision}: "
                f"{c.flops.median / 1e9:.3g} GFLOP/s, {c.bandwidth.median / 1e9:.3g} GB/s, "
                f"{c.op_floor.median * 1e6:.2g} µs an op")

    def _shown(self) -> Any:
        from iris_gui.api.display import ceilings_shown

        return ceilings_shown(self.ceilings)
