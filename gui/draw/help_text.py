"""The window's help texts: the keyboard shortcut sheet and Help → About."""

from __future__ import annotations

import platform
from collections.abc import Sequence
from html import escape

import PySide6
from PySide6.QtCore import qVersion

import model

EXTRA_KEYS = (  # keys that are no menu item
    ("Keyboard", "Escape", "leave a text field (its value is kept); every shortcut works in one anyway"),
    ("Keyboard", "Tab", "move between the settings"),
)


def shortcut_sheet_html(rows: Sequence[tuple[str, str, str]]) -> str:
    """The `?` sheet: every shortcut of the window, ``(menu, key, what it does)``, grouped by menu."""
    out = ["<h3>Keyboard shortcuts</h3><table cellpadding='3'>"]
    section = None
    for menu, key, words in [*rows, *EXTRA_KEYS]:
        if menu != section:
            section = menu
            out.append(f"<tr><td colspan='2'><br><b>{escape(menu)}</b></td></tr>")
        out.append(f"<tr><td><b>{escape(key)}</b>&nbsp;&nbsp;</td><td>{escape(words)}</td></tr>")
    out.append("</table>")
    return "".join(out)


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
