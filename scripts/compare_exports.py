"""Are the exported figures the same pixels as at another commit? For moves of drawing code.

    python scripts/compare_exports.py REV DATA_DIR [--keep]

DATA_DIR is a runs store with runs 1-2 (two of the note's runs), 3-8 (a ladder) and sweep 1, as
`scripts/readme_pictures.py` leaves in its scratch folder. The same figures are exported from
this working tree and from REV (checked out in a temporary git worktree): the loss curves, the
ladder and the sweep as PNG and SVG (`iris-gui plot`) and the report's images. PNGs must be
pixel-equal; each SVG is drawn with librsvg (`rsvg-convert`) on both sides and the drawings must
be pixel-equal. Prints one line per figure; exits 1 if any differs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPORTS = (
    ["plot", "--runs", "1,2", "--out", "loss.png"],
    ["plot", "--runs", "1,2", "--out", "loss.svg"],
    ["plot", "--runs", "1,2", "--log-y", "--width", "900", "--out", "loss-log.png"],
    ["plot", "--ladder", "--runs", "3,4,5,6,7,8", "--out", "ladder.png"],
    ["plot", "--ladder", "--runs", "3,4,5,6,7,8", "--out", "ladder.svg"],
    ["plot", "--sweep", "1", "--out", "sweep.png"],
    ["plot", "--sweep", "1", "--out", "sweep.svg"],
    ["report", "--runs", "3,4,5,6,7,8", "--sweep", "1", "--out", "r.md"],
)


def export_all(tree: Path, out: Path, data: Path) -> None:
    out.mkdir(parents=True)
    env = {**os.environ, "IRIS_GUI_DATA_DIR": str(data), "QT_QPA_PLATFORM": "offscreen",
           "PYTHONPATH": str(tree)}
    for args in EXPORTS:
        *head, last = args
        subprocess.run([sys.executable, "-m", "iris_gui", *head, str(out / last)], cwd=tree,
                       env=env, check=True, capture_output=True)
    for svg in out.glob("*.svg"):
        subprocess.run(["rsvg-convert", str(svg), "-o", str(svg) + ".png"], check=True)


def pixels(path: Path):
    import numpy as np
    from PySide6.QtGui import QImage

    image = QImage(str(path)).convertToFormat(QImage.Format.Format_RGBA8888)
    rows = np.frombuffer(image.constBits(), dtype=np.uint8).reshape(image.height(), -1)
    return rows[:, :image.width() * 4].copy()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev")
    parser.add_argument("data", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the exports (printed)")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="iris-gui-compare-"))
    old_tree = scratch / "tree"
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(old_tree), args.rev],
                   cwd=ROOT, check=True)
    try:
        export_all(old_tree, scratch / "old", args.data)
        export_all(ROOT, scratch / "new", args.data)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(old_tree)], cwd=ROOT,
                       check=False)
    differ = 0
    for old in sorted((scratch / "old").glob("*.png")):
        a, b = pixels(old), pixels(scratch / "new" / old.name)
        same = a.shape == b.shape and (a == b).all()
        differ += not same
        print(f"{old.name:22s} {'pixel-equal' if same else 'DIFFERENT'}")
    print(f"exports in {scratch}" if args.keep else "", end="")
    if not args.keep:
        shutil.rmtree(scratch)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
