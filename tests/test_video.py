"""Videos of a run (gui.video): frame by frame from the model, deterministic, atomic, bounded, cancellable."""

from __future__ import annotations

import itertools
from pathlib import Path

import av
import numpy as np
import pytest
from qt_guard import leak_guard, temp_settings  # noqa: F401 - autouse fixtures

from gui.video import VideoCancelled, VideoSpec, advance_to_frame, offscreen_window, prepare, render_video
from model import cli
from model.scenario import load_scenario

SIZE = (800, 480)  # small and even: quick, and H.264 needs even sides
# At least the window's own minimum once shown (832x497; SIZE is a grab of it scaled down), so the
# frames come from its backing store, and wide enough to show a graph beside the run queue.
WHOLE_SIZE = (1280, 720)


def decoded(path: Path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]


def video(tmp_path: Path, name: str, *extra: str) -> tuple[int, Path]:
    out = tmp_path / name
    args = ["video", "cfs-yield-2007", "--out", str(out), "--from", "1", "--to", "1.003"]
    return cli.main([*args, "--fps", "10", "--size", "800x480", *extra]), out


def test_an_mp4_has_one_frame_per_step_of_the_span_and_the_window_moves(qtbot, tmp_path: Path) -> None:
    status, out = video(tmp_path, "run.mp4")
    assert status == 0
    frames = decoded(out)
    # 3 ms simulated at Normal (1/100) is 0.3 s of video: 3 frames at 10 fps
    assert len(frames) == 3
    assert frames[0].shape == (480, 800, 3)
    assert not np.array_equal(frames[0], frames[-1]), "nothing moved between the first and last frame"
    assert frames[0].std() > 10, "the frame is blank"


def test_the_same_inputs_give_the_same_file(qtbot, tmp_path: Path) -> None:
    first = video(tmp_path, "a.mp4")[1].read_bytes()
    second = video(tmp_path, "b.mp4")[1].read_bytes()
    assert first == second
    assert video(tmp_path, "c.mp4", "--set", "sched.compat_yield=1")[1].read_bytes() != first


def test_a_gif(qtbot, tmp_path: Path) -> None:
    status, out = video(tmp_path, "run.gif")
    assert status == 0 and out.read_bytes()[:6] in (b"GIF89a", b"GIF87a")
    assert len(decoded(out)) == 3


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--out", "x.avi"], "allowed: .mp4, .gif"),
        (["--to", "99"], "allowed 0 <= from < to <= 10"),
        (["--fps", "0"], "--fps 0: allowed 1 .. 120"),
        (["--speed", "nan"], "--speed nan: expected a finite number"),
        (["--speed", "1e-9"], "--speed 1e-9: allowed"),
        (["--from", "0", "--to", "10", "--speed", "0.0001"], "at most 36000"),
        (["--size", "801x480"], "even width and height"),
    ],
)
def test_bad_options_get_one_line_and_no_file(qtbot, tmp_path: Path, capsys, extra, says) -> None:
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "x.mp4"
    args = ["video", "cfs-yield-2007", "--out", str(out), "--from", "1", "--to", "1.003", "--size", "800x480"]
    for i in range(0, len(extra), 2):  # later options win in argparse
        args += extra[i : i + 2]
    assert cli.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err
    assert list((tmp_path / "out").iterdir()) == []


