"""svg_flatten on hand-written SVG in Qt's shape: cosmetic strokes written in the figure's
coordinates, a view's lines and bars cut at its edges, hatches drawn as their pixels, fonts by
one installed name. (test_export_match.py checks the whole figure against the PNG.)"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from iris_gui.figures.svg.svg_flatten import Clip, flatten

SVG = "{http://www.w3.org/2000/svg}"
DATA = (2.0, 0.0, 0.0, -100.0, 10.0, 210.0)  # x: 2 px per epoch; y: 100 px per unit, flipped
VIEW = Clip(DATA, (10.0, 10.0, 200.0, 200.0))  # epochs 0-100, losses 0-2


def qt_svg(body: str, defs: str = "") -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?><svg width="80mm" height="80mm" '
            f'viewBox="0 0 220 220" xmlns="http://www.w3.org/2000/svg" version="1.2" '
            f'baseProfile="tiny"><defs>{defs}</defs><g fill="none">{body}</g></svg>').encode()


def group(body: str, matrix: tuple[float, ...] = DATA, **style: str) -> str:
    attributes = " ".join(f'{key.replace("_", "-")}="{value}"' for key, value in style.items())
    return (f'<g {attributes} transform="matrix({",".join(str(v) for v in matrix)})" '
            f'font-family="Sans Serif">{body}</g>')


def flat(body: str, defs: str = "", clips=(VIEW,)) -> ET.Element:
    return ET.fromstring(flatten(qt_svg(body, defs), 440, 440, clips, lambda name: "DejaVu Sans"))


def test_a_cosmetic_curve_is_written_in_the_figures_pixels() -> None:
    root = flat(group('<path vector-effect="non-scaling-stroke" d="M0,1 L50,0.5 L100,0.25"/>',
                      stroke="#1f77b4", stroke_width="1.5"))
    assert root.get("width") == "440" and root.get("viewBox") == "0 0 220 220"
    assert root.get("baseProfile") is None and root.get("version") == "1.1"
    (path,) = root.iter(f"{SVG}path")
    assert path.get("d") == "M10,110 L110,160 L210,185"
    assert "vector-effect" not in path.attrib
    holder = next(g for g in root.iter(f"{SVG}g") if path in list(g))
    assert holder.get("transform") is None and holder.get("stroke-width") == "1.5"


def test_a_view_cuts_its_lines_and_bars_at_its_edges() -> None:
    root = flat(group('<polyline vector-effect="non-scaling-stroke" points="0,3 50,1 100,1 150,1"/>'
                      '<rect vector-effect="non-scaling-stroke" x="-20" y="0" width="60" '
                      'height="0.5"/><rect vector-effect="non-scaling-stroke" x="120" y="0" '
                      'width="5" height="1"/>', stroke="#000000"))
    (path,) = root.iter(f"{SVG}path")
    # From (0, 3) above the top edge to (50, 1): enters the view at y = 2, i.e. epoch 25.
    assert path.get("d") == "M60,10 L110,110 L210,110"
    (bar,) = root.iter(f"{SVG}rect")  # the other bar lies right of the view
    assert [bar.get(k) for k in ("x", "y", "width", "height")] == ["10", "160", "80", "50"]


def test_other_transforms_are_not_cut_and_translations_keep_their_group() -> None:
    root = flat(group('<path vector-effect="non-scaling-stroke" d="M0,0 L500,0"/>',
                      (1.0, 0.0, 0.0, 1.0, 5.0, 5.0), stroke="#000000")
                + group('<path vector-effect="non-scaling-stroke" d="M0,0 L500,0"/>',
                        (3.0, 0.0, 0.0, 3.0, 0.0, 0.0), stroke="#000000"))
    translated, scaled = root.iter(f"{SVG}path")
    assert translated.get("d") == "M0,0 L500,0" and "vector-effect" not in translated.attrib
    assert scaled.get("d") == "M0,0 L1500,0"


def test_a_non_cosmetic_pen_keeps_its_transform() -> None:
    root = flat(group('<path vector-effect="none" d="M0,0 L1,1"/>', stroke="#000000"))
    holder = next(g for g in root.iter(f"{SVG}g") if g.find(f"{SVG}path") is not None)
    assert holder.get("transform", "").startswith("matrix(2")


def test_a_hatch_is_drawn_as_its_pixels_inside_the_bar() -> None:
    defs = ('<mask id="m" x="0" y="0" width="4" height="4" stroke="none" fill="#ffffff" '
            'patternUnits="userSpaceOnUse"><rect x="3" y="0" width="1" height="1"/>'
            '<rect x="0" y="3" width="1" height="1"/></mask>'
            '<pattern id="p" x="0" y="0" width="4" height="4" patternUnits="userSpaceOnUse">'
            '<rect x="0" y="0" width="4" height="4" stroke="none" fill="#2ca02c" '
            'mask="url(#m)"/></pattern>')
    root = flat(group('<rect vector-effect="non-scaling-stroke" x="0" y="1" width="4" '
                      'height="0.08"/>', fill="url(#p)", stroke="none"), defs)
    assert root.find(f".//{SVG}mask") is None
    squares = [r for r in root.find(f"{SVG}g").iter(f"{SVG}rect") if r.get("fill") == "#2ca02c"]
    # The bar spans x 10-18, y 102-110: of the 4 px tiles laid from the origin, 8 pixels.
    assert len(squares) == 8 and all(r.get("width") == r.get("height") == "1" for r in squares)
    assert all(10 <= float(r.get("x")) < 18 and 102 <= float(r.get("y")) < 110 for r in squares)


def test_fonts_are_named_by_the_installed_family_with_a_fallback_rule() -> None:
    root = flat(group('<text x="0" y="0" font-family="Sans Serif">loss</text>',
                      (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)))
    assert {e.get("font-family") for e in root.iter() if e.get("font-family")} == {"DejaVu Sans"}
    (style,) = root.iter(f"{SVG}style")
    assert style.text == "text { font-family: 'DejaVu Sans', sans-serif; }"
