"""scripts/gpu_check.sh without a GPU: its plan and the rules the plan keeps, its dry run, and
whole runs with stand-in steps (GPU_CHECK_SIMULATE) stopped by TERM or KILL at several moments,
which must always leave $OUT with at most three files and an archive holding every step the
summary calls finished. Also: the tests' conftest imports where platformdirs is not installed
(a GPU server's Python)."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "gpu_check.sh"
sys.path.insert(0, str(ROOT / "scripts" / "gpu_check"))
import plan
import plan_check
from pack import Publisher

STEPS = [step.name for step in plan.STEPS]
OUT_FILES = sorted(plan_check.OUT_FILES)
PLAN_LINE = re.compile(r"^\s*(\d+)\. (.+?)\s+(\d+) s\s+(\d+)/(\d+) s\s+-> (\S+)$",
                       re.MULTILINE)
STEP_SECONDS = "0.3"  # each stand-in step: three lines over this long

pytestmark = pytest.mark.skipif(sys.platform == "win32" or shutil.which("bash") is None,
                                reason="the GPU check's entry point is a bash script")


def environment(tmp_path: Path, **env: str) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith("GPU_CHECK_") and k not in ("OUT", "PYTHON")}
    (tmp_path / "tmp").mkdir(exist_ok=True)  # the work and staging folders, cleaned up with it
    environ.update(OUT=str(tmp_path / "out"), PYTHON=sys.executable, TMPDIR=str(tmp_path / "tmp"),
                   **env)
    return environ


def run_check(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *args], env=environment(tmp_path, **env),
                          capture_output=True, text=True, timeout=120, check=False)


def plan_of(output: str) -> list[tuple[str, int, int, int]]:
    """(name, limit, running total, budget) per step, as the plan prints them."""
    return [(m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5)))
            for m in PLAN_LINE.finditer(output)]


def summary_rows(out: Path) -> dict[str, str]:
    """Step name -> its code in $OUT's summary (``not run`` for steps not reached)."""
    return summary_rows_of((out / "summary.txt").read_text())


def summary_rows_of(text: str) -> dict[str, str]:
    rows = {}
    for line in text.splitlines()[2:]:
        if line[:28].rstrip() in STEPS:
            rows[line[:28].rstrip()] = line[28:39].strip()
    return rows


def archived(out: Path) -> dict[str, str]:
    with tarfile.open(out / "gpu-check.tar.gz") as archive:
        return {member.name[2:]: archive.extractfile(member).read().decode()
                for member in archive.getmembers() if member.isfile()}


def assert_whole(out: Path, killed: bool = False) -> dict[str, str]:
    """$OUT as the device tool would bring it back: at most three files with plain names, a
    readable archive, and in it every step the summary calls finished, with all it printed.
    The archive holds the summary; a run ``killed`` between publishing the archive and the
    summary leaves the summary one publication behind the archive's."""
    left = sorted(p.name for p in out.iterdir())
    assert left == OUT_FILES, left
    files = archived(out)
    by_name = {step.name: step for step in plan.STEPS}
    for name, code in summary_rows(out).items():
        if code == "0":
            output = files[by_name[name].file]
            assert output.endswith("{}\n" if by_name[name].file.endswith(".json")
                                   else f"simulated {name}: done\n"), (name, output)
    if files["summary.txt"] != (out / "summary.txt").read_text():
        assert killed, "the summary differs from the archive's"
        archived_rows = summary_rows_of(files["summary.txt"])
        assert all(archived_rows[name] == code for name, code in summary_rows(out).items()
                   if code == "0"), (summary_rows(out), archived_rows)
    return files


# ---- the plan and its rules ----------------------------------------------------------------

@pytest.mark.parametrize("call, first, last", [
    ([], "environment", "export runs"), (["rest"], "loader cuda", "kernel tests")])