def test_a_cancel_leaves_the_old_file_untouched(qtbot, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "keep.mp4"
    out.write_bytes(b"the old video")
    spec = VideoSpec(1.0, 1.003, 0.01, 10, SIZE)
    from gui.main_window import MainWindow

    with (
        offscreen_window(MainWindow, load_scenario("cfs-yield-2007"), None, SIZE) as window,
        pytest.raises(VideoCancelled),
    ):
        render_video(window, spec, out, lambda done, total: done < 2)
    assert out.read_bytes() == b"the old video"
    assert [p.name for p in out.parent.iterdir()] == ["keep.mp4"]


def test_the_window_exports_a_video_of_its_run_with_live_settings(qtbot, tmp_path: Path) -> None:
    from gui.main_window import MainWindow
    from gui.video_dialog import export_video, scenario_now

    window = MainWindow(load_scenario("cfs-yield-2007"), use_timer=False)
    qtbot.addWidget(window)
    assert window.playback.apply_live("sched.compat_yield", 1)
    assert scenario_now(window).settings()["sched.compat_yield"] == 1
    out = tmp_path / "window.mp4"
    assert export_video(window, VideoSpec(1.0, 1.002, 0.01, 10, SIZE), out)
    assert len(decoded(out)) == 2


def test_the_window_names_its_own_fields_when_it_refuses(qtbot, tmp_path: Path, monkeypatch) -> None:
    # The dialog said "--from 1 --to 1" and "--out x": options of the command line, not its fields.
    from gui.main_window import MainWindow
    from gui.video_dialog import export_video

    window = MainWindow(load_scenario("cfs-yield-2007"), use_timer=False)
    qtbot.addWidget(window)
    said: list[str] = []
    monkeypatch.setattr(window, "show_error", lambda _title, text: said.append(text))
    assert not export_video(window, VideoSpec(1.0, 1.0, 0.01, 10, SIZE), tmp_path / "a.mp4")
    assert not export_video(window, VideoSpec(1.0, 1.002, 0.01, 10, SIZE), tmp_path / "a.avi")
    assert not export_video(window, VideoSpec(0.0, 10.0, 0.0001, 60, SIZE), tmp_path / "a.mp4")
    assert said[0].startswith("From 1 To 1: allowed 0 <= from < to <= 10")
    assert said[1] == f"File {tmp_path / 'a.avi'}: unknown extension '.avi'; allowed: .mp4, .gif"
    assert said[2].endswith("shorten From/To, raise Speed or lower Frames per second")
    assert not any("--" in text for text in said)
    assert not list(tmp_path.glob("a.*"))


def test_each_frame_repaints_only_what_changed_and_looks_as_a_whole_grab_of_the_window(qtbot) -> None:
    """A second window plays the same run in lockstep and is grabbed whole every frame: the same pixels,
    while lanes, graphs and the run queue's yield landings move."""
    from PySide6.QtGui import QImage

    from gui.main_window import MainWindow

    spec = VideoSpec(1.0, 1.004, 0.01, 30, WHOLE_SIZE)  # 12 frames
    scenario = load_scenario("cfs-yield-2007")
    with (
        offscreen_window(MainWindow, scenario, None, WHOLE_SIZE) as window,
        offscreen_window(MainWindow, scenario, None, WHOLE_SIZE) as reference,
    ):
        pixels, whole = prepare(window, spec), prepare(reference, spec, whole=True)
        shown = []
        for i in range(spec.frames):
            advance_to_frame(window, spec, i)
            advance_to_frame(reference, spec, i)
            image = pixels.image().convertToFormat(QImage.Format.Format_RGB32)  # a copy
            assert image == whole.image().convertToFormat(QImage.Format.Format_RGB32), f"frame {i} differs"
            shown.append(image)
        assert pixels.from_backing_store, "every frame was grabbed whole: nothing here was checked"
    changed = sum(a != b for a, b in itertools.pairwise(shown))
    assert changed == len(shown) - 1, f"only {changed} of {len(shown) - 1} frames changed the window"


def test_the_file_does_not_depend_on_how_fast_the_frames_were_painted(qtbot, tmp_path: Path) -> None:
    """On screen a yield landing stays 4 wall seconds, then fades; in a video it stays 4 s of video.
    The run queue panel keeps its wall clock as ``_clock``: here it stands still in one render and
    jumps a minute at every reading in the other, and the files are the same."""
    from PySide6.QtWidgets import QWidget

    from gui.main_window import MainWindow

    spec = VideoSpec(1.0, 1.004, 0.01, 30, WHOLE_SIZE)  # yields land in this span (the 2007 story)
    files = []
    for step_s in (0.0, 60.0):
        ticks = itertools.count()
        out = tmp_path / f"wall-{step_s:g}.mp4"
        with offscreen_window(MainWindow, load_scenario("cfs-yield-2007"), None, WHOLE_SIZE) as window:
            clocks = [w for w in window.findChildren(QWidget) if callable(getattr(w, "_clock", None))]
            assert clocks, "no panel keeps a wall clock any more: this test checks nothing"
            for widget in clocks:
                widget._clock = lambda ticks=ticks, step_s=step_s: next(ticks) * step_s
            render_video(window, spec, out)
        files.append(out.read_bytes())
    assert files[0] == files[1]


def test_a_gif_keeps_the_windows_colours(qtbot, tmp_path: Path) -> None:
    # FFmpeg's fixed 3-3-2 palette with error diffusion drew the 2011 story's vermilion "since the
    # change" line yellow and streaked dots through the text; the clip's own palette keeps each colour.
    from gui.draw import palette

    status, out = video(tmp_path, "run.gif")
    assert status == 0
    frame = decoded(out)[0].reshape(-1, 3).astype(int)
    vermilion = palette.VERMILLION
    exact = (frame == [vermilion.red(), vermilion.green(), vermilion.blue()]).all(axis=1)
    assert exact.sum() > 50, "the graph's 'since the change' line in its own colour"
    colours = {tuple(c) for c in frame}
    assert len(colours) <= 256


def test_a_gif_colour_first_seen_after_the_first_frame_keeps_its_shade(qapp) -> None:
    # The palette came from the first frame alone: a CPU colour or the line a setting's change starts,
    # first drawn later in the clip, took the nearest of the first frame's colours.
    from PySide6.QtGui import QColor, QImage, QPainter

    from gui.draw import palette
    from gui.video_encode import GifPalette

    def picture(fill: QColor | None) -> QImage:
        image = QImage(120, 80, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(QColor("#FFFFFF"))
        p = QPainter(image)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        for k in range(40):  # the first frame's own shades: a grey ramp
            p.fillRect(3 * k, 0, 3, 20, QColor(6 * k, 6 * k, 6 * k))
        if fill is not None:
            p.fillRect(10, 40, 60, 30, fill)
        p.end()
        return image

    gif = GifPalette()
    gif.frame(picture(None))
    later = gif.frame(picture(palette.REDDISH_PURPLE)).to_ndarray(format="rgb24")
    c = palette.REDDISH_PURPLE
    assert (later[55, 40] == [c.red(), c.green(), c.blue()]).all(), later[55, 40]
