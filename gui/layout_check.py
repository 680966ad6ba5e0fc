"""Layout checks of the whole window at a classroom screen size: ``python -m gui.layout_check`` renders every
story at each size and display mode offscreen, saves the screenshots and prints what is wrong.

What counts as wrong, for every text on screen (painted by the panels, drawn by the graphs, or shown by
Qt widgets): two texts whose rectangles intersect, a text that was cut to fit (a painted one clipped
by its box, a widget too narrow for its words), a text outside its own panel, a painted text in the
colour it is painted on (white on white: drawn, yet nobody sees it), a list whose bottom row is half
shown (it reads as an item missing its end); every CPU lane must be
visible at its smallest height at least; every graph shown must have a data area at least
``MIN_PLOT_H`` px high; the window must not be larger than the screen it was fitted to, nor its stage
taller than the window gives it (it would scroll; texts scrolled out of view are not counted). Texts a
panel shortens on purpose with "…" (task names in narrow Gantt segments, the last step's words) carry
their full text in a tooltip and are not errors. The tests (tests/test_gui_layout.py) run the same
checks.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QApplication,
    QCheckBox,
    QGroupBox,
    QLabel,
    QListView,
    QRadioButton,
    QTabBar,
    QWidget,
)

from gui.window_frame import STAGE_SCROLL

SIZES = ((1280, 720), (1366, 768), (1920, 1080))
SLACK_PX = 1.5  # rectangles may touch


@dataclass(frozen=True, slots=True)
class Text:
    where: str  # the panel (or widget class) it belongs to
    text: str
    rect: QRectF  # window coordinates
    cut: bool = False
    unseen: bool = False  # painted in the colour it is painted on (white on white)


def _window_rect(widget: QWidget, rect: QRectF, window: QWidget) -> QRectF:
    offset = widget.mapTo(window, QPoint(0, 0))
    return rect.translated(offset.x(), offset.y())


def painted_texts(window: QWidget) -> list[Text]:
    """Every text the panels painted in one full repaint of ``window`` (through ``text_log``)."""
    from gui.draw import text_log

    image = QImage(window.size(), QImage.Format.Format_ARGB32)
    with text_log.recording() as drawn:
        window.render(image)
    pixels = _pixels(image)
    out = []
    for d in drawn:
        widget = d.device
        if not isinstance(widget, QWidget) or not widget.isVisible() or not d.text.strip():
            continue
        shown = _window_rect(widget, d.visible, window).intersected(_clip(widget, window))
        if not shown.isEmpty():
            unseen = _on_its_own_colour(pixels, shown, d.ink)
            out.append(Text(type(widget).__name__, d.text, shown, d.cut, unseen))
    return out


def _pixels(image: QImage) -> np.ndarray:
    """The image's pixels as a (height, width) array of 32-bit ARGB values (a copy)."""
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    ptr = image.constBits()
    rows = np.frombuffer(ptr, dtype=np.uint32, count=image.bytesPerLine() * image.height() // 4)
    return rows.reshape(image.height(), image.bytesPerLine() // 4)[:, : image.width()].copy()


def _on_its_own_colour(pixels: np.ndarray, rect: QRectF, ink: str) -> bool:
    """Whether a text painted in ``ink`` over ``rect`` is on a ground of that colour: the colour most of
    the rectangle shows (its glyphs cover the lesser part) is the ink's. White text on a coloured chip
    is seen; on the panel's white it is not."""
    h, w = pixels.shape
    x0, y0 = max(int(rect.left()), 0), max(int(rect.top()), 0)
    x1, y1 = min(int(rect.right()) + 1, w), min(int(rect.bottom()) + 1, h)
    patch = pixels[y0:y1, x0:x1] & 0xFFFFFF  # the colour without its alpha
    if not ink or patch.size == 0:
        return False
    colours, counts = np.unique(patch, return_counts=True)
    return int(colours[counts.argmax()]) == int(ink.lstrip("#"), 16)


def _clip(widget: QWidget, window: QWidget) -> QRectF:
    """Where ``widget`` shows in the window: its rectangle inside every scroll area's viewport around
    it (the stage scrolls when the window is too short for it)."""
    rect = QRectF(widget.mapTo(window, QPoint(0, 0)), widget.size().toSizeF())
    node = widget.parentWidget()
    while node is not None:
        if isinstance(node, QAbstractScrollArea) and not node.inherits("QGraphicsView"):
            viewport = node.viewport()
            rect = rect.intersected(QRectF(viewport.mapTo(window, QPoint(0, 0)), viewport.size().toSizeF()))
        node = node.parentWidget()
    return rect


def graph_texts(window: QWidget) -> list[Text]:
    """Titles, axis ticks and names, legend entries and labels of every graph shown."""
    import pyqtgraph as pg

    out: list[Text] = []
    for view in window.findChildren(pg.GraphicsView):
        if not view.isVisible():
            continue
        scene = view.scene()
        image = QImage(8, 8, QImage.Format.Format_ARGB32)
        p = QPainter(image)

        def add(
            item: object, text: str, rect: QRectF, where: str = "graph", view: pg.GraphicsView = view
        ) -> None:
            top_left = view.mapFromScene(rect.topLeft())
            r = QRectF(top_left.x(), top_left.y(), rect.width(), rect.height())
            shown = _window_rect(view, r, window).intersected(_clip(view, window))
            if not shown.isEmpty():
                out.append(Text(where, text, shown))

        for item in scene.items():
            if not item.isVisible() or item.sceneBoundingRect().isEmpty():
                continue
            if isinstance(item, pg.AxisItem) and item.isVisible():
                p.setFont(item.style["tickFont"] or p.font())
                specs = item.generateDrawSpecs(p)
                if specs is not None:
                    for rect, _flags, text in specs[2]:
                        add(item, text, item.mapRectToScene(rect), "axis ticks")
                if item.label.isVisible() and item.label.toPlainText().strip():
                    add(item, item.label.toPlainText(), _inner(item.label), "axis name")
            elif isinstance(item, pg.TextItem | pg.LabelItem):
                text_item = item.textItem if isinstance(item, pg.TextItem) else item.item
                words = text_item.toPlainText()
                if words.strip() and _shown(item):
                    rect = _inner(text_item)
                    if isinstance(item, pg.LabelItem):  # a title or legend entry: clipped to its own box
                        box = item.sceneBoundingRect()
                        if rect.width() > box.width() + SLACK_PX:
                            out.append(Text("graph", words, QRectF(), cut=True))
                        rect = rect.intersected(box)
                    add(item, words, rect, type(item).__name__)
        p.end()
    return out


def _shown(item: object) -> bool:
    node = item
    while node is not None:
        if not node.isVisible():  # type: ignore[attr-defined]
            return False
        node = node.parentItem()  # type: ignore[attr-defined]
    return True


def _inner(text_item: Any) -> QRectF:
    """A text item's glyphs in scene coordinates, without the document's margin."""
    rect: QRectF = text_item.mapRectToScene(text_item.boundingRect())
    margin = float(text_item.document().documentMargin()) if hasattr(text_item, "document") else 0.0
    return rect.adjusted(margin, margin, -margin, -margin)


def widget_texts(window: QWidget) -> list[Text]:
    """Labels, buttons and tabs of the Qt widgets shown, cut when their words do not fit."""
    out: list[Text] = []
    for w in window.findChildren(QWidget):
        viewport = _scroll_viewport(w)
        if not w.isVisible():
            continue
        fm = w.fontMetrics()
        rect = QRectF(w.mapTo(window, QPoint(0, 0)), w.size().toSizeF())
        if viewport is not None:  # scrolled up and down is fine; cut at the right is not
            right = viewport.mapTo(window, QPoint(viewport.width(), 0)).x()
            if rect.right() > right + 1 and (isinstance(w, QLabel | QAbstractButton | QGroupBox)):
                out.append(Text(type(w).__name__, _words(w), QRectF(), cut=True))
            continue
        if _clip(w, window).isEmpty():  # scrolled out of the stage's view
            continue
        if (
            isinstance(w, QLabel)
            and w.text()
            and not w.wordWrap()
            and w.textFormat() != Qt.TextFormat.RichText
        ):
            need = fm.horizontalAdvance(w.text()) + 2 * w.margin()
            out.append(Text("QLabel", w.text(), rect, need > w.width() + 1 and not w.toolTip()))
        elif isinstance(w, QAbstractButton) and w.text():
            extra = 24 if isinstance(w, QRadioButton | QCheckBox) else 8
            need = fm.horizontalAdvance(w.text().replace("&", "")) + extra
            out.append(Text(type(w).__name__, w.text(), rect, need > w.width() + 1))
        elif isinstance(w, QTabBar):
            for i in range(w.count()):
                tab = QRectF(w.tabRect(i)).translated(rect.topLeft())
                out.append(Text("tab", w.tabText(i), tab, fm.horizontalAdvance(w.tabText(i)) > tab.width()))
        elif isinstance(w, QGroupBox) and w.title():
            out.append(Text("QGroupBox", w.title(), rect, fm.horizontalAdvance(w.title()) > w.width()))
    return out


def _scroll_viewport(w: QWidget) -> QWidget | None:
    """The viewport of the scroll area ``w`` is inside, if any (a graph's view and the stage's scroll
    area, which scrolls only when the window is too short for it, do not count)."""
    node = w.parentWidget()
    while node is not None:
        if (
            isinstance(node, QAbstractScrollArea)
            and not node.inherits("QGraphicsView")
            and node.objectName() != STAGE_SCROLL
        ):
            return node.viewport()
        node = node.parentWidget()
    return None


def _words(w: QWidget) -> str:
    if isinstance(w, QGroupBox):
        return w.title()
    return str(w.text())  # type: ignore[attr-defined]


def overlaps(texts: Iterable[Text]) -> list[tuple[Text, Text]]:
    """Pairs of texts whose rectangles intersect by more than ``SLACK_PX``."""
    items = [t for t in texts if t.rect.width() > 0 and t.rect.height() > 0]
    out = []
    for i, a in enumerate(items):
        shrunk = a.rect.adjusted(SLACK_PX, SLACK_PX, -SLACK_PX, -SLACK_PX)
        for b in items[i + 1 :]:
            if shrunk.intersects(b.rect) and not _nested(a, b):
                out.append((a, b))
    return out


def half_rows(window: QWidget) -> list[str]:
    """Lists (the lesson's steps) that show a row only in part where the view ends."""
    out = []
    for view in window.findChildren(QListView):
        if not view.isVisible() or view.model() is None:
            continue
        port = view.viewport().rect()
        for row in range(view.model().rowCount()):
            rect = view.visualRect(view.model().index(row, 0))
            if rect.intersects(port) and not port.contains(rect):
                out.append(
                    f"half a row shown: {type(view).__name__} row {row + 1} ({rect.height()} px, "
                    f"{port.bottom() - rect.top() + 1} px of it seen)"
                )
    return out


def _nested(a: Text, b: Text) -> bool:
    """A widget's own text and the same words drawn inside it (a button and its label) are one text."""
    return a.text == b.text and (a.rect.contains(b.rect) or b.rect.contains(a.rect))


def problems(window: QWidget, screen: tuple[int, int]) -> list[str]:
    """Everything wrong with the window as it is laid out now, one line each."""
    from gui.panels.graph_grid import MIN_PLOT_H

    out = []
    if window.width() > screen[0] or window.height() > screen[1]:
        out.append(
            f"window {window.width()}x{window.height()} is larger than the screen {screen[0]}x{screen[1]}"
        )
    texts = painted_texts(window) + graph_texts(window) + widget_texts(window)
    bounds = QRectF(window.rect())
    for t in texts:
        if t.cut:
            out.append(f"cut off: {t.where} {t.text!r}")
        if t.unseen:
            out.append(f"painted but not seen: {t.where} {t.text!r}")
        if not t.rect.isEmpty() and not bounds.contains(
            t.rect.adjusted(SLACK_PX, SLACK_PX, -SLACK_PX, -SLACK_PX)
        ):
            out.append(f"outside the window: {t.where} {t.text!r}")
    for a, b in overlaps(texts):
        out.append(f"overlap: {a.where} {a.text!r} and {b.where} {b.text!r}")
    out += half_rows(window)
    frame = getattr(window, "frame", None)
    if frame is not None and frame.stage_scroll.verticalScrollBar().maximum() > 0:
        view = frame.stage_scroll.viewport().height()
        out.append(f"the stage scrolls: it needs {frame.stage.height()} px, the window gives it {view}")
    lanes = getattr(window, "cpu_lanes", None)
    if lanes is not None:
        for i, rect in enumerate(lanes.lane_rects()):
            if not QRectF(lanes.rect()).contains(rect) or rect.height() < lanes.min_lane_px() - 0.5:
                out.append(f"CPU {i}'s lane is not fully visible ({rect.height():.0f} px)")
    graphs = getattr(window, "graphs", None)
    if graphs is not None and graphs.isVisible():
        for name in graphs.shown:
            h = graphs.plots[name].getViewBox().sceneBoundingRect().height()
            if h < MIN_PLOT_H - 0.5:
                out.append(f"graph {name!r} is {h:.0f} px high (at least {MIN_PLOT_H})")
    return out


def build(
    story: str,
    size: tuple[int, int] | None,
    mode: str,
    cpus: int | None,
    at_s: float,
    settings_dir: str,
    play_s: float = 0.0,
    overrides: dict[str, str] | None = None,
) -> Any:
    """A window on ``story`` (with ``cpus`` CPUs), resized to ``size`` (None: as it opens, fitted to its
    screen), run to ``at_s`` simulated seconds, then played at Normal speed for ``play_s`` seconds of
    wall time, frame by frame as the timer would (so that the graphs have moved as a class sees them).
    ``overrides`` are the story's settings changed, as ``schedlab run --set`` takes them."""
    from PySide6.QtCore import QSettings

    from gui.app import play_to
    from gui.main_window import MainWindow
    from gui.playback import SPEED_PRESETS
    from model.scenario import load_scenario

    scenario = load_scenario(story).with_overrides(overrides or {})
    settings = QSettings(str(Path(settings_dir) / f"{story}-{mode}.ini"), QSettings.Format.IniFormat)
    settings.setValue("view/mode", mode)
    window = MainWindow(scenario, settings=settings, use_timer=False)
    if cpus is not None and cpus != scenario.machine.cpus:
        window.controls.cpus_spin.setValue(cpus)
    if size is not None:
        window.resize(*size)
    window.show()
    play_to(window, round(at_s * 1e9))
    if play_s > 0:
        pb = window.playback
        pb.set_speed(SPEED_PRESETS["Normal"])
        pb.play()
        for i in range(round(play_s * 60)):
            pb.tick(1 / 60)
            if i % 30 == 0:
                QApplication.processEvents()
        pb.pause()
    QApplication.processEvents()
    return window


def screen_config(size: tuple[int, int], dpr: float, folder: str) -> str:
    """An offscreen platform with one screen of ``size`` device pixels at device pixel ratio ``dpr``
    (Qt's scale factor): its logical size is ``size / dpr``. Set before the application starts."""
    path = Path(folder) / "screen.json"
    path.write_text(
        '{"screens": [{"name": "classroom", "x": 0, "y": 0, '
        f'"width": {size[0]}, "height": {size[1]}, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}}]}}'
    )
    os.environ["QT_SCALE_FACTOR"] = f"{dpr:g}"
    return f"offscreen:configfile={path}"


def _size(text: str) -> tuple[int, int]:
    w, _, h = text.partition("x")
    return int(w), int(h)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gui.layout_check", description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="layout-shots", help="folder for the screenshots")
    parser.add_argument("--size", action="append", help="WxH (default: 1280x720, 1366x768, 1920x1080)")
    parser.add_argument("--mode", action="append", help="standard, projector, large (default: all)")
    parser.add_argument("--cpus", type=int, action="append", help="CPU counts to try (default: the story's)")
    parser.add_argument("--at", type=float, default=1.0, help="simulated seconds run before the shot")
    parser.add_argument("--play", type=float, default=0.0, help="then wall seconds played at Normal speed")
    parser.add_argument(
        "--screen",
        action="store_true",
        help="one --size: make it the screen (device pixels) and let the window fit itself to it",
    )
    parser.add_argument("--dpr", type=float, default=1.0, help="with --screen: device pixel ratio")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a setting changed (sched.policy=bfs)"
    )
    parser.add_argument("stories", nargs="*")
    args = parser.parse_args(argv)
    sizes = [_size(s) for s in args.size] if args.size else list(SIZES)
    if args.screen and len(sizes) != 1:
        parser.error("--screen takes exactly one --size")
    if any("=" not in item for item in args.set):
        parser.error("--set takes KEY=VALUE, e.g. --set sched.policy=bfs")
    sets = dict(item.split("=", 1) for item in args.set)
    from model.scenario import ScenarioError, builtin_names, load_scenario

    for story in args.stories or builtin_names():
        try:
            load_scenario(story).with_overrides(sets)  # a bad name or setting: one line, before any window
        except ScenarioError as exc:
            parser.error(str(exc))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        if args.screen:
            os.environ["QT_QPA_PLATFORM"] = screen_config(sizes[0], args.dpr, tmp)
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QApplication.instance() or QApplication(["layout_check"])
        for story in args.stories or builtin_names():
            for mode in args.mode or ["standard", "projector", "large"]:
                for cpus in args.cpus or [None]:
                    for size in sizes:
                        w: Any = build(
                            story, None if args.screen else size, mode, cpus, args.at, tmp, args.play, sets
                        )
                        screen = w.screen().availableGeometry()
                        logical = (screen.width(), screen.height()) if args.screen else size
                        tag = f"{story}-{size[0]}x{size[1]}-{mode}" + (f"-{cpus}cpu" if cpus else "")
                        tag += f"-dpr{args.dpr:g}" if args.screen and args.dpr != 1 else ""
                        w.grab().save(str(out / f"{tag}.png"))
                        found = problems(w, logical)
                        if args.screen and (w.width() < 0.85 * logical[0] or w.height() < 0.85 * logical[1]):
                            found.append(
                                f"window {w.width()}x{w.height()} does not fill the screen {logical}"
                            )
                        bad += bool(found)
                        print(f"{tag}: {'ok' if not found else f'{len(found)} problems'}")
                        for line in found:
                            print("   ", line)
                        w.playback.stop()
                        w.close()
                        w.deleteLater()
                        app.processEvents()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