def test_the_dry_run_prints_and_checks_the_plan_and_leaves_three_files(tmp_path, call, first,
                                                                      last):
    started = time.monotonic()
    done = run_check(tmp_path, *call, GPU_CHECK_DRY="1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert time.monotonic() - started < 30  # it starts nothing
    printed = plan_of(done.stdout)
    assert [name for name, *_ in printed] == [s.name for s in plan.steps_of((call or ["first"])[0])]
    limits = [limit for _, limit, _, _ in printed]
    assert sum(limits) <= plan.BUDGET_S and all(limit >= plan.MIN_LIMIT_S for limit in limits)
    assert [total for *_, total, _ in printed] == [sum(limits[:i + 1])
                                                    for i in range(len(limits))]
    assert printed[0][0] == first and printed[-1][0] == last
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == OUT_FILES
    assert set(summary_rows(out).values()) == {"dry"}
    assert "dry run: nothing was started" in (out / "summary.txt").read_text()
    assert "plan.txt" in archived(out)


def test_the_rest_call_trains_past_the_notes_mlp_and_float32():
    words = [" ".join(step.command) for step in plan.steps_of("rest")]
    for wanted in ("--model cnn", "--model transformer", f"--model {plan.MODEL_FILE}",
                   "--precision bfloat16", "--precision float16", "benchmarks/profiler_after.py"):
        assert any(wanted in command for command in words), wanted
    float16 = next(step for step in plan.STEPS if "float16" in step.command)
    assert "eager" in float16.command[float16.command.index("--engines") + 1].split(",")
    assert (ROOT / plan.MODEL_FILE.split(":")[0]).is_file()


def test_the_real_plan_keeps_every_rule():
    assert plan_check.problems(plan.STEPS, plan.BUDGET_S, plan.BUDGET_S, ROOT) == []


def test_one_timeout_is_documented_and_a_call_leaves_room_for_another():
    # A call ends within 300 s; its timeout, at most 360 s, leaves device time for a second.
    assert plan.BUDGET_S + plan.MARGIN_S == plan.CALL_S <= 300 < plan.TIMEOUT_S <= 360
    assert all(sum(s.limit for s in plan.steps_of(call)) <= plan.BUDGET_S for call in plan.CALLS)
    for document in plan_check.DOCUMENTS:
        said = set(re.findall(r"timeout_s\s*=\s*(\d+)", (ROOT / document).read_text()))
        assert said == {str(plan.TIMEOUT_S)}, document


def _replaced(name: str, **changes) -> list:
    return [dataclasses.replace(step, **changes) if step.name == name else step
            for step in plan.STEPS]


def _command(name: str, option: str, value: str) -> tuple[str, ...]:
    words = list(next(step for step in plan.STEPS if step.name == name).command)
    words[words.index(option) + 1] = value
    return tuple(words)


@pytest.mark.parametrize("steps, fragment", [
    (_replaced("kernel tests", limit=400), "the rest call's limits add up to"),
    (_replaced("compare", call="rest"), "not in the order of their calls"),
    (_replaced("compare", command=_command("compare", "--devices", "cpu,cuda:0")),
     "'compare' measures cpu before the CUDA device"),
    (_replaced("ladder cuda", command=_command("ladder cuda", "--engines",
                                                "compiled,graph,persistent")),
     "the graph rung is measured after compiled's cold compile"),
    (_replaced("export runs", kind="setup"), "not in the order of their kinds"),
    (_replaced("sweep", file="sweep results.txt"), "is not a plain name"),
    (_replaced("sweep", file="summary.txt"), "is not a plain name"),
    (_replaced("sweep", file="compare.txt"), "the output file 'compare.txt' is used twice"),
    (_replaced("explain cuda", limit=5), "under 10 s"),
    (_replaced("cuda tests", command=(*plan.PYTEST, "tests/engine/test_gone.py")),
     "tests/engine/test_gone.py does not exist"),
], ids=["over-budget", "call-order", "cpu-first", "compiled-first", "kinds", "space", "reserved", "twice",
        "short", "missing-test"])
def test_a_plan_that_breaks_a_rule_is_refused(steps, fragment):
    found = plan_check.problems(steps, plan.BUDGET_S, plan.BUDGET_S, ROOT)
    assert any(fragment in line for line in found), found
    assert all("\n" not in line for line in found)


def _copy_of_the_tree(tmp_path: Path) -> Path:
    """The documents and the named test files, as plan_check reads them."""
    root = tmp_path / "tree"
    for name in [*plan_check.DOCUMENTS, *plan.CUDA_TEST_FILES, *plan.COMPILED_TEST_FILES,
                 *plan.KERNEL_TEST_FILES]:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, root / name)
    return root


