"""Videos of a run: MP4 (H.264) or GIF, rendered frame by frame from the model, never a screen capture.

Frame ``i`` shows the window at simulated time ``from + i × speed / fps``: the model is deterministic
and the window is laid out offscreen at a fixed size, so the same scenario, seed, settings, span,
speed, frame rate and size give the same frames, and the same file (x264 with a fixed number of
frame threads writes the same bytes every time unless told ``non-deterministic``, and the file holds
no date). ``speed`` is the playback speed (simulated seconds per second of video: Normal is 1/100),
and it also sets the graphs' sampling, as in the window. The encoder is PyAV, whose wheel ships
its own FFmpeg (libx264 for MP4, FFmpeg's GIF encoder with a palette per clip), so no system ffmpeg is
needed.

The output is written to a temporary file beside the destination and renamed into place only when the
last frame is in (``model.cli.outputs``): a cancel, an error or Ctrl-C leaves an existing file untouched.
``render_video`` reports progress and asks whether to go on after every frame, which the headless
command turns into a bar on stderr and the window into a progress dialog with Cancel.
"""

from __future__ import annotations

import argparse
import math
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gui.video_encode import FrameEncoder
from model.cli.outputs import check_output, open_atomic, option_what
from model.scenario import Scenario, ScenarioError

FORMATS = (".mp4", ".gif")
FPS_RANGE = (1, 120)
MAX_FRAMES = 36_000  # 10 minutes at 60 fps: a bound on the work, named in the error
NSEC_PER_SEC = 1_000_000_000

# Called after each frame with (frames done, frames in all); returns False to cancel.
ProgressFn = Callable[[int, int], bool]


class VideoCancelled(Exception):
    """The user cancelled; nothing was written."""


@dataclass(frozen=True)
class VideoSpec:
    """What to render: the span in simulated seconds, the playback speed, frame rate and frame size."""

    start_s: float
    end_s: float
    speed: float
    fps: int
    size: tuple[int, int]

    @property
    def frame_step_ns(self) -> float:
        return self.speed * NSEC_PER_SEC / self.fps

    @property
    def frames(self) -> int:
        return max(1, math.ceil((self.end_s - self.start_s) * NSEC_PER_SEC / self.frame_step_ns - 1e-9))

    def frame_t_ns(self, i: int) -> int:
        return round(self.start_s * NSEC_PER_SEC + i * self.frame_step_ns)


# What a message calls each part of a video: the command's options, or the export dialog's fields.
OPTION_NAMES = {part: f"--{part}" for part in ("from", "to", "speed", "fps", "size", "out")}
FIELD_NAMES = {
    "from": "From",
    "to": "To",
    "speed": "Speed",
    "fps": "Frames per second",
    "size": "Size",
    "out": "File",
}


def check_spec(spec: VideoSpec, duration_s: float, names: dict[str, str] = OPTION_NAMES) -> None:
    """One line naming the bad option (or the dialog's field: ``names``) and what is allowed."""
    from gui.playback import SPEED_MAX, SPEED_MIN

    for part, value in (("from", spec.start_s), ("to", spec.end_s), ("speed", spec.speed)):
        if not math.isfinite(value):
            raise ScenarioError(f"{names[part]} {value}: expected a finite number")
    if not 0 <= spec.start_s < spec.end_s <= duration_s:
        raise ScenarioError(
            f"{names['from']} {spec.start_s:g} {names['to']} {spec.end_s:g}: allowed 0 <= from < to <= "
            f"{duration_s:g} (the scenario's duration)"
        )
    if not SPEED_MIN <= spec.speed <= SPEED_MAX:
        raise ScenarioError(f"{names['speed']} {spec.speed:g}: allowed {SPEED_MIN:g} .. {SPEED_MAX:g}")
    if not FPS_RANGE[0] <= spec.fps <= FPS_RANGE[1]:
        raise ScenarioError(f"{names['fps']} {spec.fps}: allowed {FPS_RANGE[0]} .. {FPS_RANGE[1]}")
    if spec.frames > MAX_FRAMES:
        raise ScenarioError(
            f"{spec.frames} frames ({spec.frames / spec.fps:.0f} s of video): at most {MAX_FRAMES}; "
            f"shorten {names['from']}/{names['to']}, raise {names['speed']} or lower {names['fps']}"
        )
    w, h = spec.size
    if w % 2 or h % 2:
        raise ScenarioError(f"{names['size']} {w}x{h}: H.264 needs an even width and height")


