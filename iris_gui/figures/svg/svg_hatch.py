"""Hatch brushes in Qt's SVG made portable: Qt writes a hatch as a coloured square seen
through a ``<mask>`` of the hatch's pixels inside a ``<pattern>``; ImageMagick's renderer draws
neither masks nor patterns (the bar comes out solid black). Used by svg_flatten."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from iris_gui.figures.svg.svg_geometry import SVG_NS, is_translation, local, number, parse_matrix

MAX_HATCH_SQUARES = 50_000  # past this a hatch stays a <pattern> (a browser and librsvg draw it)


def unmask_patterns(root: ET.Element) -> None:
    """Each pattern's square seen through a mask becomes the mask's pixels in the square's
    colour: the same tile, without a mask."""
    masks = {element.get("id"): element for element in root.iter(f"{{{SVG_NS}}}mask")}
    used: set[str] = set()
    for pattern in root.iter(f"{{{SVG_NS}}}pattern"):
        for square in list(pattern):
            found = re.fullmatch(r"url\(#([^)]+)\)", square.get("mask", ""))
            mask = masks.get(found.group(1)) if found else None
            if mask is None:
                continue
            colour = {key: square.get(key) for key in ("fill", "fill-opacity") if square.get(key)}
            pixels = [ET.Element(child.tag, {**child.attrib, **colour}) for child in mask]
            index = list(pattern).index(square)
            pattern[index:index + 1] = pixels
            used.add(found.group(1))
    for parent in root.iter():
        for child in list(parent):
            if child.tag == f"{{{SVG_NS}}}mask" and child.get("id") in used:
                parent.remove(child)


def tile_patterns(root: ET.Element) -> None:
    """A hatched rectangle drawn as its hatch's pixels, tile by tile: ImageMagick's renderer
    fills any ``<pattern>`` solid black. Qt lays a hatch's pixel tiles from the figure's
    origin whatever the painter's transform, so the squares are what the PNG shows."""
    patterns = {element.get("id"): element for element in root.iter(f"{{{SVG_NS}}}pattern")}
    for group in root.iter(f"{{{SVG_NS}}}g"):
        found = re.fullmatch(r"url\(#([^)]+)\)", group.get("fill", ""))
        pattern = patterns.get(found.group(1)) if found else None
        matrix = parse_matrix(group.get("transform", "matrix(1,0,0,1,0,0)"))
        tile = _tile(pattern) if pattern is not None else None
        children = list(group)
        if (tile is None or matrix is None or not is_translation(matrix)
                or not all(local(child.tag) == "rect" for child in children)):
            continue
        stroked = group.get("stroke", "none") != "none"
        drawn: list[ET.Element] = []
        for child in children:
            squares = _tiled(child, *tile, matrix[4], matrix[5])
            if squares is None:
                break
            drawn += squares
            if stroked:
                drawn.append(ET.Element(child.tag, {**child.attrib, "fill": "none"}))
        else:
            group.set("fill", "none")
            group[:] = drawn


def _tile(pattern: ET.Element) -> tuple[float, float, list[ET.Element]] | None:
    """A pattern tile's width, height and squares, if it is one Qt writes (squares from the
    origin, in user space)."""
    try:
        width, height = float(pattern.get("width", "0")), float(pattern.get("height", "0"))
        origin = float(pattern.get("x", "0")), float(pattern.get("y", "0"))
    except ValueError:
        return None
    squares = list(pattern)
    if (pattern.get("patternUnits") != "userSpaceOnUse" or origin != (0.0, 0.0)
            or width <= 0 or height <= 0 or not squares
            or any(local(square.tag) != "rect" for square in squares)):
        return None
    return width, height, squares


def _tiled(rect: ET.Element, width: float, height: float, squares: list[ET.Element],
           dx: float, dy: float) -> list[ET.Element] | None:
    """The hatch's squares over ``rect``, laid from the figure's origin (Qt's hatches do not
    move with the painter), in the coordinates of ``rect``'s group (translated by dx, dy)."""
    try:
        x, y, w, h = (float(rect.get(k, "0")) for k in ("x", "y", "width", "height"))
        x, y = x + dx, y + dy
        cells = [(float(s.get("x", "0")), float(s.get("y", "0")), float(s.get("width", "0")),
                  float(s.get("height", "0")), s) for s in squares]
    except ValueError:
        return None
    columns = range(int(x // width), int((x + w) // width) + 1)
    rows = range(int(y // height), int((y + h) // height) + 1)
    if len(columns) * len(rows) * len(cells) > MAX_HATCH_SQUARES:
        return None
    drawn = []
    for row in rows:
        for column in columns:
            for cx, cy, cw, ch, square in cells:
                x0, y0 = max(x, column * width + cx), max(y, row * height + cy)
                x1 = min(x + w, column * width + cx + cw)
                y1 = min(y + h, row * height + cy + ch)
                if x1 > x0 and y1 > y0:
                    drawn.append(ET.Element(square.tag, {
                        **square.attrib, "x": number(x0 - dx), "y": number(y0 - dy),
                        "width": number(x1 - x0), "height": number(y1 - y0)}))
    return drawn