def test_a_new_test_file_with_cuda_cases_must_be_named_by_a_step(tmp_path):
    root = _copy_of_the_tree(tmp_path)
    assert plan_check.problems(plan.STEPS, plan.BUDGET_S, plan.BUDGET_S, root) == []
    marked = "import pytest\n\n@pytest.mark." + "cuda\ndef test_on_the_gpu():\n    pass\n"
    (root / "tests" / "engine" / "test_new_gpu_case.py").write_text(marked)
    assert plan_check.problems(plan.STEPS, plan.BUDGET_S, plan.BUDGET_S, root) == [
        "tests/engine/test_new_gpu_case.py has CUDA cases that no step runs"]


def test_a_document_giving_another_timeout_is_refused(tmp_path):
    root = _copy_of_the_tree(tmp_path)
    readme = root / "README.md"
    readme.write_text(readme.read_text().replace(f"timeout_s={plan.TIMEOUT_S}",
                                                 f"timeout_s={plan.BUDGET_S}"))
    assert plan_check.problems(plan.STEPS, plan.BUDGET_S, plan.BUDGET_S, root) == [
        f"README.md must give timeout_s={plan.TIMEOUT_S} and no other; it gives {plan.BUDGET_S}"]


@pytest.mark.parametrize("budget", [200, 540])
def test_another_budget_scales_every_limit_in_proportion(budget):
    default = [step.limit for step in plan.steps_of("first")]
    limits = plan.scaled_limits(default, budget)
    # In proportion to the budget a call is sized for, rounded down, and never past the budget.
    assert min(budget, sum(default) * budget // plan.BUDGET_S) - len(default) <= sum(limits)
    assert sum(limits) <= budget
    assert all(limit >= plan.MIN_LIMIT_S for limit in limits)
    smaller = budget < sum(default)
    assert all(new < old if smaller else new > old
               for new, old in zip(limits, default, strict=True) if old > plan.MIN_LIMIT_S)


@pytest.mark.parametrize("budget", ["60", "ten"])
def test_a_budget_the_steps_cannot_fit_is_refused_before_anything_starts(tmp_path, budget):
    done = run_check(tmp_path, GPU_CHECK_BUDGET_S=budget)
    assert done.returncode == 2
    assert "REFUSED" in done.stdout + done.stderr
    assert not (tmp_path / "out" / "summary.txt").exists()


def test_an_interpreter_without_a_needed_module_is_refused_in_one_line(tmp_path):
    done = run_check(tmp_path, PYTHONPATH=str(ROOT / "tests" / "support" / "without"),
                     IRIS_GUI_TEST_WITHOUT="sklearn")
    assert done.returncode == 2
    refused = [line for line in (done.stdout + done.stderr).splitlines() if "REFUSED" in line]
    assert len(refused) == 1 and "lacks scikit-learn" in refused[0], refused
    assert not (tmp_path / "out" / "summary.txt").exists()


def test_a_call_that_is_not_one_is_refused(tmp_path):
    done = run_check(tmp_path, "second", GPU_CHECK_DRY="1")
    assert done.returncode == 2
    assert "'second' is not a call; the calls are first and rest" in done.stderr


def test_without_a_staging_folder_the_files_are_still_replaced_whole(tmp_path, monkeypatch):
    # No folder on $OUT's file system outside it: the new versions are written beside their
    # final names and renamed; none is left behind.
    import pack

    monkeypatch.setattr(pack, "staging_folder", lambda out: None)
    out, work = tmp_path / "out", tmp_path / "work"
    out.mkdir()
    work.mkdir()
    (work / "compare.txt").write_text("figures\n")
    publisher = Publisher(out, work)
    for turn in range(2):
        publisher.publish(f"turn {turn}\n")
    assert sorted(p.name for p in out.iterdir()) == ["gpu-check.tar.gz", "summary.txt"]
    assert archived(out) == {"compare.txt": "figures\n", "summary.txt": "turn 1\n"}


# ---- whole runs with stand-in steps --------------------------------------------------------

def _start(tmp_path: Path, **streams) -> subprocess.Popen:
    """A whole run with stand-in steps; its output goes nowhere unless ``streams`` say."""
    streams = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, **streams}
    return subprocess.Popen(["bash", str(SCRIPT), "rest"],  # the longer call
                            env=environment(tmp_path, GPU_CHECK_SIMULATE=STEP_SECONDS), **streams)


