"""Videos of a run (gui.video): frame by frame from the model, deterministic, atomic, bounded, cancellable."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest
from qt_guard import leak_guard, temp_settings  # noqa: F401 - autouse fixtures

from gui.video import VideoCancelled, VideoSpec, offscreen_window, render_video
from model import cli
from model.scenario import load_scenario

SIZE = (800, 480)  # small and even: quick, and H.264 needs even sides


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
        (["--speed", "1e-9"], "--speed 1e-09: allowed"),
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
