"""The package as a user installs and cites it: the source distribution and the wheel built by
the project's own backend (setuptools) from the tracked files alone, as a clean clone has them,
and read back: the licence in both, the docs, the pictures they show and the example notebook
in the sdist, the metadata pip shows (licence, authors, classifiers PyPI knows, the Python
range), the package's code and resources in the wheel and nothing of the tests'."""

from __future__ import annotations

import email.parser
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD = ("from setuptools import build_meta as b; "
         "s = b.build_sdist('dist'); w = b.build_wheel('dist'); print('BUILT', s, w)")


def _tracked() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are not known")
    # Tracked, and new files not ignored: what a clone of this tree has once they are committed.
    done = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                          cwd=ROOT, capture_output=True, check=True)
    return [name for name in done.stdout.decode().split("\0")
            if name and (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[list[str], tarfile.TarFile, zipfile.ZipFile]:
    tracked = _tracked()
    tree = tmp_path_factory.mktemp("clean-clone")
    for name in tracked:
        target = tree / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    done = subprocess.run([sys.executable, "-c", BUILD], cwd=tree, capture_output=True,
                          text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    [built_line] = [line for line in done.stdout.splitlines() if line.startswith("BUILT ")]
    sdist_name, wheel_name = built_line.split()[1:]
    with tarfile.open(tree / "dist" / sdist_name) as sdist, \
            zipfile.ZipFile(tree / "dist" / wheel_name) as wheel:
        yield tracked, sdist, wheel


def _sdist_files(sdist: tarfile.TarFile) -> set[str]:
    return {member.name.split("/", 1)[1] for member in sdist.getmembers()
            if member.isfile() and "/" in member.name}


def _metadata(wheel: zipfile.ZipFile) -> email.message.Message:
    [name] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return email.parser.Parser().parsestr(wheel.read(name).decode())


def test_the_sdist_carries_the_docs_their_pictures_the_notebook_and_the_licence(built):
    tracked, sdist, _ = built
    files = _sdist_files(sdist)
    wanted = {name for name in tracked
              if name.startswith(("docs/", "examples/", "resources/", "iris_gui/"))
              and not name.endswith(".pyc")}
    assert wanted <= files, sorted(wanted - files)[:10]
    assert {"LICENSE", "CITATION.cff", "README.md", "pyproject.toml", "MANIFEST.in"} <= files
    assert not [name for name in files if "__pycache__" in name or name.endswith(".pyc")]


def test_the_wheel_is_the_package_its_resources_and_the_licence(built):
    tracked, _, wheel = built
    names = set(wheel.namelist())
    code = {name for name in tracked if name.startswith("iris_gui/") and name.endswith(".py")}
    assert code <= names, sorted(code - names)[:10]
    resources = {name for name in tracked if name.startswith("iris_gui/resources/")
                 and not name.endswith(".py")}
    assert resources and resources <= names, sorted(resources - names)  # the icons, the entry
    assert [name for name in names if name.endswith(".dist-info/licenses/LICENSE")]
    assert not [name for name in names if name.startswith(("tests/", "docs/", "benchmarks/"))]
    [entry] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "iris-gui = iris_gui.cli:main" in wheel.read(entry).decode()


def test_the_metadata_names_the_licence_the_authors_and_known_classifiers(built):
    import trove_classifiers

    metadata = _metadata(built[2])
    assert metadata["Name"] == "iris-gui" and metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert metadata["Author"] == "The iris-gui developers"
    assert metadata["Requires-Python"] == ">=3.10"
    classifiers = metadata.get_all("Classifier")
    assert classifiers and set(classifiers) <= trove_classifiers.classifiers, (
        set(classifiers) - trove_classifiers.classifiers)
    assert "Intended Audience :: Education" in classifiers
    tested = f"Programming Language :: Python :: {sys.version_info.major}.{sys.version_info.minor}"
    assert tested in classifiers  # the Python this suite runs on is one the package names


def test_the_citation_names_this_version_and_licence(built):
    from iris_gui.version import __version__

    text = (ROOT / "CITATION.cff").read_text()
    assert f'version: "{__version__}"' in text and "license: MIT" in text
    assert _metadata(built[2])["Version"] == __version__