def _catching_sigterm(checks: list[subprocess.Popen]) -> list[float]:
    """When each run began to catch SIGTERM (Linux's /proc/PID/status SigCgt; bash catches no
    SIGTERM, the check's Python does once its handler is in place): before that, Python's and
    the plan's start-up, a SIGTERM ends the process as it would any program. Where there is
    no /proc, now."""
    began: dict[int, float] = {}
    deadline = time.monotonic() + 60
    while len(began) < len(checks) and time.monotonic() < deadline:
        for index, check in enumerate(checks):
            if index in began:
                continue
            try:
                status = Path(f"/proc/{check.pid}/status").read_text()
            except OSError:  # no /proc, or the run already ended
                began[index] = time.monotonic()
                continue
            caught = next((line.split()[1] for line in status.splitlines()
                           if line.startswith("SigCgt:")), "0")
            if int(caught, 16) >> (signal.SIGTERM - 1) & 1:
                began[index] = time.monotonic()
        time.sleep(0.005)  # a poll for readiness
    assert len(began) == len(checks), "a run never caught SIGTERM"
    return [began[index] for index in range(len(checks))]


def _signalled_at(tmp_path: Path, moments: list[float], send,
                  from_handler: bool = False) -> list[tuple[float, Path, int]]:
    """One whole run per moment, all under way at once (their steps mostly wait), each sent
    ``send`` that many seconds after its start, or with ``from_handler`` after it began to
    catch SIGTERM: (moment, its folder, its exit status)."""
    folders = [tmp_path / f"at-{moment}" for moment in moments]
    for folder in folders:
        folder.mkdir()
    checks = [(time.monotonic(), _start(folder)) for folder in folders]
    if from_handler:
        checks = list(zip(_catching_sigterm([check for _, check in checks]),
                          [check for _, check in checks], strict=True))
    for moment, (began, check) in sorted(zip(moments, checks, strict=True)):
        time.sleep(max(0.0, began + moment - time.monotonic()))  # until that run's moment
        send(check)
    return [(moment, folder, check.wait(timeout=60))
            for moment, folder, (_, check) in zip(moments, folders, checks, strict=True)]


def test_a_run_stopped_by_sigterm_at_any_moment_packs_what_it_has_and_says_so(tmp_path):
    for seconds, folder, code in _signalled_at(tmp_path, [0.4, 1.3, 2.6, 4.1],
                                               lambda check: check.send_signal(signal.SIGTERM),
                                               from_handler=True):
        assert code == 128 + signal.SIGTERM, seconds
        out = folder / "out"
        files = assert_whole(out)
        text = (out / "summary.txt").read_text()
        assert "stopped by SIGTERM" in text, (seconds, text)
        rows = summary_rows(out)
        cut = [name for name, code in rows.items() if code == str(128 + signal.SIGTERM)]
        assert len(cut) <= 1, (seconds, rows)
        for name in cut:  # the step under way: what it printed before the stop is kept
            step = next(s for s in plan.STEPS if s.name == name)
            assert step.file in files, seconds


