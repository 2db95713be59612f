"""Output into a code page that lacks some of its characters (Windows' Japanese cp932 has no
µ): each such character is written as ``?``, never a UnicodeEncodeError's traceback."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from iris_gui.cli.output import plain_output


def test_a_character_the_code_page_lacks_is_replaced_and_the_stream_restored(monkeypatch):
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="cp932", errors="strict")
    monkeypatch.setattr(sys, "stdout", stream)
    with plain_output():
        print("236 µs an epoch · 1 sync")
    sys.stdout.flush()
    assert raw.getvalue().decode("cp932") == "236 ?s an epoch ? 1 sync\n"
    assert stream.errors == "strict"  # as the caller had it


@pytest.mark.slow
def test_explain_into_a_cp932_file_ends_with_its_report(tmp_path):
    env = {**os.environ, "PYTHONIOENCODING": "cp932", "IRIS_GUI_DATA_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "iris_gui", "explain", "--epochs", "10",
                           "--repeat", "1"], capture_output=True, env=env, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr.decode("cp932", "replace")
    report = done.stdout.decode("cp932")
    assert "?s of overhead" in report and "Traceback" not in done.stderr.decode("cp932")
