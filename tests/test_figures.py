"""Figures (gui.figures): PNG at any scale, PDF, captions, and SVG that other renderers draw as Qt does.

The SVG check renders each exported SVG with CairoSVG, an independent renderer, and compares it with
Qt's PNG of the same widget, pixel block by pixel block (4×4 means, so font hinting does not count).
The same check on the SVG as QSvgGenerator writes it, before ``gui.draw.svg_portable``, fails: the
test can tell a portable SVG from one that is not.
"""

from __future__ import annotations

import cairosvg
import numpy as np
import pytest
from PySide6.QtCore import QBuffer, QIODevice
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QWidget
from qt_guard import leak_guard, temp_settings  # noqa: F401 - autouse fixtures

from gui import figures
from gui.figures import FigureOptions, figure_bytes

CAPTION = "cfs-yield-2007 · sched_compat_yield = 0 · seed 1 · t = 1.000 s"


def pixels(png: bytes) -> np.ndarray:
    image = QImage.fromData(png).convertToFormat(QImage.Format.Format_RGB888)
    w, h, stride = image.width(), image.height(), image.bytesPerLine()
    rows = np.frombuffer(image.constBits(), np.uint8, count=stride * h).reshape(h, stride)
    return rows[:, : w * 3].reshape(h, w, 3).astype(float)


