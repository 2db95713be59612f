"""Qt's SVG made the same picture in every renderer: shapes in the coordinates they are drawn
in, cut at the plot's edges, fonts by names every renderer finds.

``QSvgGenerator`` writes SVG Tiny 1.2: each painter state becomes a ``<g>`` carrying the world
transform, and a cosmetic pen (pyqtgraph's default: one screen pixel at any zoom) becomes
``vector-effect="non-scaling-stroke"`` on a shape whose coordinates are the plot's data. A
browser honours that; librsvg (rsvg-convert, Inkscape- and LaTeX-based pipelines) and
ImageMagick do not, since SVG 1.1 has no vector-effect, and scale the stroke by the data
transform: a loss curve under ``matrix(1.14,0,0,-374,...)`` becomes a band hundreds of pixels
tall. So each cosmetic or unstroked shape under a transform that is more than a translation is
written here with the transform applied to its points (as a ``<path>``, or a ``<rect>`` that
stays one) and no transform left on it: a stroke width then means the same in every renderer,
and a hatch lies in the figure's pixels as Qt paints it. A non-cosmetic pen (scaled by its
transform in every renderer), a gradient in user space and a path command Qt does not write
keep their group and transform.

The plot's clip is applied to the geometry, not written as a ``<clipPath>``: Qt's own clipping
(its SVG 1.1 mode) loses the clip a painter restores (Qt 6.11: the next item is clipped to the
previous item's rectangle), and ImageMagick's renderer draws no stroke at all in a document
that defines a clip path. So the lines and bars of each view box (recognised by the transform
they are drawn with) are cut at its edges here, as the screen cuts them.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from iris_gui.figures.svg.svg_geometry import (
    SVG_NS,
    Matrix,
    Rect,
    apply,
    clip_lines,
    is_translation,
    local,
    number,
    parse_matrix,
    point,
    shape_commands,
)
from iris_gui.figures.svg.svg_hatch import tile_patterns, unmask_patterns

ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")

SHAPES = {"path", "polyline", "polygon", "rect", "ellipse", "circle", "line"}
_GEOMETRY = {"vector-effect", "d", "points", "x", "y", "width", "height", "cx", "cy", "r", "rx",
             "ry", "x1", "y1", "x2", "y2"}
# Qt writes numbers with 6 significant digits; a view's transform matches within this share.
MATCH_TOLERANCE = 1e-4


@dataclass(frozen=True)
class Clip:
    """A plot's view box: the transform its data items are drawn with, and its rectangle, both
    in the SVG's coordinates."""

    matrix: Matrix
    rect: tuple[float, float, float, float]  # x, y, width, height


def flatten(svg: bytes, width: float, height: float, clips: Sequence[Clip] = (),
            font_for: Callable[[str], str] | None = None) -> bytes:
    """Qt's SVG rewritten as the module notes say, shown at ``width`` x ``height`` pixels."""
    root = ET.fromstring(svg)
    root.set("width", number(width))
    root.set("height", number(height))
    root.set("version", "1.1")
    root.attrib.pop("baseProfile", None)
    _rewrite(root, clips)
    unmask_patterns(root)
    tile_patterns(root)
    if font_for is not None:
        _name_fonts(root, font_for)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def _name_fonts(root: ET.Element, font_for: Callable[[str], str]) -> None:
    """Each font by the installed family it resolved to, and, for a browser on a machine
    without it, a style rule falling back to any sans-serif. The attribute holds one name:
    ImageMagick's renderer stops drawing at a list or an unknown name (Qt's "Sans Serif" is
    an alias only Qt knows)."""
    families = set()
    for element in root.iter():
        family = element.get("font-family")
        if family:
            element.set("font-family", font_for(family))
            families.add(font_for(family))
    if len(families) == 1:
        defs = root.find(f"{{{SVG_NS}}}defs")
        if defs is None:
            defs = ET.Element(f"{{{SVG_NS}}}defs")
            root.insert(0, defs)
        style = ET.SubElement(defs, f"{{{SVG_NS}}}style", type="text/css")
        style.text = f"text {{ font-family: '{families.pop()}', sans-serif; }}"


def _rewrite(container: ET.Element, clips: Sequence[Clip]) -> None:
    children: list[ET.Element] = []
    for child in list(container):
        if local(child.tag) == "g" and child.get("transform"):
            children += _split(child, clips)
        else:
            if local(child.tag) == "g":
                _rewrite(child, clips)
            children.append(child)
    container[:] = children


