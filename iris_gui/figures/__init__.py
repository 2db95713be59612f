"""Static figures: the one PNG/SVG export routine and what it needs; no interactive panel."""
