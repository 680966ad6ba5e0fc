"""Figures without Qt: a small SVG writer for line plots with a shared x axis, and PNG through CairoSVG.

``compare --out`` draws each side's series over simulated time; ``sweep --plot`` draws a metric
against a swept setting, one line per combination of the other settings, with the seeds' spread
(min and max as a band and whiskers, the median as the line). Lines are told apart by colour
(Okabe–Ito, safe for colour-blind readers), by dash pattern and marker shape, and by a label, so a
figure printed in grey still reads. The SVG uses only what every renderer draws alike (paths, lines,
rects, plain text with an explicit font list; no CSS, no filters). PNG is the same SVG rendered by
CairoSVG, an optional extra (``pip install 'schedlab[png]'``).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

from model.cli.outputs import open_atomic, option_what
from model.keyspec import shown
from model.scenario import ScenarioError

# Okabe & Ito (2008), "Color Universal Design": blue, vermillion, bluish green, reddish purple, ...
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
DASHES = ("", "9 4", "2 3", "9 3 2 3", "5 5", "1 2", "12 3 3 3", "4 2")
MARKERS = ("circle", "square", "triangle", "diamond", "circle", "square", "triangle", "diamond")
FONT = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
FIGURE_FORMATS = (".svg", ".png")
MAX_MARKERS = 12  # per line: enough to tell the shapes apart, few enough to keep the line readable


@dataclass(frozen=True)
class Line:
    label: str
    xs: Sequence[float]
    ys: Sequence[float]
    style: int  # index into the colour, dash and marker lists
    lo: Sequence[float] | None = None  # the spread drawn around the line (sweep seeds: min and max)
    hi: Sequence[float] | None = None


@dataclass(frozen=True)
class Panel:
    y_label: str
    lines: tuple[Line, ...]
    y_min: float | None = None  # fixed ends of the y axis (a share from 0, Jain up to 1)
    y_max: float | None = None


@dataclass(frozen=True)
class Figure:
    title: str
    caption: str  # scenario, settings, seed and simulated time: what the picture is of
    x_label: str
    panels: tuple[Panel, ...]
    x_ticks: tuple[tuple[float, str], ...] = ()  # named ticks (a categorical x); else numbers
    width: int = 960
    panel_height: int = 260
    notes: tuple[str, ...] = field(default=())


def check_figure_path(path: Path, option: str) -> None:
    """Refuse, before any run, a figure format this writer cannot make."""
    what = option_what(option, str(path))
    if path.suffix.lower() not in FIGURE_FORMATS:
        raise ScenarioError(f"{what}: unknown format {shown(path.suffix)}; allowed: .svg, .png")
    if path.suffix.lower() == ".png":
        try:
            import cairosvg  # noqa: F401
        except (ImportError, OSError):
            raise ScenarioError(
                f"{what}: PNG needs CairoSVG (pip install 'schedlab[png]'); or write .svg"
            ) from None


def write_figure(fig: Figure, path: Path, what: str) -> None:
    """``fig`` as SVG or PNG at ``path``, whole or not at all (``what`` starts an error's line)."""
    svg = to_svg(fig)
    with open_atomic(path, what) as fh:
        if path.suffix.lower() == ".png":
            import cairosvg

            cairosvg.svg2png(bytestring=svg.encode("utf-8"), write_to=fh, scale=2.0)
        else:
            fh.write(svg.encode("utf-8"))


def nice_ticks(lo: float, hi: float, want: int = 5) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten) covering ``lo..hi``."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0]
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(want, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step) * step
    ticks = []
    t = first
    while t <= hi + step * 1e-9:
        ticks.append(round(t, 12))
        t += step
    return ticks


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def _marker(kind: str, x: float, y: float, colour: str) -> str:
    r = 3.6
    if kind == "circle":
        return (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="white" stroke="{colour}" stroke-width="1.6"/>'
        )
    if kind == "square":
        return (
            f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r}" height="{2 * r}" fill="{colour}" '
            f'stroke="{colour}" stroke-width="1"/>'
        )
    pts = (
        [(x, y - r * 1.2), (x + r * 1.1, y + r * 0.8), (x - r * 1.1, y + r * 0.8)]
        if kind == "triangle"
        else [(x, y - r * 1.3), (x + r, y), (x, y + r * 1.3), (x - r, y)]
    )
    d = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
    return f'<polygon points="{d}" fill="{colour}" stroke="{colour}" stroke-width="1"/>'


