"""The whole window at classroom screen sizes, rendered offscreen and its geometry checked
(``gui.layout_check.problems``): no two texts' rectangles intersect, no text is cut or outside the
window or painted in the colour of its ground, every CPU lane is fully visible with its time axis,
every graph shown keeps a data area at least ``MIN_PLOT_H`` px high, the window is no larger than its
screen.

In this process the window is resized to each size; a screen of its own (the window fitting itself
to it, and 3840×2160 at device pixel ratio 2) needs a platform set up before Qt starts, so those run
``python -m gui.layout_check --screen`` in a child process.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import QApplication

from gui.draw import palette, text_log, theme
from gui.draw.axes import thin_ticks
from gui.draw.graph_items import make_plot, set_y_top
from gui.layout_check import build, problems
from gui.panels import headline
from gui.panels.headline import HeadlinePanel, Tile
from model.scenario import builtin_names

ROOT = Path(__file__).resolve().parents[1]
STORIES = builtin_names()
SIZES = ((1280, 720), (1366, 768), (1920, 1080))
AT_S = 0.3  # simulated seconds before the check: lanes, queues and graphs have content


@pytest.fixture
def shown(qapp, tmp_path: Path) -> Iterator[list[Any]]:
    windows: list[Any] = []
    yield windows
    for w in windows:
        w.playback.stop()
        w.close()
        w.deleteLater()
    QApplication.processEvents()
    theme.set_theme(
        theme.make_theme("standard", 1.0)
    )  # the look is process-wide: later tests get the usual one


def check(shown: list[Any], tmp: Path, story: str, size: tuple[int, int], mode: str, cpus: int | None) -> Any:
    w = build(story, size, mode, cpus, AT_S, str(tmp), play_s=0.5)
    shown.append(w)
    found = problems(w, size)
    assert not found, f"{story} {size} {mode} {cpus} CPUs:\n" + "\n".join(found)
    return w


@pytest.mark.parametrize("mode", ["standard", "projector"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("story", STORIES)
def test_every_story_fits_every_classroom_screen(shown, tmp_path, story, size, mode) -> None:
    w = check(shown, tmp_path, story, size, mode, None)
    lanes = w.cpu_lanes
    assert lanes.lane_count == w.playback.scenario.machine.cpus == len(lanes.lane_rects())
    assert w.graphs.shown, "at least one graph is shown"


@pytest.mark.parametrize("cpus", range(1, 9))
@pytest.mark.parametrize("story", ["qdisc-fairness-2011", "yield-playground"])
def test_every_cpu_gets_a_lane_at_one_to_eight_cpus(shown, tmp_path, story, cpus) -> None:
    w = check(shown, tmp_path, story, (1280, 720), "standard", cpus)
    assert w.playback.scenario.machine.cpus == cpus and w.cpu_lanes.lane_count == cpus
    assert len(w.playback.last_snapshot.cpus) == cpus


@pytest.mark.parametrize("cpus", [6, 8])
def test_the_2011_graphs_stay_inside_their_panel_on_a_full_hd_screen_at_many_cpus(
    shown, tmp_path, cpus
) -> None:
    # At 6-8 CPUs an arrangement tried and dropped while the window settles (four graphs, one with a
    # tall legend) once left the graphs' layout taller than its view: the plots ran off the window.
    w = check(shown, tmp_path, "qdisc-fairness-2011", (1920, 1080), "standard", cpus)
    for name in w.graphs.shown:
        rect = w.graphs.plot_rect(name)
        assert rect is not None and rect.bottom() <= w.graphs.height(), (name, rect, w.graphs.height())


@pytest.mark.parametrize(
    ("story", "mode"), [("cfs-yield-2007", "projector"), ("qdisc-fairness-2011", "standard")]
)
def test_three_cpus_on_a_full_hd_screen(shown, tmp_path, story, mode) -> None:
    # Short run-queue sections in projector text once cut the words at the left of the CFS axis, and
    # an elided bold task name on a lane's segment ran a pixel past it.
    w = check(shown, tmp_path, story, (1920, 1080), mode, 3)
    assert w.cpu_lanes.lane_count == 3


@pytest.mark.parametrize("story", ["cfs-yield-2007", "bfs-saturated-2009"])
@pytest.mark.parametrize("cpus", [2, 8])
def test_the_one_cpu_stories_on_more_cpus(shown, tmp_path, story, cpus) -> None:
    w = check(shown, tmp_path, story, (1366, 768), "projector", cpus)
    assert w.cpu_lanes.lane_count == cpus


def layout_check(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "QT_SCALE_FACTOR")}
    return subprocess.run(
        [sys.executable, "-m", "gui.layout_check", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize(
    ("size", "dpr"), [("3840x2160", "2"), ("1280x720", "1")], ids=["4k-dpr2", "720p-fitted"]
)
def test_the_window_fits_itself_to_its_screen(tmp_path: Path, size: str, dpr: str) -> None:
    """The window opens fitted to the screen it is on (no resize), and every story passes there."""
    done = layout_check(
        "--screen", "--size", size, "--dpr", dpr, "--mode", "standard", "--mode", "projector",
        "--at", str(AT_S), "--out", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.endswith(": ok")]
    assert len(lines) == 2 * len(STORIES), done.stdout
    shot = next(tmp_path.glob("*.png"))
    from PySide6.QtGui import QImage

    image = QImage(str(shot))
    w, h = (int(v) for v in size.split("x"))
    assert image.width() > 0.85 * w and image.height() > 0.85 * h  # device pixels: dpr × logical


@pytest.mark.parametrize("cpus", [7, 8])
@pytest.mark.parametrize("story", STORIES)
def test_a_projector_at_1280x720_fits_seven_and_eight_cpus(shown, tmp_path, story, cpus) -> None:
    # Projector text under eight lanes once left the graphs 108-142 px, the 2011 window 806 px tall
    # and the last run-queue rows below the panel.
    w = check(shown, tmp_path, story, (1280, 720), "projector", cpus)
    assert w.cpu_lanes.lane_count == cpus


def test_the_2007_graphs_keep_their_height_as_the_window_narrows(shown, tmp_path) -> None:
    # Four pixels narrower, a legend took another row after its graphs were placed, and nothing placed
    # them again: the third graph came out 141 px high.
    w = check(shown, tmp_path, "cfs-yield-2007", (1920, 1080), "standard", 4)
    w.resize(1916, 1080)
    QApplication.processEvents()
    assert not problems(w, (1920, 1080))


def test_the_headline_holds_eight_cpus_on_one_row_that_holds_still(shown) -> None:
    # The 2011 story's ten tiles once took two rows on a projector at 1280x720 (and a row as tall as
    # the largest numbers, whatever size they were drawn at).
    theme.set_theme(theme.make_theme("projector", 1.0))
    panel = HeadlinePanel()
    panel.resize(887, 100)

    def tiles(shares: list[int]) -> list[Tile]:
        per_cpu = [Tile(f"cpu{i}", f"{s}%", palette.cpu_color(i)) for i, s in enumerate(shares)]
        return [Tile("fairness (Jain)", "0.95"), *per_cpu, Tile("bandwidth", "8578 Mbit/s")]

    def rows() -> list[float]:
        image = QImage(panel.size(), QImage.Format.Format_ARGB32)
        with text_log.recording() as drawn:
            panel.render(image)
        labels = [d for d in drawn if d.text.startswith(("cpu", "fairness", "bandwidth"))]
        assert all(panel.rect().contains(d.visible.toRect()) for d in labels)
        return sorted({round(d.visible.top()) for d in labels})

    panel.tiles, panel.caption = tiles([15, 12, 7, 15, 15, 12, 12, 12]), "mean since the start"
    panel.resizeEvent(None)
    one_row = panel.height()
    assert len(rows()) == 1, "ten tiles on one row"
    panel.tiles = tiles([100, 0, 0, 0, 0, 0, 0, 0])
    panel.resizeEvent(None)
    assert panel.height() == one_row and len(rows()) == 1, "other numbers, the same row"
    panel.resize(500, 100)
    panel.resizeEvent(None)
    assert panel.height() > one_row and len(rows()) >= 2


def test_a_stage_too_tall_for_the_screen_scrolls_and_the_window_stays_on_it(shown, tmp_path) -> None:
    # Large text with eight CPUs needs more height than a short window has: the window once grew past
    # the screen (855 px on 1366x768), its graphs and status line below its edge. Now the stage scrolls.
    w = build("qdisc-fairness-2011", (1280, 640), "large", 8, AT_S, str(tmp_path), play_s=0.5)
    shown.append(w)
    assert w.height() <= 640
    bar = w.frame.stage_scroll.verticalScrollBar()
    assert bar.maximum() > 0 and w.frame.stage.height() > w.frame.stage_scroll.viewport().height()
    assert any(line.startswith("the stage scrolls") for line in problems(w, (1280, 640)))
    bar.setValue(bar.maximum())
    QApplication.processEvents()
    bottom = w.graphs.mapTo(w.frame.stage_scroll.viewport(), w.graphs.rect().bottomLeft()).y()
    assert bottom <= w.frame.stage_scroll.viewport().height(), "scrolled down, the graphs are in view"


def test_a_short_graph_labels_fewer_y_ticks_rather_than_overprint_them(qapp) -> None:
    # Large text on a 1280x720 screen once left the playground's threads graph 93 px high: its five
    # given ticks (0, 25, 50, 75, 100 %) overprinted each other. The axis now labels fewer of them.
    theme.set_theme(theme.make_theme("large", 1.0))
    try:
        view = pg.GraphicsLayoutWidget()
        plot, cell = make_plot("Threads", "% of one CPU")
        view.addItem(cell)
        set_y_top(plot, 100.0, [(float(v), str(v)) for v in range(0, 101, 25)])
        view.resize(320, 190)
        view.show()
        QApplication.processEvents()
        axis = plot.getAxis("left")
        assert axis.geometry().height() < 5 * QFontMetrics(axis.style["tickFont"]).height()
        image = QImage(8, 8, QImage.Format.Format_ARGB32)
        painter = QPainter(image)
        painter.setFont(axis.style["tickFont"])
        specs = axis.generateDrawSpecs(painter)
        painter.end()
        labelled = [(rect, text) for rect, _flags, text in specs[2]]
        assert 2 <= len(labelled) < 5, labelled
        for (a, ta), (b, tb) in itertools.combinations(labelled, 2):
            assert not a.intersects(b), (ta, tb)
        view.close()
    finally:
        theme.set_theme(theme.make_theme("standard", 1.0))


def test_a_text_in_the_colour_it_is_painted_on_is_a_problem(qapp) -> None:
    # The 2011 bands' names were once painted white on white (the pen the packets' gaps left): the
    # text log saw them, a class could not. The check compares a text's ink with its ground.
    from gui.layout_check import _on_its_own_colour, _pixels

    image = QImage(200, 40, QImage.Format.Format_ARGB32)
    image.fill(palette.BACKGROUND)
    p = QPainter(image)
    p.fillRect(100, 0, 100, 40, palette.cpu_color(0))  # a coloured chip on the right
    p.setFont(QFont("DejaVu Sans", 12))
    for x, ink in ((4, palette.BACKGROUND), (40, palette.TEXT), (104, palette.BACKGROUND)):
        p.setPen(ink)
        p.drawText(x, 26, "band")
    p.end()
    pixels = _pixels(image)
    white, dark = palette.BACKGROUND.name(), palette.TEXT.name()
    assert _on_its_own_colour(pixels, QRectF(2, 8, 36, 24), white)  # white on white
    assert not _on_its_own_colour(pixels, QRectF(38, 8, 40, 24), dark)  # dark on white
    assert not _on_its_own_colour(pixels, QRectF(102, 8, 40, 24), white)  # white on the chip


def test_thin_ticks_keeps_every_second_then_every_fourth_tick() -> None:
    ticks = [(float(v), str(v)) for v in range(0, 101, 25)]
    assert thin_ticks(ticks, px_per_unit=1.0, room_px=20.0) == ticks  # 25 px apart: all fit
    assert [label for _v, label in thin_ticks(ticks, 0.6, 20.0)] == ["0", "50", "100"]  # 15 px apart
    assert [label for _v, label in thin_ticks(ticks, 0.3, 20.0)] == ["0", "100"]
    assert [label for _v, label in thin_ticks(ticks, 0.01, 20.0)] == ["0", "100"]  # never fewer than two
    assert thin_ticks(ticks[:2], 0.01, 20.0) == ticks[:2]


def test_large_text_on_a_laptop_folds_the_lanes_legend_to_give_the_graphs_room(shown, tmp_path) -> None:
    # Large text at 1366x768 with five CPUs left the 2007 bandwidth graph 147 px high (150 wanted)
    # under two rows of lane legend. The legend now goes first; a roomy window keeps it.
    w = build("cfs-yield-2007", (1366, 768), "large", 5, AT_S, str(tmp_path), play_s=0.5)
    shown.append(w)
    lanes = w.cpu_lanes
    assert lanes.legend_folded and lanes.needed_height() < lanes.needed_height(legend=True)
    assert not problems(w, (1366, 768))
    roomy = build("cfs-yield-2007", (1920, 1080), "large", 5, AT_S, str(tmp_path), play_s=0.5)
    shown.append(roomy)
    assert not roomy.cpu_lanes.legend_folded


@pytest.mark.parametrize("story", ["cfs-yield-2007", "bfs-saturated-2009", "yield-playground"])
def test_large_text_on_a_projector_lets_the_idle_cpus_share_a_lane(shown, tmp_path, story) -> None:
    # Large text at 1280x720 with eight CPUs left the one-CPU stories' bandwidth graph 93 px high and
    # the playground's threads graph 109 px under eight lanes, six or five of them idle all along.
    w = check(shown, tmp_path, story, (1280, 720), "large", 8)
    lanes = w.cpu_lanes
    assert lanes.quiet_merged and len(lanes.lane_rects()) == 8
    assert len({r.getRect() for r in lanes.lane_rects()}) < 8
    # Beside "More ▾" the graph's title was cut to "Bandwi…"; the button then says only "▾".
    titles = [w.graphs.plots[name].property("schedlab_title") for name in w.graphs.shown]
    assert titles and not any(t.endswith("…") for t in titles), titles
    roomy = build(story, (1920, 1080), "large", 8, AT_S, str(tmp_path), play_s=0.5)
    shown.append(roomy)
    assert not roomy.cpu_lanes.quiet_merged  # a lane each where there is room


@pytest.mark.parametrize(("size", "cpus"), [((1366, 768), 8), ((1280, 720), 7)])
def test_large_text_on_a_small_screen_fits_the_2011_story_with_every_cpu_sending(shown, tmp_path, size, cpus):
    # Eight busy lanes, two rows of tiles with a caption under them and the qdisc's least height needed
    # 666 px of the 616 a 1366x768 screen gives the stage (638 of 568 at 1280x720 with seven CPUs). The
    # tiles now take one row (bandwidth as "Mbit/s" over its number), the caption's line goes to the
    # panels below (its words stay in the tooltip), the lanes start nearer the top without a legend, and
    # the fairness floor's label, with no room under its line, is left out rather than over the axis.
    w = check(shown, tmp_path, "qdisc-fairness-2011", size, "large", cpus)
    hl = w.headline
    assert hl.caption_folded and hl.height() < hl.full_height() and hl.caption in hl.toolTip()
    assert len(hl._rows(hl.lw()).rows) == 1
    image = QImage(hl.size(), QImage.Format.Format_ARGB32)
    with text_log.recording() as drawn:
        hl.render(image)
    texts = [d.text for d in drawn]
    assert "Mbit/s" in texts and not any(t.endswith(" Mbit/s") for t in texts)
    assert not w.graphs._fair_floor.label.isVisible()
    roomy = build("qdisc-fairness-2011", (1920, 1080), "standard", 4, AT_S, str(tmp_path), play_s=0.5)
    shown.append(roomy)
    assert not roomy.headline.caption_folded and roomy.graphs._fair_floor.label.isVisible()


def test_large_text_on_a_projector_fits_the_2011_story_with_eight_cpus_sending(shown, tmp_path) -> None:
    # Eight busy lanes, two rows of tiles and the qdisc's least height needed 658 px of the 568 a
    # 1280x720 screen gives the stage in large text, which scrolled. The tiles now go compact (each CPU
    # named by its number beside its swatch: one row) and the lanes a little closer together.
    w = check(shown, tmp_path, "qdisc-fairness-2011", (1280, 720), "large", 8)
    hl, lanes = w.headline, w.cpu_lanes
    assert hl.tiles_compact and lanes.compact and hl.caption_folded
    flow = hl._rows(hl.lw())
    assert len(flow.rows) == 1 and flow.compact
    image = QImage(hl.size(), QImage.Format.Format_ARGB32)
    with text_log.recording() as drawn:
        hl.render(image)
    texts = [d.text for d in drawn]
    assert [str(cpu) for cpu in range(8)] == [t for t in texts if t.isdigit() and len(t) == 1]
    assert "cpu0" not in texts and "cpu0: " in hl.toolTip()  # the tooltip still names each tile
    assert len(lanes.lane_rects()) == 8 and len({r.getRect() for r in lanes.lane_rects()}) == 8
    plan = w.frame.plan
    w.frame.rearrange()  # the plan reads each part's needs before the folds: it does not undo itself
    assert w.frame.plan == plan and not problems(w, (1280, 720))
    roomy = build("qdisc-fairness-2011", (1920, 1080), "large", 8, AT_S, str(tmp_path), play_s=0.5)
    shown.append(roomy)
    assert not roomy.headline.tiles_compact and not roomy.cpu_lanes.compact


def test_compact_tiles_asked_for_by_the_window_take_one_row_and_send_no_signal_back(shown) -> None:
    theme.set_theme(theme.make_theme("large", 1.0))
    panel = HeadlinePanel()
    shares = [15, 12, 7, 15, 15, 12, 12, 12]
    per_cpu = [Tile(f"cpu{i}", f"{s}%", palette.cpu_color(i), compact=str(i)) for i, s in enumerate(shares)]
    fairness = Tile("fairness (Jain)", "0.95", short="Jain")
    bandwidth = Tile("bandwidth", "8578 Mbit/s", short="Mbit/s", short_number="8578")
    panel.tiles, panel.caption = [fairness, *per_cpu, bandwidth], "cpuN: share of the dequeues; mean"
    smallest = QFont()
    smallest.setPointSizeF(headline.COMPACT_NUMBER_PT)
    smallest.setBold(True)
    compact = [panel._tile_width(t, smallest, headline.TIGHT_INSET, True, True) for t in panel.tiles]
    room = sum(compact) + headline.TIGHT_GAP * (len(compact) + 1) + 2
    panel.resize(round(room * theme.current().font_factor), 100)
    panel.resizeEvent(None)
    assert len(panel._rows(panel.lw()).rows) == 2, "not compact: two rows in this width"
    saving = panel.compact_saving()
    two_rows = panel.height()
    assert saving > 0 and panel.full_height(caption=False, compact=True) == two_rows - saving
    heard: list[bool] = []
    panel.height_changed.connect(lambda: heard.append(True))
    panel.compact_tiles(True)
    flow = panel._rows(panel.lw())
    assert len(flow.rows) == 1 and flow.compact and not heard
    assert panel.height() == two_rows - saving + (panel.full_height() - panel.full_height(caption=False))
    panel.compact_tiles(False)
    assert len(panel._rows(panel.lw()).rows) == 2 and panel.height() == two_rows and not heard


def test_a_caption_folded_by_the_window_sends_it_no_signal_back(shown) -> None:
    panel = HeadlinePanel()
    shown_tiles = [Tile("fairness (Jain)", "0.95", short="Jain"), Tile("bandwidth", "8578 Mbit/s")]
    panel.tiles, panel.caption = shown_tiles, "cpuN: share of the dequeues; mean since the start " * 3
    panel.resize(400, 100)
    panel.resizeEvent(None)
    under = panel.caption_under_height()
    assert under > 0 and panel.height() == panel.full_height()
    heard: list[bool] = []
    panel.height_changed.connect(lambda: heard.append(True))
    panel.fold_caption(True)
    assert panel.height() == panel.full_height() - under and not heard
    panel.fold_caption(False)
    assert panel.height() == panel.full_height() and not heard


def test_a_headline_short_of_room_takes_short_labels_before_a_second_row(shown) -> None:
    # Large text at 1280x720 with six CPUs: the 2011 tiles took two rows, and the stage scrolled.
    theme.set_theme(theme.make_theme("large", 1.0))
    panel = HeadlinePanel()
    shares = [25, 10, 10, 22, 18, 16]
    per_cpu = [Tile(f"cpu{i}", f"{s}%", palette.cpu_color(i)) for i, s in enumerate(shares)]
    fairness = Tile("fairness (Jain)", "0.90", short="Jain")
    panel.tiles, panel.caption = [fairness, *per_cpu, Tile("bandwidth", "8562 Mbit/s")], "mean"

    def labels_drawn() -> list[str]:
        image = QImage(panel.size(), QImage.Format.Format_ARGB32)
        with text_log.recording() as drawn:
            panel.render(image)
        return [d.text for d in drawn]

    smallest = QFont()
    smallest.setPointSizeF(headline.MIN_NUMBER_PT)
    smallest.setBold(True)
    inset = headline.TIGHT_INSET
    widths = [panel._tile_width(t, smallest, inset) for t in panel.tiles]
    short_widths = [panel._tile_width(t, smallest, inset, short=True) for t in panel.tiles]
    # Wide enough for the short labels on one row at the smallest numbers, not for the long ones.
    room = (sum(short_widths) + sum(widths)) / 2 + headline.TIGHT_GAP * (len(widths) + 1)
    panel.resize(round(room * theme.current().font_factor), 100)
    panel.resizeEvent(None)
    assert len(panel._rows(panel.lw()).rows) == 1 and panel._rows(panel.lw()).short
    assert "Jain" in labels_drawn() and "fairness (Jain)" not in labels_drawn()
    panel.resize(round(2 * room * theme.current().font_factor), 100)
    panel.resizeEvent(None)
    assert "fairness (Jain)" in labels_drawn(), "with room, the full label"


def test_a_headline_takes_short_labels_before_its_numbers_shrink_to_the_smallest(shown) -> None:
    # Large text at 1280x720, the 2009 story's five tiles: the long thread labels ("iperf-reporter CPU")
    # set the width, and every number shrank to the smallest size to hold them, the bandwidth's too.
    theme.set_theme(theme.make_theme("large", 1.0))
    panel = HeadlinePanel()
    panel.tiles = [
        Tile("bandwidth", "418.7 Mbit/s", short="Mbit/s", short_number="418.7"),
        Tile("hardirq", "94%", palette.BLACK),
        Tile("softirq", "4%", palette.GREY),
        Tile("iperf-reporter CPU", "0%", palette.BLUE, short="iperf-reporter"),
        Tile("iperf-server CPU", "1%", palette.ORANGE, short="iperf-server"),
    ]
    panel.caption = "mean"
    at = QFont()
    at.setPointSizeF(headline.SHORT_LABELS_FROM_PT)
    at.setBold(True)
    short = [panel._tile_width(t, at, headline.TIGHT_INSET, short=True) for t in panel.tiles]
    room = sum(short) + headline.TIGHT_GAP * (len(short) + 1) + 2
    panel.resize(round(room * theme.current().font_factor), 100)
    panel.resizeEvent(None)
    flow = panel._rows(panel.lw())
    assert len(flow.rows) == 1 and flow.short
    assert flow.big.pointSizeF() == headline.SHORT_LABELS_FROM_PT  # not MIN_NUMBER_PT


def test_a_caption_too_long_for_two_lines_beside_the_tiles_takes_a_third_there(shown) -> None:
    # Large text at 1366x768 with eight CPUs: "mean since the start (the last 304 ms)" needed three lines
    # in the room beside the 2007 tiles, went under them, and left the bandwidth graph 136 px high.
    theme.set_theme(theme.make_theme("large", 1.0))
    panel = HeadlinePanel()
    panel.tiles = [Tile("bandwidth", "93.6 Mbit/s"), Tile("iperf-data CPU", "75%")]
    panel.caption = "mean since the start (the last 304 ms)"
    panel.resize(2000, 100)
    panel.resizeEvent(None)
    flow = panel._rows(panel.lw())
    x = panel._caption_x(flow)
    fm = headline.font_metrics(panel._caption_font)
    words = panel.caption.split()
    # Room for the caption's longest word and a little, about a third of its whole width: three lines.
    room = max(fm.horizontalAdvance(w) for w in words) + 0.34 * fm.horizontalAdvance(panel.caption)
    panel.resize(round((x + room + headline.PAD) * panel.zoom), 100)
    panel.resizeEvent(None)
    tile_h = panel._tile_h(flow.big)
    assert 3 * fm.lineSpacing() <= tile_h - 4, "three caption lines fit beside a tile"
    height = panel._caption_height(panel.lw() - x - headline.PAD, flow.big)
    assert height is not None and round(height / fm.lineSpacing()) == 3
    assert panel._caption_beside(panel._rows(panel.lw()))
    beside = panel.height()
    panel.caption += " and much more than the tiles' height holds beside them"
    panel.resizeEvent(None)
    assert not panel._caption_beside(panel._rows(panel.lw()))
    assert panel.height() > beside, "under the tiles, the caption takes a line of its own"


def test_a_list_showing_half_its_bottom_row_is_a_problem(qapp) -> None:
    from PySide6.QtWidgets import QListWidget, QVBoxLayout, QWidget

    from gui.layout_check import half_rows

    window = QWidget()
    steps = QListWidget()
    steps.addItems([f"{i}. a step" for i in range(1, 8)])
    QVBoxLayout(window).addWidget(steps)
    row = steps.sizeHintForRow(0)
    steps.setFixedHeight(round(3.5 * row) + 2 * steps.frameWidth())
    window.show()
    QApplication.processEvents()
    found = half_rows(window)
    assert len(found) == 1 and "row 4" in found[0], found
    steps.setFixedHeight(3 * row + 2 * steps.frameWidth())
    QApplication.processEvents()
    assert half_rows(window) == []
    window.close()


@pytest.mark.parametrize("mode", ["standard", "large"])
def test_the_lesson_lists_its_steps_in_whole_rows_at_any_height(qapp, mode) -> None:
    # At 1280x720 and 1366x768 the step list ended in the top half of a row ("4. jamal's patch: a
    # packet quo…" cut through its letters); it now takes whole rows, all of them where they fit in
    # STEPS_SHARE of the column and the rest scrolled.
    from gui.layout_check import half_rows
    from gui.lessons import load_lesson
    from gui.panels.lesson import STEPS_SHARE, LessonPanel

    theme.set_theme(theme.make_theme(mode, 1.0))
    panel = LessonPanel()
    try:
        panel.apply_theme()
        panel.set_lesson(load_lesson("cfs-yield-2007"))
        panel.show()
        seen = set()
        for height in range(380, 1500, 37):
            panel.resize(360, height)
            QApplication.processEvents()
            assert half_rows(panel) == [], height
            rows = [panel.steps.visualItemRect(panel.steps.item(r)) for r in range(panel.steps.count())]
            shown = sum(1 for r in rows if panel.steps.viewport().rect().contains(r))
            assert shown >= 1
            split = sum(panel._split.sizes())
            if shown < panel.steps.count():  # the list stops at its share; one more row would pass it
                assert panel.steps.height() <= STEPS_SHARE * split + 1
                assert panel.steps.height() + rows[shown].height() > STEPS_SHARE * split
            seen.add(shown == panel.steps.count())
        assert seen == {True, False}  # the heights tried show some of the steps, then all of them
    finally:
        panel.close()
        theme.set_theme(theme.make_theme("standard", 1.0))


@pytest.mark.parametrize(
    ("arg", "words"),
    [("bfs", "--set takes KEY=VALUE"), ("sched.policy=nope", "sched.policy = 'nope' is not allowed")],
)
def test_a_bad_setting_is_one_line_before_any_window(tmp_path: Path, arg: str, words: str) -> None:
    done = layout_check("--set", arg, "--out", str(tmp_path), "cfs-yield-2007")
    last = done.stderr.strip().splitlines()[-1]  # after argparse's usage, the one line
    assert done.returncode == 2 and words in last and "Traceback" not in done.stderr
    assert not list(tmp_path.iterdir())  # no window was drawn
