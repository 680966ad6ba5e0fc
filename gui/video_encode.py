"""Encoding a video's frames: the window's images into an MP4 (H.264) or GIF stream with PyAV, on a worker
thread; each Qt pixel format named as FFmpeg knows it; a GIF's palette kept for the whole clip."""

from __future__ import annotations

import functools
import queue
import sys
import threading
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

if TYPE_CHECKING:
    import av

POOL_FRAMES = 3  # one filled by the painter, one queued, one being encoded


class FrameEncoder:
    """Encodes and muxes frames on a worker thread while the window paints the next one (FFmpeg
    releases the GIL while it converts and encodes), in order, so the file is the same as one thread
    would write. The window's pixels are copied into one of ``POOL_FRAMES`` frames, each used again
    once the encoder has converted it into its own pixel format: memory stays flat, and no frame is
    allocated per frame (allocating and filling a fresh 1080p frame costs four times the copy). An
    encoder error is raised in the caller at its next ``put`` or at the end."""

    def __init__(self, fh: BinaryIO, suffix: str, size: tuple[int, int], fps: int) -> None:
        import av

        self._container = av.open(fh, mode="w", format=suffix[1:])
        self._stream = _video_stream(self._container, suffix, size, fps)
        self._size = size
        self._gif = GifPalette() if suffix == ".gif" else None
        self._frames: queue.Queue[av.VideoFrame | None] = queue.Queue()  # bounded by the pool
        self._free: queue.Queue[av.VideoFrame | None] = queue.Queue()
        for _ in range(POOL_FRAMES):
            self._free.put(None)  # allocated at first use, in the pixel format of the window's image
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="schedlab-video-encoder", daemon=True)
        self._thread.start()

    def put(self, image: Any) -> None:
        """Copy ``image`` (a QImage of ``size``) into a free frame and queue it; waits while
        the encoder is a pool behind."""
        import av

        if self._error is not None:
            raise self._error
        if self._gif is not None:
            self._frames.put(self._gif.frame(image))
            return
        pix_fmt, image, rows = _image_rows(image)
        frame = self._free.get()
        if frame is None or frame.format.name != pix_fmt:
            frame = av.VideoFrame(*self._size, pix_fmt)
        plane = frame.planes[0]
        height, row_bytes = rows.shape
        np.frombuffer(memoryview(plane), dtype=np.uint8).reshape(height, plane.line_size)[:, :row_bytes] = (
            rows
        )
        self._frames.put(frame)

    def _run(self) -> None:
        while (frame := self._frames.get()) is not None:
            self._encode(frame)
            # The encoder holds no reference to it: libswscale converted it into a frame of its own.
            if self._gif is None:
                self._free.put(frame)
        self._encode(None)  # flush the frames the encoder holds back

    def _encode(self, frame: av.VideoFrame | None) -> None:
        if self._error is not None:  # after an error, frames are only handed back, so put() never waits
            return
        try:
            for packet in self._stream.encode(frame):
                self._container.mux(packet)
        except BaseException as exc:  # handed to the caller at its next put() or at the end
            self._error = exc

    def __enter__(self) -> FrameEncoder:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self._frames.put(None)
        self._thread.join()
        self._container.close()
        if kind is None and self._error is not None:
            raise self._error


def _video_stream(container: Any, suffix: str, size: tuple[int, int], fps: int) -> Any:
    from fractions import Fraction

    width, height = size
    if suffix == ".gif":
        stream = container.add_stream("gif", rate=Fraction(fps))
        stream.pix_fmt = "pal8"  # the clip's own palette (GifPalette), the same in every frame
    else:
        stream = container.add_stream("libx264", rate=Fraction(fps))
        stream.pix_fmt = "yuv420p"  # what every player plays
        # Same frames, same bytes: x264 is deterministic with a fixed thread count (two: the machine
        # paints the next frame while x264 encodes on its own threads). No B-frames: "animation"
        # asks for five, and deciding them took a third of x264's time on the window's frames
        # (1080p, the 2007 story: 17 ms a frame against 26 ms, files 9 % larger, the same PSNR).
        stream.options = {
            "crf": "20",
            "preset": "superfast",
            "threads": "2",
            "tune": "animation",
            "x264-params": "bframes=0",
        }
    stream.thread_count = 1
    stream.width, stream.height = width, height
    container.metadata.clear()
    return stream