def _text(x: float, y: float, s: str, size: int = 12, anchor: str = "start", weight: str = "normal") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-family="{FONT}" font-size="{size}" font-weight="{weight}" '
        f'text-anchor="{anchor}" fill="#222222">{escape(s)}</text>'
    )


# The widest a character of the font list is on average, as a share of the font size (DejaVu Sans, the
# widest of them): the writer has no font metrics, so lines are wrapped by this estimate, on the safe side.
CHAR_EM = 0.62


def _lines(text: str, size: int, width: float) -> list[str]:
    """``text`` in lines that fit ``width`` pixels at ``size`` (a caption naming three or four sides'
    settings ran off the figure's right edge)."""
    return textwrap.wrap(text, max(20, int(width / (CHAR_EM * size))), break_on_hyphens=False) or [""]


def _x_range(fig: Figure) -> tuple[float, float]:
    if fig.x_ticks:
        xs = [t for t, _ in fig.x_ticks]
        return min(xs) - 0.3, max(xs) + 0.3
    xs = [x for p in fig.panels for ln in p.lines for x in ln.xs]
    return (min(0.0, *xs), max(xs)) if xs else (0.0, 1.0)  # numbers (simulated time) from 0


def _y_range(panel: Panel) -> tuple[float, float]:
    ys = [
        y for ln in panel.lines for seq in (ln.ys, ln.lo or (), ln.hi or ()) for y in seq if math.isfinite(y)
    ]
    lo = panel.y_min if panel.y_min is not None else (min(ys) if ys else 0.0)
    hi = panel.y_max if panel.y_max is not None else (max(ys) if ys else 1.0)
    if hi <= lo:
        hi = lo + (abs(lo) * 0.1 or 1.0)
    pad = (hi - lo) * 0.06
    return (lo if panel.y_min is not None else lo - pad), (hi if panel.y_max is not None else hi + pad)


def _line_svg(ln: Line, fx: Callable[[float], float], fy: Callable[[float], float]) -> list[str]:
    colour = OKABE_ITO[ln.style % len(OKABE_ITO)]
    dash = DASHES[ln.style % len(DASHES)]
    out: list[str] = []
    pts = [(fx(x), fy(y)) for x, y in zip(ln.xs, ln.ys, strict=True) if math.isfinite(y)]
    if ln.lo is not None and ln.hi is not None and len(ln.xs) > 0:
        upper = [(fx(x), fy(h)) for x, h in zip(ln.xs, ln.hi, strict=True)]
        lower = [(fx(x), fy(lo)) for x, lo in zip(ln.xs, ln.lo, strict=True)]
        poly = " ".join(f"{px:.1f},{py:.1f}" for px, py in upper + lower[::-1])
        out.append(f'<polygon points="{poly}" fill="{colour}" fill-opacity="0.15" stroke="none"/>')
        for (px, pu), (_, pl) in zip(upper, lower, strict=True):
            out.append(
                f'<line x1="{px:.1f}" y1="{pu:.1f}" x2="{px:.1f}" y2="{pl:.1f}" stroke="{colour}" '
                f'stroke-width="1.2"/>'
            )
    if pts:
        d = "M" + " L".join(f"{px:.1f},{py:.1f}" for px, py in pts)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="2"{dash_attr} '
            f'stroke-linejoin="round" stroke-linecap="butt"/>'
        )
        every = max(1, math.ceil(len(pts) / MAX_MARKERS))
        offset = ln.style % every  # where markers are sparse, the sides' do not sit on one another
        for px, py in pts[offset::every]:
            out.append(_marker(MARKERS[ln.style % len(MARKERS)], px, py, colour))
    return out


