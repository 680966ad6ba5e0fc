"""The window's help texts: the keyboard shortcut sheet and Help → About."""

from __future__ import annotations

import importlib.metadata
import platform

import pyqtgraph as pg
import PySide6
from PySide6.QtCore import qVersion

import model

SHORTCUTS = (
    ("Space", "play / pause"),
    ("→ (Right)", "step one event (pauses)"),
    ("R", "Reset All: this run again from t = 0, same seed"),
    ("Ctrl+O", "open a scenario file"),
    ("Ctrl+Shift+S", "export a screenshot (PNG or SVG)"),
    ("F11", "full screen"),
    ("?", "this sheet"),
    ("Ctrl+Q", "quit"),
)


def shortcut_sheet_html() -> str:
    rows = "".join(f"<tr><td><b>{k}</b>&nbsp;&nbsp;</td><td>{v}</td></tr>" for k, v in SHORTCUTS)
    return f"<h3>Keyboard shortcuts</h3><table cellpadding='4'>{rows}</table>"


def about_html() -> str:
    """Help → About: what schedlab is, its version, and how its model runs here (compiled or not)."""
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
