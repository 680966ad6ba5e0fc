"""The window's help texts: the keyboard shortcut sheet and Help → About."""

from __future__ import annotations

import platform
from collections.abc import Sequence
from html import escape

import PySide6
from PySide6.QtCore import qVersion

import model

EXTRA_KEYS = (  # keys that are no menu item, and what the mouse does on the CPU lanes
    ("Keyboard", "Escape", "in a text field: leave it, keeping its value"),
    ("Keyboard", "Tab", "move between the settings"),
    ("Mouse", "Wheel", "zoom the CPU lanes"),
    ("Mouse", "Drag", "lanes: back in time"),
    ("Mouse", "Double-click", "lanes: back to now"),
    ("Mouse", "Shift+drag", "lanes: measure an interval"),
    ("Mouse", "Shift+click", "lanes: clear the interval"),
    ("Mouse", "Click a task", "follow it (click again: stop)"),
)


def shortcut_sheet_html(rows: Sequence[tuple[str, str, str]], columns: int = 1) -> str:
    """The `?` sheet: every shortcut of the window, ``(menu, key, what it does)``, grouped by menu, the
    menus in ``columns`` columns side by side (whole menus, about as many lines in each)."""
    sections: list[tuple[str, list[tuple[str, str]]]] = []
    for menu, key, words in [*rows, *EXTRA_KEYS]:
        if not sections or sections[-1][0] != menu:
            sections.append((menu, []))
        sections[-1][1].append((key, words))
    lines = sum(len(keys) + 1 for _menu, keys in sections)
    cells: list[list[str]] = [[]]
    filled = 0
    for menu, keys in sections:
        if filled >= lines * len(cells) / columns and len(cells) < columns:
            cells.append([])
        filled += len(keys) + 1
        cells[-1].append(f"<tr><td colspan='2'><br><b>{escape(menu)}</b></td></tr>")
        cells[-1] += [
            f"<tr><td><b>{escape(k)}</b>&nbsp;&nbsp;</td><td>{escape(w)}</td></tr>" for k, w in keys
        ]
    tables = [f"<td valign='top'><table cellpadding='1'>{''.join(c)}</table></td>" for c in cells]
    return f"<h3>Shortcuts</h3><table><tr>{'<td>&nbsp;&nbsp;&nbsp;</td>'.join(tables)}</tr></table>"


def about_html() -> str:
    """Help → About: what schedlab is, its version, and how its model runs here (compiled or not)."""
    import importlib.metadata  # here, not at import: the window maps before these load

    import pyqtgraph as pg

    try:
        version = importlib.metadata.version("schedlab")
    except importlib.metadata.PackageNotFoundError:
        version = "(not installed)"
    build = (
        "compiled with mypyc"
        if model.NATIVE
        else "from its Python sources (not compiled: <code>./run.sh</code> compiles it, see the README)"
    )
    return (
        f"<h3>schedlab {version}</h3>"
        "<p>Linux CPU and packet scheduling, made visible: O(1), CFS, BFS and EEVDF, "
        "<code>sched_yield()</code>, and the prio qdisc's dequeuer role, retold through the 2007, 2009 "
        "and 2011 kernel stories.</p>"
        f"<p>Simulation model: {build}.<br>"
        f"Python {platform.python_version()}, Qt {qVersion()}, PySide6 {PySide6.__version__}, "
        f"pyqtgraph {pg.__version__}.</p>"
    )