def to_svg(fig: Figure) -> str:
    """The figure as one SVG document."""
    left, right = 78, 24
    text_w = fig.width - left - 8
    title = _lines(fig.title, 16, text_w)
    words = [line for text in (fig.caption, *fig.notes) for line in _lines(text, 11, text_w)]
    title_h = 20 * (len(title) - 1)
    top = 48 + title_h + 16 * len(words)
    legend_h = 26
    gap = 30
    height = top + len(fig.panels) * (fig.panel_height + gap) + 44
    plot_w = fig.width - left - right
    x0, x1 = _x_range(fig)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{fig.width}" height="{height}" '
        f'viewBox="0 0 {fig.width} {height}">',
        f'<rect x="0" y="0" width="{fig.width}" height="{height}" fill="white"/>',
    ]
    parts += [_text(left, 24 + 20 * i, line, 16, weight="bold") for i, line in enumerate(title)]
    parts += [_text(left, 44 + title_h + 16 * i, line, 11) for i, line in enumerate(words)]

    def sx(x: float) -> float:
        return left + (x - x0) / (x1 - x0 or 1.0) * plot_w

    y_top = top
    for n, panel in enumerate(fig.panels):
        ph = fig.panel_height - legend_h
        y_lo, y_hi = _y_range(panel)
        base = y_top + legend_h

        def sy(y: float, base: float = base, ph: float = ph, y_lo: float = y_lo, y_hi: float = y_hi) -> float:
            return base + ph - (y - y_lo) / (y_hi - y_lo) * ph

        parts.append(
            f'<rect x="{left}" y="{base}" width="{plot_w}" height="{ph}" fill="none" stroke="#999999" '
            f'stroke-width="1"/>'
        )
        for t in nice_ticks(y_lo, y_hi):
            if y_lo <= t <= y_hi:
                parts.append(
                    f'<line x1="{left}" y1="{sy(t):.1f}" x2="{left + plot_w}" y2="{sy(t):.1f}" '
                    f'stroke="#e4e4e4" stroke-width="1"/>'
                )
                parts.append(_text(left - 6, sy(t) + 4, _fmt(t), 11, "end"))
        parts.append(
            f'<text x="16" y="{base + ph / 2:.1f}" font-family="{FONT}" font-size="12" text-anchor="middle" '
            f'fill="#222222" transform="rotate(-90 16 {base + ph / 2:.1f})">{escape(panel.y_label)}</text>'
        )
        ticks = list(fig.x_ticks) or [(t, _fmt(t)) for t in nice_ticks(x0, x1, 8) if x0 <= t <= x1]
        for t, label in ticks:
            parts.append(
                f'<line x1="{sx(t):.1f}" y1="{base + ph}" x2="{sx(t):.1f}" y2="{base + ph + 5}" '
                f'stroke="#666666" stroke-width="1"/>'
            )
            if n == len(fig.panels) - 1:
                parts.append(_text(sx(t), base + ph + 18, label, 11, "middle"))
        for ln in panel.lines:
            parts += _line_svg(ln, sx, sy)
        lx = left
        for ln in panel.lines:  # the legend: a sample of each line's stroke and marker, then its label
            colour = OKABE_ITO[ln.style % len(OKABE_ITO)]
            dash = DASHES[ln.style % len(DASHES)]
            dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
            ly = y_top + 12
            parts.append(
                f'<line x1="{lx}" y1="{ly}" x2="{lx + 30}" y2="{ly}" stroke="{colour}" '
                f'stroke-width="2"{dash_attr}/>'
            )
            parts.append(_marker(MARKERS[ln.style % len(MARKERS)], lx + 15, ly, colour))
            parts.append(_text(lx + 36, ly + 4, ln.label, 12))
            lx += 46 + int(6.6 * len(ln.label))
        y_top += fig.panel_height + gap
    parts.append(_text(left + plot_w / 2, y_top + 4, fig.x_label, 12, "middle"))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