def blocks(a: np.ndarray, k: int = 4) -> np.ndarray:
    h, w = a.shape[0] // k * k, a.shape[1] // k * k
    return a[:h, :w].reshape(h // k, k, w // k, k, 3).mean(axis=(1, 3))


# Same drawing, fonts hinted a little differently: a few per cent of blocks on text edges. The raw
# QSvgGenerator output of the bandwidth plot scores a mean of about 60 and 40 % of blocks.
MEAN_LIMIT, SHARE_LIMIT = 6.0, 0.05


def difference(qt_png: bytes, svg: bytes) -> tuple[float, float]:
    """Mean block difference (0..255) and the share of blocks that differ by more than 40."""
    qt = pixels(qt_png)
    other = cairosvg.svg2png(
        bytestring=svg, output_width=qt.shape[1], output_height=qt.shape[0], background_color="white"
    )
    d = np.abs(blocks(qt) - blocks(pixels(other))).mean(axis=2)
    return float(d.mean()), float((d > 40).mean())


@pytest.fixture(scope="module")
def windows(qapp):  # type: ignore[no-untyped-def]
    from gui.app import play_to
    from gui.main_window import MainWindow
    from model.scenario import load_scenario

    made = {}
    for story in ("cfs-yield-2007", "qdisc-fairness-2011"):
        window = MainWindow(load_scenario(story), use_timer=False)
        window.resize(1280, 720)
        window.show()
        play_to(window, 1_000_000_000)
        made[story] = window
    yield made
    for window in made.values():
        window.playback.stop()
        window.close()
        window.deleteLater()


PANELS = [
    ("cfs-yield-2007", "graphs"),
    ("cfs-yield-2007", "cpu_lanes"),
    ("cfs-yield-2007", "runqueue"),
    ("cfs-yield-2007", "headline"),
    ("qdisc-fairness-2011", "graphs"),
    ("qdisc-fairness-2011", "qdisc"),
]


@pytest.mark.parametrize(("story", "panel"), PANELS)
def test_an_svg_renders_in_cairosvg_as_in_qt(windows, story: str, panel: str) -> None:
    window = windows[story]
    widget: QWidget = getattr(window, panel)
    if panel == "qdisc":  # the qdisc panel lives in a tab: lay it out and draw the latest snapshot
        widget.resize(900, 500)
        window.qdisc.render(window.playback.last_snapshot)
    options = FigureOptions(caption=CAPTION)
    mean, share = difference(figure_bytes(widget, ".png", options), figure_bytes(widget, ".svg", options))
    assert mean < MEAN_LIMIT and share < SHARE_LIMIT, (mean, share)


def test_the_whole_window_is_close_in_cairosvg(windows) -> None:
    window = windows["cfs-yield-2007"]
    options = FigureOptions()
    mean, share = difference(figure_bytes(window, ".png", options), figure_bytes(window, ".svg", options))
    assert mean < MEAN_LIMIT and share < SHARE_LIMIT, (mean, share)


def test_the_check_tells_a_raw_qt_svg_from_a_portable_one(windows, monkeypatch) -> None:
    graphs = windows["cfs-yield-2007"].graphs
    png = figure_bytes(graphs, ".png", FigureOptions())
    monkeypatch.setattr(figures, "portable_svg", lambda text: text)
    mean, share = difference(png, figure_bytes(graphs, ".svg", FigureOptions()))
    assert mean > 2 * MEAN_LIMIT and share > 2 * SHARE_LIMIT, "the raw SVG passed: the check cannot fail"


@pytest.mark.parametrize("scale", [1.0, 2.0, 300 / 96])
def test_png_at_a_scale_has_that_many_pixels_and_says_its_dpi(windows, scale: float) -> None:
    graphs = windows["cfs-yield-2007"].graphs
    image = QImage.fromData(figure_bytes(graphs, ".png", FigureOptions(scale=scale)))
    assert (image.width(), image.height()) == (round(graphs.width() * scale), round(graphs.height() * scale))
    assert abs(image.dotsPerMeterX() * 0.0254 - 96 * scale) < 1


def test_a_2x_png_is_the_1x_drawn_finer_not_another_picture(windows) -> None:
    graphs = windows["cfs-yield-2007"].graphs
    one = blocks(pixels(figure_bytes(graphs, ".png", FigureOptions())), 4)
    two = blocks(pixels(figure_bytes(graphs, ".png", FigureOptions(scale=2.0))), 8)
    h, w = min(one.shape[0], two.shape[0]), min(one.shape[1], two.shape[1])
    assert np.abs(one[:h, :w] - two[:h, :w]).mean() < 6.0


def test_a_caption_adds_a_strip_below_with_text(windows) -> None:
    graphs = windows["cfs-yield-2007"].graphs
    plain = pixels(figure_bytes(graphs, ".png", FigureOptions()))
    captioned = pixels(figure_bytes(graphs, ".png", FigureOptions(caption=CAPTION)))
    assert captioned.shape[0] > plain.shape[0] and captioned.shape[1] == plain.shape[1]
    strip = captioned[plain.shape[0] :]
    assert (strip < 128).any(), "the caption strip has no text"
    assert CAPTION in figure_bytes(graphs, ".svg", FigureOptions(caption=CAPTION)).decode()


def test_a_pdf_is_one_page_the_size_of_the_figure(windows) -> None:
    graphs = windows["cfs-yield-2007"].graphs
    pdf = figure_bytes(graphs, ".pdf", FigureOptions(caption=CAPTION))
    assert pdf.startswith(b"%PDF") and pdf.rstrip().endswith(b"%%EOF")
    assert pdf.count(b"/Type /Page\n") + pdf.count(b"/Type /Page ") + pdf.count(b"/Type/Page") >= 1
    width_pt = graphs.width() * 72 / 96
    assert f"{width_pt:.0f}".encode() in pdf or f"{width_pt:.1f}".encode() in pdf


def test_headless_export_of_a_panel_at_a_dpi_with_a_caption(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from model import cli

    out = tmp_path / "graphs.png"
    args = ["export", "cfs-yield-2007", "--at", "0.2", "--size", "1280x720", "--panel", "graphs"]
    assert cli.main([*args, "--out", str(out), "--dpi", "192", "--caption"]) == 0
    image = QImage(str(out))
    assert abs(image.dotsPerMeterX() * 0.0254 - 192) < 1
    assert cli.main([*args, "--out", str(tmp_path / "graphs.pdf")]) == 0
    assert (tmp_path / "graphs.pdf").read_bytes().startswith(b"%PDF")


def test_the_panel_names_are_the_windows_export_targets(windows) -> None:
    from gui.app import EXPORT_PANELS, slug
    from gui.window_export import export_targets

    names = {slug(k) for k in export_targets(windows["qdisc-fairness-2011"]) if k != "Whole window"}
    assert set(EXPORT_PANELS) == names | {"window"}


def test_a_panels_figure_leaves_out_the_controls_over_it_and_the_window_keeps_them(windows) -> None:
    # A figure of the 2011 graphs for a slide carried the "More ▾" button over their top right corner.
    from gui.panels.base import CHROME

    window = windows["qdisc-fairness-2011"]
    panel = window.graphs
    chooser = next(w for w in panel.findChildren(QWidget) if w.property(CHROME))
    assert chooser.isVisible(), "the 2011 graphs at 1280x720 do not all fit: the chooser is shown"
    figure = pixels(figure_bytes(panel, ".png", FigureOptions()))
    chooser.setVisible(False)
    without = QImage(panel.size(), QImage.Format.Format_RGB888)
    panel.render(without)
    chooser.setVisible(True)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    without.save(buffer, "PNG")
    assert np.array_equal(figure, pixels(bytes(buffer.data()))), "drawn as with the chooser hidden"
    assert chooser.isVisible(), "and shown again in the window"
    r = chooser.geometry()
    whole = pixels(figure_bytes(window, ".png", FigureOptions()))
    origin = panel.mapTo(window, r.topLeft())
    corner = whole[origin.y() : origin.y() + r.height(), origin.x() : origin.x() + r.width()]
    assert not np.array_equal(corner, figure[r.y() : r.bottom() + 1, r.x() : r.right() + 1])


def test_the_explainers_figure_holds_its_whole_text(windows, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # schedlab export --panel explainer drew the first screenful of the story under a scroll bar.
    from model import cli

    out = tmp_path / "explainer.png"
    assert (
        cli.main(["export", "qdisc-fairness-2011", "--panel", "explainer", "--at", "0.1", "--out", str(out)])
        == 0
    )
    image = pixels(out.read_bytes())
    height, width = image.shape[:2]
    assert height > 2 * width, (width, height)  # the whole story, not a 640x480 window onto it
    ink = (image.min(axis=2) < 128).any(axis=1)  # rows with dark text
    assert ink[-60:].any(), "the text runs on to the figure's foot"
    edge = image[height // 4 : 3 * height // 4, width - 12 : width - 3]
    assert (edge.min(axis=2) > 235).mean() > 0.97, "no scroll bar along the right edge"
    panel = windows["qdisc-fairness-2011"].explainer
    kept = panel.size()
    figure_bytes(panel, ".png", FigureOptions())
    assert panel.size() == kept, "the window's panel goes back to its size"
