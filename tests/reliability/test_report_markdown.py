"""The Markdown report with hostile stored text (a shared or tampered store): no stored string
can end the "repeat it" code block, open raw HTML, break the results table or a link; image
names with spaces and parentheses still resolve. No CommonMark renderer is installed here, so
the page is checked by CommonMark's own block rules: fences (4.5), HTML blocks (4.6), pipes.
The end-to-end case stores the runs and writes the report through ``iris-gui report``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pytest

from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.words.command_line import command_for
from iris_gui.report.content import build_report
from iris_gui.report.markdown_page import markdown_page
from iris_gui.report.table import HEADERS
from iris_gui.store.runs import StoredRun

SCRIPT = "<script>alert(1)</script>"
HOSTILE = [
    f"\n```\n{SCRIPT}\n```\n",
    f"x\n````\n{SCRIPT}\n~~~\n<img src=x onerror=alert(2)>\n",
    f"a | b | c\n\n| --- |\n{SCRIPT} [link](javascript:alert(3)) ![i](x.png) *em* _u_ &lt;",
    f"\n# heading\n- item\n1. ordered\n> quote\n<div>{SCRIPT}</div>",
    f"`` ` {SCRIPT} ` ``\r```\r{SCRIPT}",
]


def hostile_run(run_id: int, text: str) -> StoredRun:
    losses = np.linspace(1.0, 0.2, 50, dtype=np.float32)
    result = RunResult(
        RunConfig(epochs=50, device=f"cpu{text}"), RunStatus.STOPPED, epochs_completed=50,
        losses=losses, final_loss=0.2, train_accuracy=0.9, test_accuracy=0.9,
        message=f"stopped{text}",
        timings=Timings(train_seconds=0.01, epoch_us=200.0, epoch_us_iqr=2.0,
                        epoch_us_method="chunk-median", epoch_us_chunks=5),
        env=EnvRecord(torch_version=f"2{text}", device="cpu", device_name=f"CPU{text}",
                      threads=1, cpu_model=f"model{text}", os=f"os{text}", python="3.11",
                      execution="in-process"),
        started_at=f"2026{text}",
    )
    return StoredRun(run_id, f"2026-12-01{text}", result)


def fences(lines: list[str]) -> tuple[list[tuple[int, int, str]], list[int]]:
    """CommonMark 4.5, for the lines given: each fenced block as (opening line, closing line,
    content), and the numbers of the lines outside every block."""
    blocks, outside, index = [], [], 0
    opening = re.compile(r"^ {0,3}(`{3,}|~{3,})")
    while index < len(lines):
        found = opening.match(lines[index])
        if not found:
            outside.append(index)
            index += 1
            continue
        fence = found[1]
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = next((j for j in range(index + 1, len(lines)) if closing.match(lines[j])),
                   len(lines))
        blocks.append((index, end, "\n".join(lines[index + 1:end])))
        index = end + 1
    return blocks, outside


def unescaped(text: str, mark: str) -> int:
    """How many times ``mark`` occurs not preceded by a backslash escape."""
    return len(re.findall(rf"(?<!\\)(?:\\\\)*{re.escape(mark)}", text))


def assert_inert(page: str, runs: list[StoredRun]) -> None:
    # CommonMark's line endings are \n, \r\n and \r alike.
    lines = re.split(r"\r\n|\r|\n", page)
    blocks, outside = fences(lines)
    commands = [command_for(run.result.config) for run in runs]
    # Exactly one block per run, holding the whole command, and the fence closes it.
    assert [content for _, _, content in blocks] == \
        [re.sub(r"\r\n|\r", "\n", command) for command in commands]
    for _start, end, _ in blocks:
        assert end < len(lines), "a code block runs to the end of the page"
    for number in outside:
        line = lines[number]
        assert not re.match(r"^ {0,3}<", line), f"an HTML block: {line!r}"
        assert unescaped(line, "<") == 0, f"raw HTML in {line!r}"
        assert "<script" not in line.replace("\\<script", ""), line
        assert unescaped(line, "[") == 0 or line.startswith("!["), line
        if line.startswith("|"):
            assert unescaped(line, "|") == len(HEADERS) + 1, f"a broken table row: {line!r}"
    table = [lines[n] for n in outside if lines[n].startswith("|")]
    assert len(table) == 2 + len(runs)


def test_hostile_fields_stay_text() -> None:
    runs = [hostile_run(index + 1, text) for index, text in enumerate(HOSTILE)]
    report = build_report(runs, command_for)
    page = markdown_page(report, [("loss `` curves\n<b>", "my report (1)-loss.png")])
    assert_inert(page, runs)


def test_a_fence_is_longer_than_any_backtick_run() -> None:
    from iris_gui.report.markdown_page import code_fence

    assert code_fence("iris-gui train") == "```"
    assert code_fence("a ``` b") == "````"
    assert code_fence("`" * 10) == "`" * 11


def test_image_links_survive_spaces_and_parentheses() -> None:
    runs = [hostile_run(1, "")]
    name = "my report (draft) <1>-loss.png"
    page = markdown_page(build_report(runs, command_for), [("The loss", name)])
    links = re.findall(r"!\[[^\]]*\]\(([^)]*)\)", page)
    assert len(links) == 1
    assert not re.search(r"[\s()<>]", links[0]), links
    assert unquote(links[0]) == name


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")
def test_report_cli_keeps_hostile_runs_inert(tmp_path: Path) -> None:
    """Through the store and ``iris-gui report`` into a name with a space: the page is inert
    and each image link names a file beside it."""
    from support.cli import DB_NAME, TIMEOUT_S, cli_env, describe

    from iris_gui.store.runs import RunStore

    data, out = tmp_path / "data", tmp_path / "out"
    data.mkdir()
    out.mkdir()
    with RunStore.open(data / DB_NAME) as store:
        ids = [store.save(hostile_run(0, text).result) for text in HOSTILE[:2]]
    target = out / "my report (1).md"
    proc = subprocess.run(
        [sys.executable, "-m", "iris_gui", "report", "--runs", ",".join(map(str, ids)),
         "--out", str(target)], capture_output=True, text=True, env=cli_env(data),
        timeout=TIMEOUT_S, check=False)
    assert proc.returncode == 0, describe(proc)
    page = target.read_text(encoding="utf-8")
    with RunStore.open(data / DB_NAME) as store:
        stored = [store.get(run_id) for run_id in ids]
    assert_inert(page, stored)
    links = re.findall(r"!\[[^\]]*\]\(([^)]*)\)", page)
    assert links, page
    for link in links:
        assert not re.search(r"[\s()<>]", link), link
        assert (out / unquote(link)).is_file(), link


@pytest.mark.parametrize("message", ["- a list", "1. a list", "12) a list", "+ a list"])
def test_a_message_cannot_open_a_list_in_its_quote(message: str) -> None:
    run = hostile_run(1, "")
    run.result.message = message
    page = markdown_page(build_report([run], command_for), [])
    quoted = [line for line in page.splitlines() if line.startswith("> ")]
    assert len(quoted) == 1
    assert not re.match(r"^> (?:[-+*]|\d{1,9}[.)])(?: |$)", quoted[0]), quoted
