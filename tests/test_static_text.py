"""The laid-out texts the panels draw (gui/draw/static_text.py): a text drawn frame after frame keeps
its layout, and texts that come and go (times, counts) cannot pile up over a long lesson."""

from __future__ import annotations

from PySide6.QtGui import QFont

from gui.draw import static_text as stx


def test_a_text_drawn_every_frame_keeps_its_layout_while_passing_ones_are_bounded(qtbot) -> None:
    font = QFont()
    kept = stx._laid_out(font, "root lock")
    for frame in range(3 * stx.GENERATION):
        stx._laid_out(font, f"{frame} ms")  # a new text every frame: a time axis, a counter
        assert stx._laid_out(font, "root lock") is kept, "the text of every frame is laid out once"
        assert stx.cached_texts() <= 2 * stx.GENERATION
    assert stx.cached_texts() > stx.GENERATION, "the old generation is kept too"
    first = stx._laid_out(font, "0 ms")
    assert first is not stx._laid_out(QFont("Serif", 31), "0 ms"), "the font is part of the key"