def test_a_run_killed_at_any_moment_leaves_every_finished_step(tmp_path):
    by_name = {step.name: step for step in plan.STEPS}
    for seconds, folder, _ in _signalled_at(tmp_path, [0.5, 1.6, 2.9, 4.3],
                                            lambda check: check.kill()):
        out = folder / "out"
        if not (out / "gpu-check.tar.gz").exists():  # killed before its first archive
            assert not (out / "summary.txt").exists() or set(summary_rows(out).values()) <= {
                "not run"}, seconds
            continue
        assert_whole(out, killed=True)
        finished = [name for name, code in summary_rows(out).items()
                    if code == "0" and not by_name[name].file.endswith(".json")]
        log = (out / "gpu-check.log").read_text()
        assert all(f"simulated {name}: done" in log for name in finished), seconds


@pytest.fixture(scope="module", autouse=True)
def whole_run(tmp_path_factory: pytest.TempPathFactory):
    """A whole run with stand-in steps, started with the module's first test: its steps mostly
    wait, so it runs beside the tests above (its test comes after them) instead of alone."""
    folder = tmp_path_factory.mktemp("whole")
    check = _start(folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    yield folder, check
    if check.poll() is None:  # a test run that never asked for it
        check.kill()
    check.communicate()


def test_a_whole_run_packs_every_step(whole_run):
    tmp_path, check = whole_run
    stdout, stderr = check.communicate(timeout=120)
    assert check.returncode == 0, stdout + stderr
    out = tmp_path / "out"
    files = assert_whole(out)
    assert set(summary_rows(out).values()) == {"0"}
    assert {step.file for step in plan.steps_of("rest")} <= set(files)
    assert "completed in" in (out / "summary.txt").read_text()
    log = (out / "gpu-check.log").read_text()
    # A JSON step's stdout is its file alone; every other step's output is in the log too.
    assert all(f"simulated {step.name}: part 3 of 3" in log for step in plan.steps_of("rest")
               if not step.file.endswith(".json"))
    assert not list((tmp_path / "tmp").iterdir())  # the work folder went with the run


@pytest.fixture(scope="module", autouse=True)
def hung_run(tmp_path_factory: pytest.TempPathFactory):
    """A whole run whose first step ignores SIGTERM, started with the module's first test:
    its step's limit (10 s) passes while the other tests run."""
    folder = tmp_path_factory.mktemp("hung")
    check = subprocess.Popen(["bash", str(SCRIPT)], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True,
                             env=environment(folder, GPU_CHECK_SIMULATE="0.05",
                                             GPU_CHECK_SIMULATE_HANG="environment"))
    yield folder, check
    if check.poll() is None:  # a test run that never asked for it
        check.kill()
    check.communicate()


def test_a_step_that_ignores_sigterm_is_killed_at_its_limit_and_the_next_one_runs(hung_run):
    folder, check = hung_run
    output, _ = check.communicate(timeout=120)
    assert check.returncode == 0, output
    rows = summary_rows(folder / "out")
    assert rows["environment"] == "137" and rows["devices"] == "0"
    assert "timed out after 10 s" in output


IMPORT_CONFTEST = """
import sys
if sys.argv[1] == "hide":
    sys.modules["platformdirs"] = None  # import platformdirs now raises ImportError
import conftest
from support import isolation
assert isolation.Session.directory is not None and isolation.Session.directory.is_dir()
print(len(isolation.Session.real_locations))
isolation.end()
"""


def watched_locations(platformdirs: str) -> int:
    done = subprocess.run([sys.executable, "-c", IMPORT_CONFTEST, platformdirs],
                          cwd=ROOT / "tests", env=dict(os.environ), capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip())


def test_the_conftest_imports_where_platformdirs_is_missing():
    # A GPU server's system Python without the wheel: the run must not die at conftest import,
    # and the isolation watches every location but platformdirs' own: its data and cache
    # folders (its config folder, Qt's too, is watched either way).
    assert watched_locations("hide") == watched_locations("keep") - 2
