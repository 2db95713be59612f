"""Your own CSV data: what reads, what the record says, and every refusal as one line."""

from __future__ import annotations

import hashlib
import os
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
from sklearn import datasets

from iris_gui.engine.data import csv_data
from iris_gui.engine.data.csv_data import MEMORY_PER_FILE_BYTE, read_csv_data, read_header
from iris_gui.engine.data.datasets import load_dataset
from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.train.trainer import train

HEADER = "sepal_length,sepal_width,petal_length,petal_width,species\n"


def write(tmp_path: Path, content: str | bytes, name: str = "data.csv") -> str:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8", newline="")
    else:
        path.write_bytes(content)
    return str(path)


def iris_csv(tmp_path: Path, step: int = 1, name: str = "iris.csv") -> str:
    """Iris as a spreadsheet would write it: a header, the numbers and the species by name;
    every ``step``-th row (the file is sorted by species, so every species stays)."""
    bunch = datasets.load_iris()
    lines = [HEADER]
    for x, y in list(zip(bunch.data, bunch.target, strict=True))[::step]:
        lines.append(",".join(f"{v:g}" for v in x) + f",{bunch.target_names[y]}\n")
    return write(tmp_path, "".join(lines), name)


def refusal(call, *args, **kwargs) -> str:
    with pytest.raises(ConfigError) as caught:
        call(*args, **kwargs)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_numeric_target_makes_classes_of_its_sorted_values(tmp_path):
    path = write(tmp_path, "a,b,label\n1,2,2\n3,4,0\n5,6,1.0\n7,8,1\n9,10,0.5\n")
    data = read_csv_data(path)
    assert data.class_names == ("0", "0.5", "1", "2")  # "1" and "1.0" are one class
    assert data.y.tolist() == [3, 0, 2, 2, 1] and data.y.dtype == np.int64
    assert data.x.dtype == np.float64 and data.x.shape == (5, 2)
    assert data.x[:, 1].tolist() == [2, 4, 6, 8, 10]


def test_names_become_classes_in_sorted_order(tmp_path):
    path = write(tmp_path, HEADER + "1,2,3,4,virginica\n5,6,7,8,setosa\n9,1,2,3,versicolor\n"
                                    "4,5,6,7,setosa\n")
    data = read_csv_data(path, target="species")
    assert data.class_names == ("setosa", "versicolor", "virginica")
    assert data.y.tolist() == [2, 0, 1, 0]
    assert data.x.tolist() == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 1, 2, 3], [4, 5, 6, 7]]


def test_any_column_can_be_the_target(tmp_path):
    path = write(tmp_path, "kind,x,y\na,1,2\nb,3,4\n")
    data = read_csv_data(path, target="kind")
    assert data.class_names == ("a", "b") and data.x.tolist() == [[1, 2], [3, 4]]
    assert data.record["target"] == "kind" and data.record["columns"] == 2


def test_quoted_fields_blank_lines_and_other_delimiters(tmp_path):
    quoted = write(tmp_path, '"width, cm","height",class\n"1.5",2,"a, b"\n\n3,"4","line\none"\n')
    assert read_header(quoted) == ["width, cm", "height", "class"]
    data = read_csv_data(quoted)
    assert data.class_names == ("a, b", "line\none") and data.record["rows"] == 2
    semicolons = write(tmp_path, "a;b;c\n1;2;x\n3;4;y\n", "semi.csv")
    tabs = write(tmp_path, "a\tb\tc\n1\t2\tx\n3\t4\ty\n", "tabs.csv")
    for path in (semicolons, tabs):
        assert read_csv_data(path).x.tolist() == [[1, 2], [3, 4]]


def test_a_byte_order_mark_is_not_part_of_the_first_name_but_is_hashed(tmp_path):
    content = "\ufeffa,b,c\n1,2,x\n3,4,y\n".encode()
    path = write(tmp_path, content)
    assert read_header(path) == ["a", "b", "c"]
    data = read_csv_data(path, target="c")
    assert data.record["sha256"] == hashlib.sha256(content).hexdigest()
    assert data.record["size"] == len(content)


