"""A QPainter whose one-line texts are laid out once: the panels draw the same few hundred words frame
after frame, and ``QPainter.drawText`` shapes a text anew on every call (about four times the cost of
drawing an already shaped ``QStaticText``).

``StaticTextPainter.drawText`` takes the two forms the panels use, a text in a rectangle with alignment
flags and a text at a baseline point, and draws a cached ``QStaticText`` (keyed on the font and the
words) at the place ``drawText`` would put it: the same glyphs at the same pixels. A text taller or wider
than its rectangle is clipped to it, as ``drawText`` clips it (a line of 15.1 px in a 15 px row is
common). Anything else (several lines, word wrap, tabs, mnemonics) goes to ``QPainter.drawText``
unchanged.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetrics, QFontMetricsF, QPainter, QStaticText

_RIGHT, _HCENTER, _BOTTOM, _VCENTER = 0x2, 0x4, 0x40, 0x80
_SIMPLE = 0x1 | _RIGHT | _HCENTER | 0x8 | 0x20 | _BOTTOM | _VCENTER  # alignment only, no text flags
MAX_CACHED = 4096  # widths and elisions kept; the panels measure a few hundred distinct ones
# Laid-out texts are kept in two generations of ``GENERATION`` each: a lookup takes a text from either
# (from the old one it moves to the new), and a full new generation makes the old one go. So the few
# hundred texts a frame draws stay laid out, while the ones that come and go (times, counts: a thousand
# new ones in ten minutes of a lesson) cannot pile up: a laid-out, drawn QStaticText holds about a
# kilobyte of Qt's memory beside its Python wrapper.
GENERATION = 1024

# (font, text) -> (the laid-out text, its width, the line's height, the font's ascent). A QFont hashes and
# compares by value, some twenty times quicker than building its ``key()`` string; the font in a key is
# the painter's own copy (``QPainter.font()``), which nothing changes afterwards.
_Laid = tuple[QStaticText, float, float, float]
_young: dict[tuple[QFont, str], _Laid] = {}
_old: dict[tuple[QFont, str], _Laid] = {}


def _laid_out(font: QFont, text: str) -> _Laid:
    global _young, _old
    key = (font, text)
    hit = _young.get(key)
    if hit is None:
        hit = _old.pop(key, None)
        if hit is None:
            static = QStaticText(text)
            static.setTextFormat(Qt.TextFormat.PlainText)  # never read "<b>" as markup
            static.setPerformanceHint(QStaticText.PerformanceHint.AggressiveCaching)
            static.prepare(font=font)
            fm = QFontMetricsF(font)
            # drawText centres the line's ascent + descent; QStaticText's own height adds the leading.
            hit = (static, static.size().width(), fm.ascent() + fm.descent(), fm.ascent())
        if len(_young) >= GENERATION:
            _old, _young = _young, {}
        _young[key] = hit
    return hit


def cached_texts() -> int:
    """How many laid-out texts are kept (at most ``2 * GENERATION``)."""
    return len(_young) + len(_old)


def _plain(text: str) -> bool:
    return "\n" not in text and "\t" not in text and "&" not in text


class StaticTextPainter(QPainter):
    """A QPainter; ``drawText`` of one line draws a cached QStaticText, and ``fontMetrics`` are the
    remembering ones of the font in use (``font_metrics``): a panel that elides or measures the same
    words every frame shapes them once."""

    def fontMetrics(self) -> QFontMetrics:  # Qt override: the same metrics, remembered
        return font_metrics(self.font())

    def drawText(self, *args: object) -> None:  # type: ignore[override]
        if len(args) == 3 and type(args[0]) is QRectF and type(args[2]) is str:
            if self._draw_in_rect(args[0], int(args[1]), args[2]):  # type: ignore[call-overload]
                return
        elif len(args) == 2 and type(args[0]) is QPointF and type(args[1]) is str and _plain(args[1]):
            static, _w, _h, ascent = _laid_out(self.font(), args[1])
            self.drawStaticText(QPointF(args[0].x(), args[0].y() - ascent), static)
            return
        super().drawText(*args)  # type: ignore[call-overload]

    def _draw_in_rect(self, rect: QRectF, flags: int, text: str) -> bool:
        if flags & ~_SIMPLE or not _plain(text):
            return False
        static, w, h, _ascent = _laid_out(self.font(), text)
        x, y = rect.x(), rect.y()
        if flags & _RIGHT:
            x += rect.width() - w
        elif flags & _HCENTER:
            x += (rect.width() - w) / 2
        if flags & _BOTTOM:
            y += rect.height() - h
        elif flags & _VCENTER:
            y += (rect.height() - h) / 2
        if w > rect.width() or h > rect.height():  # drawText clips it to the rectangle: so do we
            self.save()
            self.setClipRect(rect, Qt.ClipOperation.IntersectClip)
            self.drawStaticText(QPointF(x, y), static)
            self.restore()
        else:
            self.drawStaticText(QPointF(x, y), static)
        return True


class CachedFontMetrics(QFontMetrics):
    """A QFontMetrics that remembers the width of each one-line text and each elided form it gave:
    the panels measure the same labels, tags and ticks every frame (shaping a text takes 5–25 µs)."""

    def __init__(self, font: QFont) -> None:
        super().__init__(font)
        self._widths: dict[str, int] = {}
        self._elided: dict[tuple[str, Qt.TextElideMode, int], str] = {}

    def horizontalAdvance(self, text: str, *args: object) -> int:
        if args or type(text) is not str:
            return super().horizontalAdvance(text, *args)  # type: ignore[call-overload, no-any-return]
        width = self._widths.get(text)
        if width is None:
            if len(self._widths) >= MAX_CACHED:
                self._widths.clear()
            width = self._widths[text] = super().horizontalAdvance(text)
        return width

    def elidedText(self, text: str, mode: Qt.TextElideMode, width: int, flags: int = 0) -> str:  # type: ignore[override]
        if flags:
            return super().elidedText(text, mode, width, flags)
        key = (text, mode, width)
        words = self._elided.get(key)
        if words is None:
            if len(self._elided) >= MAX_CACHED:
                self._elided.clear()
            words = self._elided[key] = super().elidedText(text, mode, width)
        return words


_metrics: dict[QFont, CachedFontMetrics] = {}


def font_metrics(font: QFont) -> CachedFontMetrics:
    """The (shared, remembering) metrics of ``font``, as ``QFontMetrics(font)`` gives them."""
    found = _metrics.get(font)
    if found is None:
        if len(_metrics) >= 256:
            _metrics.clear()
        found = _metrics[QFont(font)] = CachedFontMetrics(font)  # a copy: the caller may change its font
    return found
