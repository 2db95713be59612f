"""The frozen app: build dist/iris-gui/ with build.spec, then run it as a user would.

Marked ``bundle`` (a build takes minutes), so the default ``make test`` leaves it out;
``make test-bundle`` runs it. Set IRIS_GUI_BUNDLE_DIR to test an existing build instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.bundle


@pytest.fixture(scope="module")
def executable(tmp_path_factory) -> Path:
    given = os.environ.get("IRIS_GUI_BUNDLE_DIR")
    if given:
        return Path(given) / "iris-gui"
    dist = tmp_path_factory.mktemp("dist")
    work = tmp_path_factory.mktemp("build")
    pyinstaller = Path(sys.executable).with_name("pyinstaller")
    done = subprocess.run([str(pyinstaller), "--noconfirm", "--clean", "--distpath", str(dist),
                           "--workpath", str(work), "build.spec"], cwd=ROOT, capture_output=True,
                          text=True, timeout=1800, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    return dist / "iris-gui" / "iris-gui"


def _run(executable: Path, *args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "IRIS_GUI_DATA_DIR": str(tmp_path / "d")}
    return subprocess.run([str(executable), *args], capture_output=True, text=True, timeout=300,
                          env=env, check=False)


def test_the_folder_carries_what_the_app_reads(executable):
    internal = executable.parent / "_internal"
    assert (internal / "iris_gui" / "resources" / "icons" / "iris-gui-256.png").is_file()
    assert (internal / "iris_gui" / "resources" / "iris-gui.desktop").is_file()
    assert not (internal / "triton").exists(), "triton is never bundled (build.spec)"
    assert list(internal.glob("sklearn/datasets/data/iris.csv*"))
    assert (internal / "torch" / "bin" / "torch_shm_manager").exists()
    assert not list(internal.glob("torch/bin/test_*")), "torch's test binaries are excluded"
    assert list(internal.glob("llvmlite/binding/libllvmlite*.so")), "native's JIT needs LLVM"


def test_version(executable, tmp_path):
    done = _run(executable, "--version", tmp_path=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("iris-gui ")


def test_train_json_in_the_frozen_app(executable, tmp_path):
    done = _run(executable, "train", "--epochs", "200", "--json", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["status"] == "completed" and record["epochs_completed"] == 200
    assert record["id"] == 1 and (tmp_path / "d" / "runs.sqlite3").exists()


def test_devices_and_bad_input(executable, tmp_path):
    found = json.loads(_run(executable, "devices", "--json", tmp_path=tmp_path).stdout)
    assert found["devices"][0]["id"] == "cpu"
    bad = _run(executable, "train", "--epochs", "0", tmp_path=tmp_path)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("engine", ["native", "manual"])
def test_ladder_engine_trains_in_the_frozen_app(executable, tmp_path, engine):
    """native JITs with the bundled numba/llvmlite; manual is a rung PyInstaller cannot see."""
    done = _run(executable, "train", "--engine", engine, "--record", "device", "--epochs", "300",
                "--json", tmp_path=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads(done.stdout)
    assert record["status"] == "completed", record
    assert record["engine"] == engine and record["epochs_completed"] == 300


def test_devices_lists_the_ladder_with_the_bundle_reasons(executable, tmp_path):
    done = _run(executable, "devices", "--json", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    engines = json.loads(done.stdout)["devices"][0]["engines"]
    assert set(engines) == {"eager", "lean", "manual", "compiled", "graph", "persistent",
                            "native"}
    assert all(engines[name] is None for name in ("eager", "lean", "manual", "native")), engines
    assert "cannot work inside the standalone bundle" in engines["compiled"], engines
    assert engines["graph"] == "the graph engine runs on CUDA GPUs only", engines


def test_self_test_runs_the_worker_process_from_the_frozen_executable(executable, tmp_path):
    done = _run(executable, "--self-test", tmp_path=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "self-test passed" in done.stdout
    assert "trained in the worker process" in done.stdout
    lines = done.stdout.splitlines()
    for engine in ("native", "manual"):  # no [skipped]: the bundle must run both
        assert any(line.startswith(f"[ok] short {engine} run") for line in lines), done.stdout


def test_install_desktop_names_the_bundles_executable(executable, tmp_path):
    done = _run(executable, "--install-desktop", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    entry = tmp_path / ".local" / "share" / "applications" / "iris-gui.desktop"
    assert f"Exec={executable}\n" in entry.read_text()
    assert (tmp_path / ".local/share/icons/hicolor/256x256/apps/iris-gui.png").is_file()


def test_persistent_says_triton_is_missing_from_the_bundle(executable, tmp_path):
    # Triton's interpreter would let it run on the CPU; the bundle leaves triton out (build.spec
    # NEVER_BUNDLED), so the rung must say so in one line rather than fail to import.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TRITON_INTERPRET": "1",
           "IRIS_GUI_DATA_DIR": str(tmp_path / "d")}
    done = subprocess.run([str(executable), "devices", "--json"], capture_output=True, text=True,
                          timeout=300, env=env, check=False)
    assert done.returncode == 0, done.stderr
    reason = json.loads(done.stdout)["devices"][0]["engines"]["persistent"]
    assert "needs Triton, which is not installed" in reason and "\n" not in reason
