"""SVG geometry as Qt's generator writes it: parsing its shapes and transforms, applying a
transform to points, cutting lines at a rectangle, and writing numbers back (svg_flatten)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"
Matrix = tuple[float, float, float, float, float, float]  # SVG's matrix(a, b, c, d, e, f)
Rect = tuple[float, float, float, float]  # x0, y0, x1, y1
Commands = list[tuple[str, list[float]]]
_MATRIX = re.compile(r"matrix\(([^)]*)\)")
_PATH_TOKEN = re.compile(r"[A-Za-z]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_ARGS = {"M": 2, "L": 2, "C": 6, "Z": 0}  # the commands Qt's generator writes, all absolute
KAPPA = 0.5522847498  # a quarter circle's Bézier handle, as a share of the radius


def clip_lines(commands: Commands, edges: Rect) -> Commands:
    """A stroked polyline (M, L, Z) cut at ``edges``: the parts inside, each its own
    subpath."""
    kept: Commands = []
    start = current = None
    pen: tuple[float, float] | None = None  # where the kept line last ended
    for letter, values in commands:
        if letter == "M":
            start = current = (values[0], values[1])
            continue
        target = start if letter == "Z" else (values[0], values[1])
        if current is None or target is None:
            continue
        segment = clip_segment(current, target, edges)
        if segment is not None:
            if pen is None or segment[0] != pen:
                kept.append(("M", list(segment[0])))
            kept.append(("L", list(segment[1])))
            pen = segment[1]
            if segment[1] != target:
                pen = None
        else:
            pen = None
        current = target
    return kept



def clip_segment(a: tuple[float, float], b: tuple[float, float],
                  edges: Rect) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """Liang-Barsky: the part of segment ``a``-``b`` inside ``edges``, or None."""
    (x0, y0), (x1, y1) = a, b
    dx, dy = x1 - x0, y1 - y0
    low, high = 0.0, 1.0
    for p, q in ((-dx, x0 - edges[0]), (dx, edges[2] - x0), (-dy, y0 - edges[1]),
                 (dy, edges[3] - y0)):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            low = max(low, t)
        else:
            high = min(high, t)
        if low > high:
            return None
    if low == high and (dx or dy):
        return None  # touches an edge in one point: nothing of it shows
    start = a if low == 0.0 else (x0 + low * dx, y0 + low * dy)
    end = b if high == 1.0 else (x0 + high * dx, y0 + high * dy)
    return start, end



def shape_commands(element: ET.Element, tag: str) -> Commands | None:
    try:
        if tag == "path":
            return path_commands(element.get("d", ""))
        if tag in {"polyline", "polygon"}:
            values = [float(v) for v in re.split(r"[\s,]+", element.get("points", "").strip()) if v]
            if len(values) < 4 or len(values) % 2:
                return None
            points = [("M", values[:2])] + [("L", values[i:i + 2]) for i in range(2, len(values), 2)]
            return points + ([("Z", [])] if tag == "polygon" else [])
        if tag == "line":
            x1, y1, x2, y2 = (float(element.get(k, "0")) for k in ("x1", "y1", "x2", "y2"))
            return [("M", [x1, y1]), ("L", [x2, y2])]
        if tag == "rect":
            x, y, w, h = (float(element.get(k, "0")) for k in ("x", "y", "width", "height"))
            return [("M", [x, y]), ("L", [x + w, y]), ("L", [x + w, y + h]), ("L", [x, y + h]),
                    ("Z", [])]
        cx, cy = float(element.get("cx", "0")), float(element.get("cy", "0"))
        radius = element.get("r")
        rx = float(radius if radius is not None else element.get("rx", "0"))
        ry = float(radius if radius is not None else element.get("ry", "0"))
        return ellipse(cx, cy, rx, ry)
    except ValueError:
        return None



def path_commands(d: str) -> Commands | None:
    tokens = _PATH_TOKEN.findall(d)
    commands: Commands = []
    index = 0
    while index < len(tokens):
        letter = tokens[index]
        if letter not in _ARGS:
            return None  # relative, arc or other commands: Qt writes none of them
        count = _ARGS[letter]
        index += 1
        while True:
            values = tokens[index:index + count]
            if len(values) < count or any(v.isalpha() for v in values):
                return None
            commands.append((letter, [float(v) for v in values]))
            index += count
            # An implicit repeat ("L1,2 3,4") continues with the same command.
            if count == 0 or index >= len(tokens) or tokens[index].isalpha():
                break
            letter = "L" if letter == "M" else letter
    return commands



def ellipse(cx: float, cy: float, rx: float, ry: float) -> Commands:
    kx, ky = rx * KAPPA, ry * KAPPA
    return [("M", [cx + rx, cy]),
            ("C", [cx + rx, cy + ky, cx + kx, cy + ry, cx, cy + ry]),
            ("C", [cx - kx, cy + ry, cx - rx, cy + ky, cx - rx, cy]),
            ("C", [cx - rx, cy - ky, cx - kx, cy - ry, cx, cy - ry]),
            ("C", [cx + kx, cy - ry, cx + rx, cy - ky, cx + rx, cy]), ("Z", [])]



def parse_matrix(text: str) -> Matrix | None:
    found = _MATRIX.fullmatch(text.strip())
    if found is None:
        return None
    try:
        values = tuple(float(v) for v in re.split(r"[\s,]+", found.group(1).strip()))
    except ValueError:
        return None
    return values if len(values) == 6 else None  # type: ignore[return-value]



def point(m: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f



def apply(m: Matrix, values: list[float]) -> list[float]:
    out: list[float] = []
    for i in range(0, len(values), 2):
        out.extend(point(m, values[i], values[i + 1]))
    return out



def is_translation(m: Matrix) -> bool:
    return m[0] == 1 and m[1] == 0 and m[2] == 0 and m[3] == 1



def number(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in {"", "-0"} else text



def local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]
