"""How the window arranges its parts for the space it has: pure arithmetic on sizes, testable without Qt.

Wide screens (``WIDE_MIN_W`` and more) get three columns: the settings, the stage, the lesson. Narrower
ones put the lesson, the story and the settings on tabs in one side column, so that the stage keeps
room. The stage stacks the CPU lanes, the middle panel (run queues or qdisc) and the graphs when it is
tall enough for each at a readable height; otherwise the lanes stay on top and the middle panel and
the graphs share the rest side by side. The lanes always get the height that shows every CPU; where
that would leave the middle panel and the graphs less than their least height (large text, many
CPUs, a small screen), the lanes leave their legend out first, then let neighbouring idle CPUs share
one lane, then the headline leaves out its caption's line under its tiles, then its tiles go compact.
"""

from __future__ import annotations

from dataclasses import dataclass

WIDE_MIN_W = 1700
SIDE_W = (300, 380)  # settings column, lesson column (wide); the one side column (compact) is SIDE_W[0]
STACK_MIN_H = 860  # a stage this tall stacks lanes, middle and graphs
MIDDLE_SHARE = 0.52  # side by side: the middle panel's share of the width
LANES_MAX = (280, 220)  # the lanes' usual ceiling: without and with a qdisc below them
LOWER_MIN = 262  # the middle panel and the graphs keep this much height, where the lanes allow it


@dataclass(frozen=True, slots=True)
class Plan:
    wide: bool  # three columns (else the lesson and the settings share one tabbed column)
    columns: tuple[int, ...]  # widths, left to right
    stacked: bool  # lanes / middle / graphs one above the other (else middle | graphs)
    lanes_h: int
    lower: tuple[int, int]  # sizes of the middle panel and the graphs along the lower split
    lanes_legend: bool = True  # the lanes show their legend (else its rows go to the panels below)
    lanes_merged: bool = False  # neighbouring idle CPUs share one lane (their rows go to the panels below)
    caption: bool = True  # the headline's caption is shown (else its line under the tiles goes below)
    compact: bool = False  # the headline's tiles and the lanes are compact (what they save goes below)


def plan_layout(
    width: int,
    height: int,
    lanes_needed: int,
    lanes_hint: int,
    qdisc: bool,
    scale: float = 1.0,
    settings_min_w: int = 0,
    lanes_legend_h: int = 0,
    lanes_merged: tuple[int, int] = (0, 0),
    caption_h: int = 0,
    compact_h: int = 0,
    lanes_compact: int = 0,
) -> Plan:
    """The arrangement for a body of ``width`` × ``height`` px (below the time controls): the lanes need
    ``lanes_needed`` px to show every CPU (``lanes_legend_h`` of it their legend) and would like
    ``lanes_hint``; ``scale`` is the theme's text scale (larger text needs wider side columns); the
    settings need ``settings_min_w``; ``lanes_merged`` is what the lanes need and would like with the
    legend out and the idle CPUs sharing lanes ((0, 0): nothing to merge); ``caption_h`` is the line the
    headline's caption takes under its tiles (0: it sits beside them); ``compact_h`` what compact tiles
    with their caption left out would save (0: nothing); ``lanes_compact`` what compact lanes need with
    the legend out and the idle CPUs sharing lanes (0: no compact form)."""
    wide = width >= WIDE_MIN_W * min(scale, 1.3)
    side = [round(w * min(scale, 1.3)) for w in SIDE_W]
    side[0] = max(side[0], settings_min_w)
    columns = (side[0], width - side[0] - side[1], side[1]) if wide else (side[0], width - side[0])
    stacked = height >= STACK_MIN_H * min(scale, 1.3)
    lower_min = LOWER_MIN * min(scale, 1.3)
    legend = lanes_needed + lower_min <= height or lanes_legend_h <= 0
    if not legend:
        lanes_needed -= lanes_legend_h
        lanes_hint -= lanes_legend_h
    merged = not legend and lanes_needed + lower_min > height and 0 < lanes_merged[0] < lanes_needed
    if merged:
        lanes_needed, lanes_hint = lanes_merged
    caption = legend or lanes_needed + lower_min <= height or caption_h <= 0
    saved = 0 if caption else caption_h
    lanes_save = 0 < lanes_compact < lanes_needed
    compact = not legend and lanes_needed + lower_min > height + saved and (compact_h > saved or lanes_save)
    if compact:  # compact tiles leave their caption out too
        caption, saved = False, max(compact_h, saved)
        lanes_needed = lanes_compact if lanes_save else lanes_needed
    height += saved
    cap = LANES_MAX[qdisc] if stacked else round(height * 0.3)
    cap = min(cap, round(height - lower_min))
    lanes = max(min(lanes_hint, cap), lanes_needed)
    rest = max(height - lanes, 0)
    if stacked:
        middle = round(rest * (0.46 if qdisc else 0.45))
        return Plan(wide, columns, True, lanes, (middle, rest - middle), legend, merged, caption, compact)
    stage_w = columns[1]
    middle = round(stage_w * MIDDLE_SHARE)
    return Plan(wide, columns, False, lanes, (middle, stage_w - middle), legend, merged, caption, compact)