def test_the_record_names_the_file_its_bytes_and_its_shape(tmp_path, monkeypatch):
    path = iris_csv(tmp_path, step=3)
    monkeypatch.chdir(tmp_path)
    record = read_csv_data("iris.csv").record
    content = Path(path).read_bytes()
    assert record["path"] == str(Path(path).resolve()) and Path(record["path"]).is_absolute()
    assert record["size"] == len(content) == os.path.getsize(path)
    assert record["sha256"] == hashlib.sha256(content).hexdigest()
    assert (record["rows"], record["columns"], record["target"]) == (50, 4, "species")
    modified = datetime.fromisoformat(record["modified"])
    assert abs(modified.timestamp() - os.path.getmtime(path)) < 1


REFUSALS = [
    # (file content, target, message; {path} is the file's path)
    (HEADER + "1,2,3,4,a\n5,6,7,,b\n", "",
     "row 3, column 'petal_width' is empty; every feature needs a number"),
    (HEADER + "1,2,3,4,a\nabc,6,7,8,b\n", "",
     "row 3, column 'sepal_length' has 'abc', not a number; features must be numeric"),
    (HEADER + "1,2,3,4,a\n5,nan,7,8,b\n", "",
     "row 3, column 'sepal_width' has 'nan', not a finite number; features must be finite"),
    (HEADER + "1,2,-inf,4,a\n5,6,7,8,b\n", "",
     "row 2, column 'petal_length' has '-inf', not a finite number; features must be finite"),
    (HEADER + "1,2,3,4,a\n5,6,7,b\n", "",
     "row 3 has 4 fields; the header has 5 columns and every row needs one value for each"),
    (HEADER + "1,2,3,4,a\n", "kind",
     ("the target 'kind' is not a column of {path}; its columns are: 'sepal_length', "
     "'sepal_width', 'petal_length', 'petal_width', 'species'")),
    (HEADER + "1,2,3,4,a\n\n5,6,7,8, \n", "species",
     "row 4, target 'species' is empty; every row needs a class"),
    (HEADER + "1,2,3,4,setosa\n5,6,7,8,setosa\n", "species",
     "the target 'species' has one class ('setosa'); training needs two or more"),
    ("a,b,y\n1,2,0\n3,4,nan\n", "",
     "row 3, target 'y' has 'nan', not a class; a numeric target must be finite"),
    (HEADER + "\n", "", "{path} has a header but no data rows; add rows below line 1"),
    ("species\nsetosa\nversicolor\n", "",
     ("{path} has one column only (no comma, semicolon or tab on line 1); training needs at "
     "least one feature column beside the target: is it a CSV file?")),
    ("root:x:0:0:root:/root:/bin/bash\nbin:x:1:1\n", "",  # a file that is no CSV: not quoted
     ("{path} has one column only (no comma, semicolon or tab on line 1); training needs at "
     "least one feature column beside the target: is it a CSV file?")),
    ("", "", "{path} is empty or its line 1 is blank; line 1 must name the columns"),
    ("\na,b\n1,2\n", "", "{path} is empty or its line 1 is blank; line 1 must name the columns"),
    ("1,2,3\n4,5,6\n", "",
     "{path} has no header: line 1 is all numbers; add a first line that names the columns"),
    ("a,b,a\n1,2,3\n", "",
     "columns 1 and 3 of {path} are both named 'a'; every column needs its own name"),
    ("a,,c\n1,2,3\n", "", "column 2 of the header of {path} has no name; every column needs one"),
    (b"a,b,c\n1,2,\xe9t\xe9\n", "",
     "line 2 of {path} is not UTF-8 text (byte 0xe9); save the file as CSV UTF-8"),
]


@pytest.mark.parametrize("content, target, message", REFUSALS)
def test_each_refusal_is_one_line_naming_what_is_wrong(tmp_path, content, target, message):
    path = write(tmp_path, content)
    assert refusal(read_csv_data, path, target) == message.format(path=path)


