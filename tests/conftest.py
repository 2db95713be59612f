import os
import re
import sys

import pytest

# Set before any test imports Qt: the suite runs headless, in CI and on developer machines.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# The suite writes nothing outside temporary directories. Before anything imports Qt or asks
# platformdirs, every per-user location (QSettings, platformdirs, the runs store, the XDG cache
# and state folders) is pointed into one session directory; the subprocesses the tests start
# inherit os.environ, so they write there too. HOME is left alone. The user's real locations
# are snapshotted first and compared again when the session ends (tests/support/isolation.py).
# The helpers assert; let pytest explain their failures as it does in test modules.
pytest.register_assert_rewrite("support")
from support import isolation, plugin_options

isolation.begin()

# torch.compile's and Triton's caches of compiled code default to /tmp/torchinductor_$USER and
# ~/.triton, which the user's own work shares. The suite keeps them in this checkout instead
# (.cache/, git-ignored), across runs: an empty inductor cache costs the suite about a minute
# of C++ compiles (its check of the CPU's vector instructions alone is 16 s on 2 cores).
_CACHE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".cache")
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(_CACHE, "torchinductor"))
os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(_CACHE, "triton"))
# Before its first CPU compile, each process of inductor's asks which vector instructions the C++
# compiler can build by compiling a probe for each (AMX, AVX-512 VNNI, AVX-512, AVX2 here: 17 s
# on 2 cores with an empty cache, 1.4 s a process after). Told they all build, it takes the best
# that the CPU's flags list, the one the probes choose on a machine whose compiler builds them
# all; and the compiled tests then compile real kernels with that choice, so a compiler that
# could not build it fails them instead of falling back unseen.
os.environ.setdefault("TORCHINDUCTOR_VEC_ISA_OK", "1")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if anything under the user's real config or data locations was created,
    changed or deleted while it ran."""
    touched = isolation.touched_real_locations()
    if not touched:
        return
    lines = ["the test run touched the user's own iris-gui files:", *touched]
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("")
        for line in lines:
            reporter.write_line(line, red=True, bold=True)
    else:
        print("\n".join(lines), file=sys.stderr)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


# The folders whose files start real servers and kill processes: the longest files (a real
# Slurm's alone takes over a minute).
LONGEST_FIRST = ("remote", "reliability")


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    plugin_options.declare_missing(parser, pluginmanager)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Across make test's workers a file is one unit of work (--dist loadfile), handed out in
    this order (--no-loadscope-reorder): the longest first (tests/support/plugin_options.py)."""
    plugin_options.longest_first(items, getattr(config.option, "dist", "no") != "no",
                                 LONGEST_FIRST)


def pytest_unconfigure(config: pytest.Config) -> None:
    isolation.end()


# Without Qt (a GPU server's system Python: `pytest -m cuda` in scripts/gpu_check.sh), a test
# module that imports PySide6 or pyqtgraph is reported as skipped, with the reason, instead of
# stopping the whole run with a collection error. Only a missing package counts: a Qt that is
# installed but broken (say, a missing libEGL) still fails loudly.
_QT_MISSING = re.compile(r"No module named '(PySide6|shiboken6|pyqtgraph|pytestqt)[.']")


@pytest.hookimpl(hookwrapper=True)  # the old style: a GPU server's pytest may predate 8
def pytest_make_collect_report(collector: pytest.Collector):
    outcome = yield
    report = outcome.get_result()
    if report.failed and isinstance(collector, pytest.Module):
        missing = _QT_MISSING.search(str(report.longrepr))
        if missing:
            report.outcome = "skipped"
            report.longrepr = (str(collector.path), 0,
                               f"Skipped: {missing.group(1)} is not installed (no Qt here)")
