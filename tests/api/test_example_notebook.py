"""examples/why-is-the-gpu-slower.ipynb executed headless by nbclient with a real ipykernel, on
the CPU, its parameter cell set to small sizes (as papermill would): no cell errs, each
record's cell shows its table and figure inline and its figure as a PNG beside, with alt text
and a one-line plain text, nbconvert converts it to HTML without a warning, the kernel's
environment is left as it was (no platform chosen for it), and the last cell's record holds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "why-is-the-gpu-slower.ipynb"
SMALL = ("EPOCHS = 200\nSWEEP_ROWS = [100, 400]\nSWEEP_SECONDS = 0.02\nEXPLAIN_WINDOW = 20\n"
         "REPEAT = 1")
# The cells whose output is a record shown by its mime bundle, by the variable they show.
SHOWN = ("run", "compared", "ladder", "swept", "explained")


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    # Imported here, not at the top: nbformat's schema validation loads jsonschema's format
    # checkers, which build a grammar on import (2 s), and every test worker collecting this
    # module would pay it, not only the one that runs it.
    import nbformat
    from nbclient import NotebookClient

    data = tmp_path_factory.mktemp("notebook")
    book = nbformat.read(NOTEBOOK, as_version=4)
    (parameters,) = [c for c in book.cells if "parameters" in c.metadata.get("tags", [])]
    parameters.source = SMALL
    # What the drawing left in the kernel's environment, read after every figure.
    book.cells.append(nbformat.v4.new_code_cell(
        'import os\nos.environ.get("QT_QPA_PLATFORM", "unset")'))
    # The kernel inherits this environment: the test's data directory, offscreen Qt, and
    # Jupyter's and IPython's own folders (the connection file, the profile) in the test's.
    with pytest.MonkeyPatch.context() as env:
        env.setenv("IRIS_GUI_DATA_DIR", str(data / "data"))
        # No platform given: the kernel has no display, and a figure's drawing asks for the
        # offscreen one only while its QApplication starts.
        env.delenv("QT_QPA_PLATFORM", raising=False)
        env.setenv("JUPYTER_RUNTIME_DIR", str(data / "jupyter-runtime"))
        env.setenv("IPYTHONDIR", str(data / "ipython"))
        NotebookClient(book, timeout=240, kernel_name="python3",
                       resources={"metadata": {"path": str(data)}}).execute()
    return book, data


def test_no_cell_errs_and_every_record_shows_its_table_and_figure(executed) -> None:
    book, _ = executed
    outputs = [o for cell in book.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    for name in SHOWN:
        (cell,) = [c for c in book.cells if c.cell_type == "code"
                   and c.source.rstrip().endswith(f"\n{name}")]
        html = "".join(o.data.get("text/html", "") for o in cell.outputs
                       if o.output_type == "execute_result")
        assert '<img src="data:image/png;base64,' in html and ' alt="' in html, name
        (shown,) = [o for o in cell.outputs if o.output_type == "execute_result"]
        assert shown.data["image/png"] and shown.metadata["image/png"]["alt"], name
        assert len(shown.data["text/plain"]) < 400, name  # a line to read, not the record
    # The progress is one output updated in place, kept at its last state: no wall of redraws.
    # The same for every long call: a run's bar, a sweep's points, an explanation's parts.
    for start, last in (("run = lab.train", r"200/200 epochs"),
                        ("swept = lab.sweep", r"^point (\d+) of \1\b"),
                        ("explained = lab.explain", r" (\d+)/\1 parts: done$")):
        cell = next(c for c in book.cells if c.source.startswith(start))
        (line,) = [o for o in cell.outputs if o.output_type == "display_data"]
        text = line.data["text/plain"]
        assert re.search(last, text) and "\r" not in text, (start, text)
    assert not [o for o in outputs if o.output_type == "stream" and o.name == "stderr"]
    assert "<th>µs/epoch ± IQR</th>" in "".join(
        o.data.get("text/html", "") for o in outputs if o.output_type == "execute_result")


def test_the_records_are_saved_where_the_window_reads_and_hold_their_fields(executed) -> None:
    book, data = executed
    last = book.cells[-2].outputs  # the notebook's own last cell, before the test's
    (line,) = [o.text for o in last if o.output_type == "stream" and o.name == "stdout"]
    record = json.loads(line)
    ladder, points = record.pop("ladder"), record.pop("sweep_points")
    assert record == {"run": 1, "status": "completed", "epochs": 200, "compared": 3,
                      "explained": 20}
    # The note's loop first, then each rung against it; two sizes on each CPU series.
    assert ladder[0] == "eager" and set(ladder) == {"eager", "lean", "manual"}
    assert points >= 2 and points % 2 == 0
    assert (data / "data" / "runs.sqlite3").is_file()


def test_the_kernels_environment_is_left_as_it_was(executed) -> None:
    book, _ = executed
    (result,) = [o for o in book.cells[-1].outputs if o.output_type == "execute_result"]
    assert result.data["text/plain"] == "'unset'"


def test_nbconvert_converts_the_executed_notebook_without_a_warning(executed, caplog) -> None:
    import logging

    from nbconvert import HTMLExporter

    book, _ = executed
    exporter = HTMLExporter()
    with caplog.at_level(logging.WARNING):
        exporter.log.propagate = True
        html, _ = exporter.from_notebook_node(book)
    assert "No description has been provided for this image" not in html
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
