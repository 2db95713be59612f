"""Reading exported figures as pixels (imported as ``figure_pixels``): an image as RGB, the
pixels of a colour, a curve's height in each column, and an SVG rasterised by librsvg."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
from PySide6.QtGui import QColor, QImage

RSVG = shutil.which("rsvg-convert")
NO_RSVG = ("rsvg-convert (Debian's librsvg2-bin) is not installed: .ci/run installs it; "
           "here: apt-get install librsvg2-bin")


def rgb(path: Path) -> np.ndarray:
    """The image at ``path`` as an int array (rows, columns, RGB), transparency over white."""
    image = QImage(str(path))
    assert not image.isNull(), path
    flat = QImage(image.size(), QImage.Format.Format_RGB32)
    flat.fill(QColor("white"))
    from PySide6.QtGui import QPainter

    painter = QPainter(flat)
    painter.drawImage(0, 0, image)
    painter.end()
    rows = np.frombuffer(flat.constBits(), np.uint8).reshape(flat.height(), -1, 4)
    return rows[:, :flat.width(), 2::-1].astype(int)  # BGRA in memory (little-endian) -> RGB


def ink(pixels: np.ndarray, colour: str, least: float = 0.3) -> np.ndarray:
    """Where ``pixels`` are ``colour`` laid over white with at least ``least`` coverage: a thin
    antialiased line is its colour blended into the background, not the colour itself."""
    want = QColor(colour)
    depth = 255.0 - np.array([want.red(), want.green(), want.blue()], dtype=float)
    found = 255.0 - pixels
    cover = (found @ depth) / (depth @ depth)
    residual = np.abs(found - cover[..., None] * depth).sum(axis=2)
    return (cover >= least) & (residual < 40)


def dark(pixels: np.ndarray, below: int = 170) -> np.ndarray:
    """Where ``pixels`` are a dark grey (axes, ticks, text), antialiased edges included."""
    return (pixels.max(axis=2) < below) & (np.ptp(pixels, axis=2) < 40)


def column_centres(mask: np.ndarray) -> np.ndarray:
    """For each column, the mean row of the mask's pixels (NaN where there are none)."""
    rows = np.arange(mask.shape[0])[:, None]
    counts = mask.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, (mask * rows).sum(axis=0) / counts, np.nan)


def dilated(mask: np.ndarray, radius: int) -> np.ndarray:
    """The mask grown by ``radius`` pixels in every direction (a square neighbourhood)."""
    grown = np.zeros_like(mask)
    padded = np.pad(mask, radius)
    height, width = mask.shape
    for dy in range(2 * radius + 1):
        for dx in range(2 * radius + 1):
            grown |= padded[dy:dy + height, dx:dx + width]
    return grown


def rasterise(svg: Path, png: Path, width: int, height: int) -> Path:
    """``svg`` drawn by librsvg at ``width`` x ``height`` pixels into ``png``."""
    assert RSVG is not None, NO_RSVG
    subprocess.run([RSVG, "--width", str(width), "--height", str(height), "--background-color",
                    "white", "--output", str(png), str(svg)], check=True, timeout=60)
    return png