def _split(group: ET.Element, clips: Sequence[Clip]) -> list[ET.Element]:
    """The group as one or more groups in the same order: runs of shapes rewritten in the
    figure's coordinates (no transform), and runs of what keeps the group's transform."""
    matrix = parse_matrix(group.get("transform", ""))
    if matrix is None:
        return [group]
    _rewrite(group, clips)
    if is_translation(matrix):
        for child in group:
            child.attrib.pop("vector-effect", None)  # a translation scales nothing
        return [group]
    if group.get("fill", "").startswith("url(#grad"):
        return [group]  # a gradient in user space would not move with the points
    view = next((clip for clip in clips if _same(clip.matrix, matrix)), None)
    edges = None if view is None else (view.rect[0], view.rect[1], view.rect[0] + view.rect[2],
                                       view.rect[1] + view.rect[3])
    baked_attrib = {key: value for key, value in group.attrib.items() if key != "transform"}
    runs: list[tuple[bool, list[ET.Element]]] = []
    for child in group:
        # A non-cosmetic pen scales with its transform in every renderer: it stays as is.
        cosmetic = child.get("vector-effect") == "non-scaling-stroke"
        filled = child.get("fill", group.get("fill", "none")) != "none"
        stroked = child.get("stroke", group.get("stroke", "none")) != "none"
        baked = _baked(child, matrix, edges, filled) if cosmetic or not stroked else None
        elements = [child] if baked is None else baked
        if runs and runs[-1][0] == (baked is not None):
            runs[-1][1].extend(elements)
        else:
            runs.append((baked is not None, elements))
    pieces = []
    for is_baked, elements in runs:
        piece = ET.Element(group.tag, baked_attrib if is_baked else dict(group.attrib))
        piece.extend(elements)
        pieces.append(piece)
    return pieces


def _baked(element: ET.Element, m: Matrix, edges: Rect | None,
           filled: bool) -> list[ET.Element] | None:
    """``element`` in the figure's coordinates, cut at ``edges`` where it can be (a line, an
    axis-aligned rectangle): a ``<path>``, a ``<rect>`` that stays one, or nothing if it lies
    outside; None if it is not a shape this can rewrite exactly."""
    tag = local(element.tag)
    if tag not in SHAPES or "transform" in element.attrib:
        return None
    if tag == "rect" and ("rx" in element.attrib or "ry" in element.attrib):
        return None  # rounded corners: Qt draws none
    if tag == "rect" and m[1] == 0 and m[2] == 0:
        return _rect(element, m, edges)
    commands = shape_commands(element, tag)
    if commands is None:
        return None
    commands = [(letter, apply(m, values)) for letter, values in commands]
    if edges is not None and not filled and all(letter in "MLZ" for letter, _ in commands):
        commands = clip_lines(commands, edges)
        if not commands:
            return []
    attrib = {key: value for key, value in element.attrib.items() if key not in _GEOMETRY}
    attrib["d"] = " ".join(letter + " ".join(f"{number(values[i])},{number(values[i + 1])}"
                                             for i in range(0, len(values), 2))
                           for letter, values in commands)
    if tag in {"polyline", "line"}:
        attrib.setdefault("fill", "none")
    return [ET.Element(f"{{{SVG_NS}}}path", attrib)]


def _rect(element: ET.Element, m: Matrix, edges: Rect | None) -> list[ET.Element] | None:
    """An axis-aligned rectangle stays one ``<rect>`` (a bar of the ladder stays a bar)."""
    try:
        x, y, w, h = (float(element.get(k, "0")) for k in ("x", "y", "width", "height"))
    except ValueError:
        return None
    (xa, ya), (xb, yb) = point(m, x, y), point(m, x + w, y + h)
    x0, y0, x1, y1 = min(xa, xb), min(ya, yb), max(xa, xb), max(ya, yb)
    if edges is not None:
        x0, y0, x1, y1 = max(x0, edges[0]), max(y0, edges[1]), min(x1, edges[2]), min(y1, edges[3])
        if x1 <= x0 or y1 <= y0:
            return []
    attrib = {key: value for key, value in element.attrib.items() if key != "vector-effect"}
    attrib.update(x=number(x0), y=number(y0), width=number(x1 - x0), height=number(y1 - y0))
    return [ET.Element(element.tag, attrib)]


def _same(clip: Matrix, found: Matrix) -> bool:
    return all(abs(x - y) <= MATCH_TOLERANCE * max(abs(x), abs(y)) + 1e-9
               for x, y in zip(clip, found, strict=True))