class GifPalette:
    """A GIF's 256 colours, kept for the clip, each pixel mapped to the nearest without dithering: the
    window's own colours (``gui.draw.palette``), so that a colour first seen later in the clip (a CPU
    that becomes the dequeuer, the line a setting's change starts) keeps its shade, and the rest chosen
    from the first frame (its text's anti-aliased edges, the shades between). The window is flat colours
    and their edges: FFmpeg's fixed 3-3-2 palette with error diffusion drew the 2011 story's orange
    "since the change" line yellow and streaked yellow dots through black text."""

    def __init__(self) -> None:
        self._palette: Any = None  # a Pillow "P" image holding the palette
        self._argb: np.ndarray | None = None

    def frame(self, image: Any) -> Any:
        """``image`` (a QImage) as a ``pal8`` frame in the clip's palette."""
        import av
        from PIL import Image

        pix_fmt, image, rows = _image_rows(image)
        height, width = rows.shape[0], rows.shape[1] // 4
        rgb = _rgb_of(rows.reshape(height, width, 4), pix_fmt)
        picture = Image.fromarray(rgb, "RGB")
        if self._palette is None:
            own = window_colours()
            chosen = picture.quantize(256 - len(own), Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
            used = np.frombuffer(bytes(chosen.getpalette() or []), dtype=np.uint8).reshape(-1, 3)
            colours = np.zeros((256, 3), dtype=np.uint8)
            colours[: len(own)] = own
            colours[len(own) : len(own) + len(used)] = used[: 256 - len(own)]
            self._palette = Image.new("P", (1, 1))
            self._palette.putpalette(colours.tobytes())
            argb = np.full((256, 4), 255, dtype=np.uint8)
            argb[:, 1:] = colours  # A, R, G, B per entry, as PyAV asks
            self._argb = argb
        indices = picture.quantize(palette=self._palette, dither=Image.Dither.NONE)
        assert self._argb is not None
        pair: Any = (np.asarray(indices, dtype=np.uint8), self._argb)  # PyAV's stubs know no pal8 pair
        return av.VideoFrame.from_ndarray(pair, format="pal8")


def window_colours() -> np.ndarray:
    """The window's named colours (``gui.draw.palette``), as N×3 RGB bytes, each once."""
    from PySide6.QtGui import QColor

    from gui.draw import palette

    named = [c for c in vars(palette).values() if isinstance(c, QColor)]
    named += [
        c for group in (palette.STATE_COLORS.values(), palette.CPU_COLORS, palette.TASK_COLORS) for c in group
    ]
    rgb = sorted({(c.red(), c.green(), c.blue()) for c in named})
    return np.array(rgb, dtype=np.uint8).reshape(-1, 3)


def _rgb_of(pixels: np.ndarray, pix_fmt: str) -> np.ndarray:
    """H×W×3 RGB of H×W×4 pixels in FFmpeg's ``pix_fmt`` byte order."""
    order = {"bgra": (2, 1, 0), "argb": (1, 2, 3), "rgba": (0, 1, 2)}.get(pix_fmt, (0, 1, 2))
    return np.ascontiguousarray(pixels[:, :, list(order)])


def _image_rows(image: Any) -> tuple[str, Any, np.ndarray]:
    """``image``'s pixel format as FFmpeg names it, the image (converted if FFmpeg has no name for
    Qt's format; keep it while the rows are read) and its rows, an H×(W×4) view of its bytes."""
    from PySide6.QtGui import QImage

    pix_fmt = _pix_fmts().get(image.format())
    if pix_fmt is None:
        image = image.convertToFormat(QImage.Format.Format_RGBX8888)
        pix_fmt = "rgba"
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    rows = np.frombuffer(image.constBits(), dtype=np.uint8, count=stride * height).reshape(height, stride)
    return pix_fmt, image, rows[:, : width * 4]


@functools.cache
def _pix_fmts() -> dict[Any, str]:
    """Qt's 32-bit image formats as FFmpeg names their bytes in memory (the window is opaque, so the
    alpha byte is 255 and premultiplied or not is the same)."""
    from PySide6.QtGui import QImage

    f = QImage.Format
    packed = "bgra" if sys.byteorder == "little" else "argb"  # 0xAARRGGBB in a native 32-bit word
    return {
        f.Format_RGB32: packed,
        f.Format_ARGB32: packed,
        f.Format_ARGB32_Premultiplied: packed,
        f.Format_RGBX8888: "rgba",  # byte-ordered
        f.Format_RGBA8888: "rgba",
        f.Format_RGBA8888_Premultiplied: "rgba",
    }