@pytest.mark.parametrize("content, message", [
    ("", "{path} is empty or its line 1 is blank; line 1 must name the columns"),
    ("1,2\n", ("{path} has no header: line 1 is all numbers; add a first line that names the "
              "columns")),
    ("x,x\n", "columns 1 and 2 of {path} are both named 'x'; every column needs its own name"),
    ("x, ,y\n", "column 2 of the header of {path} has no name; every column needs one"),
])
def test_read_header_refuses_a_file_without_a_usable_header(tmp_path, content, message):
    path = write(tmp_path, content)
    assert refusal(read_header, path) == message.format(path=path)


def test_a_missing_or_unreadable_file_is_refused(tmp_path):
    missing = str(tmp_path / "missing.csv")
    expected = f"data file {missing} does not exist; give the path of a CSV file"
    assert refusal(read_header, missing) == expected
    assert refusal(read_csv_data, missing) == expected
    folder = str(tmp_path)
    assert refusal(read_csv_data, folder) == (f"data file {folder} is a folder, not a regular "
                                              "file; give the path of a CSV file")


def test_a_fifo_or_a_device_is_named_at_once_never_waited_on_or_read_forever(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)  # no writer: a plain open() would block here for ever
    assert refusal(read_csv_data, str(fifo)) == (
        f"data file {fifo} is a FIFO (a named pipe), not a regular file; give the path of a "
        "CSV file")
    endless = tmp_path / "zero.csv"
    endless.symlink_to("/dev/zero")  # its size is 0: a size check alone would pass it
    assert refusal(read_header, str(endless)) == (
        f"data file {endless} is a character device, not a regular file; give the path of a "
        "CSV file")


def test_a_line_with_no_break_in_sight_is_refused_at_its_bound_not_read_whole(tmp_path):
    sparse = tmp_path / "sparse.csv"
    with open(sparse, "wb") as handle:
        handle.truncate(2 * 1024**3)  # 2 GB of NULs, no line break; sparse, so no disk
    said = (f"line 1 of {sparse} is longer than 8.0 MB; a CSV file has one row a line (is it a "
            "CSV file?)")
    assert refusal(read_header, str(sparse)) == said
    assert refusal(lambda path: read_csv_data(path, available_bytes=2**40), str(sparse)) == said
    long_rows = write(tmp_path, "a,b\n" + "".join(f"{i},{c * 100_000}\n" for i, c in enumerate("xy")))
    assert read_header(str(long_rows)) == ["a", "b"]
    assert read_csv_data(str(long_rows)).class_names == ("x" * 100_000, "y" * 100_000)
    one = write(tmp_path, "a,b\n" + "1," + "x" * 100_000 + "\n")
    assert refusal(read_csv_data, str(one)) == (
        f"the target 'b' has one class ('{'x' * 40}...'); training needs two or more")


def test_a_file_that_grows_while_read_stops_at_the_size_it_had(tmp_path, monkeypatch):
    path = write(tmp_path, "a,b\n1,x\n2,y\n3,x\n")
    real_fstat = os.fstat

    def smaller(fd):  # as if the file had 6 bytes when opened and grew since
        info = real_fstat(fd)
        return os.stat_result((*info[:6], 6, *info[7:]))

    monkeypatch.setattr(csv_data.os, "fstat", smaller)
    assert refusal(read_csv_data, str(path)) == (
        f"data file {path} grew past its 6 bytes while it was read; give a file nothing is "
        "writing to")


def test_a_file_too_large_for_the_memory_available_is_refused_before_parsing(tmp_path):
    path = write(tmp_path, "a,b\n1,x\n2,y\n")  # 12 bytes
    needed = 12 * MEMORY_PER_FILE_BYTE
    assert read_csv_data(path, available_bytes=needed).record["rows"] == 2
    assert refusal(read_csv_data, path, available_bytes=needed - 1) == (
        f"{path} is 12 bytes; training on it needs about {needed} bytes of memory and "
        f"{needed - 1} bytes is available; use a smaller file or a machine with more memory")
    assert "needs about 1,600.0 MB of memory and 800.0 MB is available" in refusal(
        csv_data.check_fits, path, 100 * 2**20, 800 * 2**20)
    available = csv_data.available_memory()
    assert available is None or available > 0