def check_out(path: Path, inputs: tuple[Path, ...] = (), name: str = OPTION_NAMES["out"]) -> str:
    """The format's suffix, if a video can be written at ``path`` (checked before any frame); a message
    calls it ``name`` (the option, or the dialog's field)."""
    check_output(str(path), option_what(name, str(path)), suffixes=FORMATS, inputs=inputs)
    return path.suffix.lower()


def render_video(
    window: Any,
    spec: VideoSpec,
    out: Path,
    progress: ProgressFn | None = None,
    names: dict[str, str] = OPTION_NAMES,
) -> int:
    """Play ``window``'s run over ``spec`` and write ``out``; returns the number of frames.

    ``window`` is a MainWindow already resized to ``spec.size``, its playback not yet past
    ``spec.start_s``. Raises ``VideoCancelled`` when ``progress`` returns False. A message calls the
    file ``names["out"]``."""
    suffix = check_out(out, name=names["out"])
    pixels = prepare(window, spec)
    total = spec.frames
    with (
        open_atomic(out, option_what(names["out"], str(out))) as fh,
        FrameEncoder(fh, suffix, spec.size, spec.fps) as encoder,
    ):
        for i in range(total):
            advance_to_frame(window, spec, i)
            encoder.put(pixels.image())
            if progress is not None and not progress(i + 1, total):
                raise VideoCancelled(f"cancelled after {i + 1} of {total} frames; nothing written")
    return total


def prepare(window: Any, spec: VideoSpec, *, whole: bool = False) -> WindowPixels:
    """Pause ``window``'s playback at the video's speed, its panels on the video's clock, at the first
    frame with the 20 ms before it played; returns what reads its pixels (``WindowPixels``)."""
    playback = window.playback
    playback.pause()
    playback.set_speed(spec.speed)
    _clock_panels_by_video_time(window, spec)
    _play_lead(playback, spec.frame_t_ns(0))
    return WindowPixels(window, spec.size, whole=whole)


def advance_to_frame(window: Any, spec: VideoSpec, i: int) -> None:
    """The model to frame ``i``'s instant, and every panel's render of it."""
    playback = window.playback
    if playback.advance_to(spec.frame_t_ns(i)) is None:
        raise ScenarioError(f"the simulation stopped at t = {playback.simulation.now_ns / 1e9:.6f} s")


def _clock_panels_by_video_time(window: Any, spec: VideoSpec) -> None:
    """Panels that time what they draw in wall seconds (the run queue's yield landing stays 4 s, then
    fades) read the video's own clock instead: the seconds of video at the simulated time shown, 0 at
    the first frame. On the wall clock, what a frame shows would depend on how fast the machine
    painted the frames before it, and the same inputs would not give the same file."""
    from PySide6.QtWidgets import QWidget

    sim_ns_per_video_s = spec.speed * NSEC_PER_SEC
    first_ns = spec.frame_t_ns(0)
    simulation = window.playback.simulation  # paused: this run, to the end of the video

    def video_s() -> float:
        return float(simulation.now_ns - first_ns) / sim_ns_per_video_s

    # The panels take their clock when built (``clock=``, kept as ``_clock``); the window builds
    # them with the wall clock, so the offscreen copy's are swapped here.
    for widget in window.findChildren(QWidget):
        if callable(getattr(widget, "_clock", None)):
            widget._clock = video_s


