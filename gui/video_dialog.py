"""File ▸ Export video…: the window's side of ``gui.video``.

The video is of this run's scenario and seed with the settings as they are now (live toggles
included), rendered from the model in an offscreen copy of the window at the chosen size, so the run
on screen is not disturbed and the file is the same as ``schedlab video`` with those settings writes.
A progress dialog shows the frames done and cancels; a cancel or an error leaves no file behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QProgressDialog,
    QPushButton,
    QSpinBox,
    QWidget,
)

from gui.file_dialogs import chosen_path, file_dialog
from gui.playback import SPEED_FAST, SPEED_MAX, SPEED_MIN, SPEED_NORMAL, SPEED_SLOW
from gui.video import (
    FIELD_NAMES,
    FPS_RANGE,
    VideoCancelled,
    VideoSpec,
    check_out,
    check_spec,
    offscreen_window,
)
from gui.video import render_video as render
from model.scenario import Scenario, ScenarioError
from model.simulation import LIVE_KEYS

SIZES = ("1280x720", "1920x1080", "3840x2160")
SPEEDS = (("Slow (1/1000)", SPEED_SLOW), ("Normal (1/100)", SPEED_NORMAL), ("Fast (real time)", SPEED_FAST))


class VideoDialog(QDialog):
    """Span, speed, frame rate, size and file of a video; remembers the folder and format."""

    def __init__(self, parent: QWidget, duration_s: float, now_s: float, settings: Any) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export video")
        self._settings = settings
        form = QFormLayout(self)
        self.start = self._seconds(duration_s, max(0.0, min(now_s, duration_s) - 0.1))
        self.end = self._seconds(duration_s, min(duration_s, self.start.value() + 0.1))
        self.speed = QComboBox()
        for label, speed in SPEEDS:
            self.speed.addItem(label, speed)
        self.speed.setCurrentIndex(1)
        self.fps = QSpinBox()
        self.fps.setRange(*FPS_RANGE)
        self.fps.setValue(30)
        self.size_box = QComboBox()
        self.size_box.addItems(SIZES)
        folder = str(settings.value("video/folder", str(Path.home())))
        suffix = str(settings.value("video/suffix", ".mp4"))
        self.path = QLineEdit(str(Path(folder) / f"schedlab{suffix}"))
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        form.addRow("From (simulated s)", self.start)
        form.addRow("To (simulated s)", self.end)
        form.addRow("Speed", self.speed)
        form.addRow("Frames per second", self.fps)
        form.addRow("Size", self.size_box)
        form.addRow("File (.mp4 or .gif)", row)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    @staticmethod
    def _seconds(duration_s: float, value: float) -> QDoubleSpinBox:
        box = QDoubleSpinBox()
        box.setDecimals(3)
        box.setRange(0.0, duration_s)
        box.setSingleStep(0.01)
        box.setValue(value)
        return box

    def _browse(self) -> None:
        path, _ = chosen_path(
            file_dialog(
                self, "Video file", "MP4 video (*.mp4);;GIF animation (*.gif)", save_as=self.path.text()
            )
        )
        if path:
            self.path.setText(path if Path(path).suffix else path + ".mp4")

    def spec(self) -> VideoSpec:
        w, _, h = self.size_box.currentText().partition("x")
        speed = float(self.speed.currentData())
        return VideoSpec(
            self.start.value(),
            self.end.value(),
            min(SPEED_MAX, max(SPEED_MIN, speed)),
            self.fps.value(),
            (int(w), int(h)),
        )

    def remember(self) -> None:
        path = Path(self.path.text())
        self._settings.setValue("video/folder", str(path.parent))
        self._settings.setValue("video/suffix", path.suffix.lower() or ".mp4")


def scenario_now(window: Any) -> Scenario:
    """This run's scenario with the live settings as they are now."""
    playback = window.playback
    live = {k: v for k, v in playback.simulation.settings().items() if k in LIVE_KEYS}
    scenario: Scenario = playback.scenario.with_overrides(live)
    return scenario


def export_video(window: Any, spec: VideoSpec, out: Path) -> bool:
    """Render ``spec`` of the window's run to ``out`` with a progress dialog; a dialog on failure."""
    scenario = scenario_now(window)
    try:
        check_spec(spec, scenario.duration_s, FIELD_NAMES)  # the dialog's words, not the command's options
        check_out(out, name=FIELD_NAMES["out"])
    except ScenarioError as exc:
        window.show_error("Cannot export this video", str(exc))
        return False
    dialog = QProgressDialog("Rendering video…", "Cancel", 0, spec.frames, window)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(0)
    was_playing = window.playback.playing
    window.playback.pause()

    def progress(done: int, total: int) -> bool:
        dialog.setValue(done)
        dialog.setLabelText(f"Rendering video… frame {done} of {total}")
        QApplication.processEvents()
        return not dialog.wasCanceled()

    try:
        with offscreen_window(type(window), scenario, window.playback.seed, spec.size) as copy:
            frames = render(copy, spec, out, progress, FIELD_NAMES)
    except VideoCancelled:
        window.statusBar().showMessage("Video cancelled; nothing written", 5000)
        return False
    except ScenarioError as exc:
        window.show_error("Cannot export this video", str(exc))
        return False
    finally:
        dialog.close()
        if was_playing:
            window.playback.play()
    window.statusBar().showMessage(f"Exported {frames} frames to {out}", 5000)
    return True


def video_dialog(window: Any) -> None:
    sim = window.playback.simulation
    dialog = VideoDialog(window, window.playback.scenario.duration_s, sim.now_ns / 1e9, window.settings)
    if dialog.exec() == QDialog.DialogCode.Accepted:
        dialog.remember()
        export_video(window, dialog.spec(), Path(dialog.path.text()))
