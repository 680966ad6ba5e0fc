"""SVG that renders the same outside Qt: cosmetic strokes baked into device coordinates.

pyqtgraph draws its curves, grid and axes with cosmetic pens (a width in device pixels whatever the
transform). ``QSvgGenerator`` writes them as shapes inside a group whose ``transform`` maps data
coordinates to pixels (x scaled by thousands for a time axis in seconds) and marks each shape
``vector-effect="non-scaling-stroke"``. Qt's renderer honours that; librsvg, CairoSVG and ImageMagick
do not, and scale the stroke with the data transform: a 2 px line becomes a band hundreds of pixels
wide. This module rewrites such groups: every point of their shapes is mapped through the group's
matrix, the transform is dropped, and the marker removed, so the drawing is the same in every
renderer (Qt's included). Qt writes absolute path commands only (M, L, C, Z), with "x,y" pairs.

Clipping needs the same care: Qt (SVG 1.1) wraps a clipped group in ``<g clip-path="url(#c)">`` but,
for a child widget drawn through ``QWidget.render``, writes ``#c``'s rectangle in that widget's own
coordinates, without its offset in the picture. The SVG specification, and every other renderer,
reads it in the picture's coordinates, so the text and plots of child widgets vanish. A widget's
offset is the translation of the groups Qt writes while painting it; where the clipped content lies
outside its clip as written, the clip is replaced by a copy moved by the nearest earlier such
translation that puts the content inside it.
Pure text processing; no Qt.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
COSMETIC = "non-scaling-stroke"
SHAPES = {f"{{{SVG_NS}}}{name}" for name in ("path", "polyline", "polygon")}
_MATRIX = re.compile(r"^\s*matrix\(([^)]*)\)\s*$")
_PAIR = re.compile(r"(-?[\d.]+(?:e[-+]?\d+)?)\s*,\s*(-?[\d.]+(?:e[-+]?\d+)?)", re.IGNORECASE)

Matrix = tuple[float, float, float, float, float, float]


def portable_svg(text: str) -> str:
    """``text`` (an SVG from QSvgGenerator) with cosmetic strokes baked in; anything else unchanged."""
    ET.register_namespace("", SVG_NS)
    ET.register_namespace("xlink", XLINK_NS)
    root = ET.fromstring(text)
    clips = {c.get("id"): c for c in root.iter(f"{{{SVG_NS}}}clipPath")}
    parents = {child: parent for parent in root.iter() for child in parent}
    offsets: list[tuple[float, float]] = []  # the translations seen so far: widget origins
    for n, group in enumerate(list(root.iter(f"{{{SVG_NS}}}g"))):
        if "clip-path" in group.attrib:
            _move_clip(group, clips, parents, offsets, n)
        matrix = _matrix(group)
        if (
            matrix is not None
            and matrix[:4] == (1.0, 0.0, 0.0, 1.0)
            and (matrix[4], matrix[5]) not in offsets[-1:]
        ):
            offsets.append((matrix[4], matrix[5]))
    for group in root.iter(f"{{{SVG_NS}}}g"):
        _bake(group)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + body + "\n"


def _matrix(element: ET.Element) -> Matrix | None:
    match = _MATRIX.match(element.get("transform", ""))
    if match is None:
        return None
    values = [float(v) for v in match.group(1).split(",")]
    if len(values) != 6:
        return None
    return (values[0], values[1], values[2], values[3], values[4], values[5])


def _move_clip(
    group: ET.Element,
    clips: dict[str | None, ET.Element],
    parents: dict[ET.Element, ET.Element],
    offsets: list[tuple[float, float]],
    n: int,
) -> None:
    ref = group.get("clip-path", "")
    clip = clips.get(ref[5:-1]) if ref.startswith("url(#") and ref.endswith(")") else None
    inner = list(group)
    matrices = {_matrix(child) for child in inner}
    if clip is None or len(matrices) != 1 or not all(child.tag == f"{{{SVG_NS}}}g" for child in inner):
        return
    matrix = matrices.pop()
    box = _box(clip)
    points = [_apply(matrix, p) for child in inner for p in _anchors(child)] if matrix else []
    if box is None or not points or _holds(box, points):
        return
    for dx, dy in reversed(offsets):
        if _holds((box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy), points):
            break
    else:
        return
    copy = ET.Element(clip.tag, dict(clip.attrib))
    copy.set("id", f"{clip.get('id')}-at{n}")
    shift: Matrix = (1.0, 0.0, 0.0, 1.0, dx, dy)
    for shape in clip:
        moved = ET.SubElement(copy, shape.tag, dict(shape.attrib))
        attr = "d" if shape.tag.endswith("}path") else "points"
        if attr in moved.attrib:
            moved.set(attr, _PAIR.sub(lambda m: _map(shift, m), moved.get(attr, "")))
    parents[clip].append(copy)
    group.set("clip-path", f"url(#{copy.get('id')})")


def _holds(box: tuple[float, float, float, float], points: list[tuple[float, float]]) -> bool:
    """At least half of the content's anchor points inside ``box`` (a plot's curve may leave it)."""
    return 2 * sum(_inside(p, box) for p in points) >= len(points)


def _apply(matrix: Matrix, point: tuple[float, float]) -> tuple[float, float]:
    a, b, c, d, e, f = matrix
    x, y = point
    return a * x + c * y + e, b * x + d * y + f


def _pairs(text: str) -> list[tuple[float, float]]:
    return [(float(m.group(1)), float(m.group(2))) for m in _PAIR.finditer(text)]


def _box(clip: ET.Element, matrix: Matrix | None = None) -> tuple[float, float, float, float] | None:
    points = [p for shape in clip for p in _pairs(shape.get("d", "") + " " + shape.get("points", ""))]
    if matrix is not None:
        points = [_apply(matrix, p) for p in points]
    if not points:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def _inside(point: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    x, y = point
    return box[0] - 1 <= x <= box[2] + 1 and box[1] - 1 <= y <= box[3] + 1


def _anchors(group: ET.Element) -> list[tuple[float, float]]:
    """Points where the group's content is drawn, in its own coordinates (a few are enough)."""
    out: list[tuple[float, float]] = []
    for shape in group:
        if "x" in shape.attrib and "y" in shape.attrib:
            x, y = float(shape.get("x", 0)), float(shape.get("y", 0))
            if shape.tag.endswith("}text"):
                y -= 0.3 * float(shape.get("font-size", 0) or 0)  # a text's y is its baseline
            else:
                x += float(shape.get("width", 0) or 0) / 2
                y += float(shape.get("height", 0) or 0) / 2
            out.append((x, y))
        else:
            out.extend(_pairs(shape.get("d", "") + " " + shape.get("points", ""))[:2])
    return out[:8]


def _bake(group: ET.Element) -> None:
    shapes = list(group)
    if not shapes or not all(s.tag in SHAPES and s.get("vector-effect") == COSMETIC for s in shapes):
        return
    matrix = _matrix(group)
    if matrix is None:
        return
    for shape in shapes:
        attr = "d" if shape.tag.endswith("}path") else "points"
        shape.set(attr, _PAIR.sub(lambda m: _map(matrix, m), shape.get(attr, "")))
        del shape.attrib["vector-effect"]
    del group.attrib["transform"]


def _map(matrix: Matrix, pair: re.Match[str]) -> str:
    a, b, c, d, e, f = matrix
    x, y = float(pair.group(1)), float(pair.group(2))
    return f"{a * x + c * y + e:.3f},{b * x + d * y + f:.3f}"