def test_load_dataset_asks_the_machine_for_its_memory(tmp_path, monkeypatch):
    path = iris_csv(tmp_path)
    monkeypatch.setattr(csv_data, "available_memory", lambda: 1000)
    assert "and 1,000 bytes is available" in refusal(
        load_dataset, RunConfig(dataset="csv", data_file=path))


def test_a_csv_data_set_is_split_and_carries_its_record(tmp_path):
    path = iris_csv(tmp_path)
    data = load_dataset(RunConfig(dataset="csv", data_file=path, target="species"))
    assert data.x_train.shape == (120, 4) and data.x_test.shape == (30, 4)
    assert (data.n_features, data.n_classes) == (4, 3)
    assert data.class_names == ("setosa", "versicolor", "virginica")
    assert data.data_file == read_csv_data(path).record
    # The same rows as the built-in Iris, so the same split.
    assert np.array_equal(data.y_test, load_dataset(RunConfig()).y_test)
    assert load_dataset(RunConfig()).data_file == {}


def test_a_batch_larger_than_the_training_rows_is_refused(tmp_path):
    path = iris_csv(tmp_path, step=3)
    assert refusal(load_dataset, RunConfig(dataset="csv", data_file=path, batch=64)) == (
        "batch 64 is larger than the 40 training rows (of 50 rows, test size 0.2); choose a "
        "batch of at most 40 or full")
    assert len(load_dataset(RunConfig(dataset="csv", data_file=path, batch=40)).x_train) == 40
    assert "the 120 training rows (of 150 rows" in refusal(load_dataset, RunConfig(batch=121))


def test_too_few_rows_to_split_are_refused(tmp_path):
    path = write(tmp_path, "a,y\n1,x\n2,y\n")
    assert refusal(load_dataset, RunConfig(dataset="csv", data_file=path, test_size=0.95)) == (
        "2 rows are too few to split with test size 0.95: the training or the test part would "
        "be empty; add rows or change the test size")


def test_a_run_on_a_csv_file_completes_and_names_its_classes(tmp_path):
    path = iris_csv(tmp_path)
    result = train(RunConfig(dataset="csv", data_file=path, target="species", epochs=30))
    assert result.status is RunStatus.COMPLETED, result.message
    assert result.epochs_completed == 30
    assert result.class_names == ["setosa", "versicolor", "virginica"]
    assert result.data_file["sha256"] == hashlib.sha256(Path(path).read_bytes()).hexdigest()
    assert result.to_dict()["data_file"]["path"] == str(Path(path).resolve())


def test_a_stop_asked_while_a_large_file_is_read_ends_the_read_at_once(tmp_path):
    from iris_gui.engine.spec.errors import RunCancelled

    rows = csv_data.STOP_EVERY * 3
    path = write(tmp_path, "a,b,t\n" + "".join(f"{i},{i % 7},{'xy'[i % 2]}\n"
                                                for i in range(rows)))
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) >= 2  # the second ask says stop

    with pytest.raises(RunCancelled, match=f"stopped while reading {path}, at line "):
        read_csv_data(str(path), stop=stop)
    assert len(asked) == 2  # asked every STOP_EVERY rows, not per row
    assert len(read_csv_data(str(path), stop=lambda: False).y) == rows


@pytest.mark.parametrize("written", ["1_000", "\u0661\u0662", "\uff11"])
def test_a_number_python_would_read_but_a_csv_does_not_write_is_refused(tmp_path, written):
    path = write(tmp_path, f"a,t\n1,x\n{written},y\n")
    assert refusal(read_csv_data, str(path)) == (
        f"row 3, column 'a' has {written!r}, not a number written as a CSV holds one: digits "
        "0-9, one point, an exponent (1.5e-3)")


def test_a_quote_never_closed_is_named_where_it_opens_not_swallowed_into_a_class(tmp_path):
    path = write(tmp_path, 'a,b,t\n1,2,x\n3,4,"y\n5,6,x\n7,8,y\n')
    assert refusal(read_csv_data, str(path)) == (
        "the quote that opens in row 3 is never closed (the file ends inside it); close it or "
        "remove it")