def _play_lead(playback: Any, first_ns: int) -> None:
    """Up to the first frame: fast, then the last ``LEAD_NS`` step by step (``gui.playback``)."""
    from gui.playback import LEAD_FRAMES, LEAD_NS

    sim = playback.simulation
    lead_start = max(0, first_ns - LEAD_NS)
    if lead_start > sim.now_ns and playback.advance_to(lead_start) is None:
        raise ScenarioError(f"the simulation stopped before t = {lead_start / 1e9:.6f} s")
    step = max(1, (first_ns - sim.now_ns) // LEAD_FRAMES)
    while sim.now_ns < first_ns:
        if playback.advance_to(min(first_ns, sim.now_ns + step)) is None:
            raise ScenarioError(f"the simulation stopped at t = {sim.now_ns / 1e9:.6f} s")


class WindowPixels:
    """The window's pixels after each frame, repainting only what the frame changed.

    Qt keeps a top-level window's pixels in its backing store, and a repaint paints only the widgets
    whose ``update()`` marked them dirty: the way the window on screen draws a frame
    (``gui.frame_bench``'s live frame). ``window.grab()`` instead paints every widget (controls,
    explainer text, axes), about four times the work at 1920x1080. So a frame first delivers the
    posted events (a pyqtgraph scene asks for its repaint through one, so without them the graphs
    would show the previous frame), then repaints what is dirty, then copies the backing store.

    The first frame is also grabbed whole and compared: if the backing store does not hold exactly
    the window's pixels at the video's size (a platform that keeps them elsewhere, a device pixel
    ratio above 1), every frame is grabbed whole instead, as before. The choice depends only on the
    platform, so the same inputs still give the same frames. ``whole=True`` grabs every frame whole
    from the start: the reference the tests hold the repainted frames to."""

    def __init__(self, window: Any, size: tuple[int, int], *, whole: bool = False) -> None:
        self._window = window
        self._size = size
        self._from_store: bool | None = False if whole else None  # None: decided at the first frame

    @property
    def from_backing_store(self) -> bool:
        """Whether the frames are read from the backing store (known once the first is taken)."""
        return bool(self._from_store)

    def image(self) -> Any:
        """The window as it looks now, a QImage of exactly ``size``: the backing store itself, valid
        until the next frame paints over it (``FrameEncoder.put`` copies it)."""
        from PySide6.QtWidgets import QApplication

        QApplication.sendPostedEvents(None, 0)  # 0: every type but deferred deletes
        self._window.repaint(0, 0, 1, 1)  # a synchronous repaint also paints every pending update
        if self._from_store is None:
            self._from_store = self._store_matches_grab()
        image = self._stored_image() if self._from_store else None
        return self._grabbed_image() if image is None else image

    def _stored_image(self) -> Any:
        from PySide6.QtGui import QImage

        store = self._window.backingStore()
        image = None if store is None else store.paintDevice()
        if not isinstance(image, QImage) or (image.width(), image.height()) != self._size:
            return None
        return image

    def _grabbed_image(self) -> Any:
        from PySide6.QtCore import Qt

        image = self._window.grab().toImage()
        if (image.width(), image.height()) != self._size:
            image = image.scaled(*self._size, Qt.AspectRatioMode.IgnoreAspectRatio)
        return image

    def _store_matches_grab(self) -> bool:
        from PySide6.QtGui import QImage

        stored = self._stored_image()
        if stored is None:
            return False
        rgb = QImage.Format.Format_RGB32
        return bool(stored.convertToFormat(rgb) == self._grabbed_image().convertToFormat(rgb))


@contextmanager
def offscreen_window(
    window_class: Any, scenario: Scenario, seed: int | None, size: tuple[int, int]
) -> Iterator[Any]:
    """A window (``gui.main_window.MainWindow``, passed in: this module sits below it) laid out
    offscreen at ``size`` with throwaway settings (the user's are untouched)."""
    from PySide6.QtCore import QEvent, QSettings, Qt
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    with tempfile.TemporaryDirectory(prefix="schedlab-video-") as tmp:
        settings = QSettings(str(Path(tmp) / "video.ini"), QSettings.Format.IniFormat)
        window = window_class(scenario, seed=seed, settings=settings, use_timer=False)
        try:
            least = window.minimumSizeHint()
            if size[0] < least.width() or size[1] < least.height():
                raise ScenarioError(
                    f"--size {size[0]}x{size[1]}: the window needs at least {least.width()}x{least.height()}"
                )
            window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
            window.resize(*size)
            window.show()
            yield window
        finally:
            window.playback.stop()
            window.hide()
            window.deleteLater()
            if app is not None:
                app.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def run_video(args: argparse.Namespace, scenario: Scenario, size: tuple[int, int], window_class: Any) -> int:
    """``schedlab video``: the headless command (``gui.app`` parses the scenario and size and names the
    window class)."""
    from model.cli.progress import Progress

    duration_s = scenario.duration_s
    end_s = duration_s if args.t_to is None else args.t_to
    spec = VideoSpec(args.t_from, end_s, args.speed, args.fps, size)
    check_spec(spec, duration_s)
    out = Path(args.out)
    check_out(out)
    with offscreen_window(window_class, scenario, args.seed, size) as window:
        bar = Progress(f"video {out.name}", spec.frames, " frames", enabled=True if args.progress else None)

        def progress(done: int, _total: int) -> bool:
            bar.update(done)
            return True

        with bar:
            frames = render_video(window, spec, out, progress)
    print(f"{out}: {frames} frames, {frames / spec.fps:.1f} s at {spec.fps} fps", flush=True)
    return 0
