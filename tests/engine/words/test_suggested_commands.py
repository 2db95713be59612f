"""Every command line the product suggests (the next steps of ``iris-gui devices`` and the
window's notice, the install hints of its one-line errors) means the same program and words
in a POSIX shell (a real ``sh`` parses it), cmd.exe and PowerShell (their rules,
tests/support/shells.py): a learner pastes it into whichever they have."""

from __future__ import annotations

import re
import sys

import pytest
from support.shells import cmd_words, posix_words, powershell_words

from iris_gui.engine.records.accelerator import KINDS, AcceleratorRecord
from iris_gui.engine.words.machine_steps import CUDA_TORCH_INSTALL, GPU_HOST, HERE, elsewhere

STEP_LINES = sorted({s.command for kind in KINDS
                     for s in (*HERE, GPU_HOST, *elsewhere(AcceleratorRecord(kind, "2.13.0",
                                                                             "13.0")))
                     if s.command})


def _hint(message: str) -> str:
    """The ``(pip install ...)`` a one-line error ends with."""
    (line,) = re.findall(r"\((pip install [^)]*)\)", message)
    return line


def test_the_install_hints_of_the_missing_extras_read_alike_in_every_shell(monkeypatch,
                                                                          capsys, tmp_path):
    from iris_gui.cli.session import require_qt
    from iris_gui.store.paths import StoreError
    from iris_gui.store.tensorboard import write_tensorboard

    monkeypatch.setitem(sys.modules, "pyqtgraph", None)
    with pytest.raises(SystemExit):
        require_qt("the window")
    monkeypatch.setitem(sys.modules, "tensorboard.summary.writer.event_file_writer", None)
    with pytest.raises(StoreError) as refused:
        write_tensorboard([], tmp_path)
    for line in (_hint(capsys.readouterr().err), _hint(str(refused.value))):
        words = posix_words(line)
        assert cmd_words(line) == words and powershell_words(line) == words
        assert len(words) >= 3 and words[:2] == ["pip", "install"]


@pytest.mark.parametrize("line", STEP_LINES)
def test_the_line_reads_alike_in_every_shell(line):
    words = posix_words(line)
    assert cmd_words(line) == words
    assert powershell_words(line) == words


def test_the_torch_install_asks_for_one_requirement_with_its_range():
    words = posix_words(CUDA_TORCH_INSTALL)
    assert words[:4] == ["python", "-m", "pip", "install"]
    assert words[4] == "torch>=2.4,<2.14" and words[5:] == [
        "--index-url", "https://download.pytorch.org/whl/cu130"]


def test_the_rules_refuse_what_each_shell_reads_otherwise():
    with pytest.raises(ValueError, match="cmd.exe reads \"'\""):
        cmd_words("pip install 'torch>=2.4'")
    with pytest.raises(ValueError, match="PowerShell reads ','"):
        powershell_words("pip install numba==0.60,pandas")
    with pytest.raises(ValueError, match=r"PowerShell expands '\$'"):
        powershell_words('echo "$HOME"')
