"""Bad input in the window: a plain-text dialog, the run goes on, nothing lost, nothing blocks.

A FIFO offered as a scenario, exports to places that cannot take them (a FIFO, a folder, a read-only
file, a disk that fills mid-write), a key that looks like HTML, user files that pose as a built-in
story or point their name outside ``resources/``, and a file dialog over a folder with a FIFO in it.
A FIFO also tells whether anything opened it: opening its write end without blocking succeeds only
while a reader holds it open, so a test can ask, without hanging, whether the window tried to read.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import struct
import tempfile
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QFileInfo, Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox
from qt_guard import leak_guard, temp_settings  # noqa: F401 - autouse fixtures

from gui.file_dialogs import FileTypeIconProvider, file_dialog
from gui.main_window import MainWindow
from gui.window_export import export_to
from model.cli import outputs
from model.scenario import load_scenario

FRAME = 1 / 60
LESSON_2011 = "RUNNING token"  # words of the 2011 story's built-in lesson


@pytest.fixture
def window(qtbot, temp_settings):  # noqa: F811 - the autouse fixture imported above
    w = MainWindow(load_scenario("yield-playground"), settings=temp_settings, use_timer=False)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    w.playback.play()
    for _ in range(5):
        w.playback.tick(FRAME)
    return w


@pytest.fixture(autouse=True)
def dialogs(monkeypatch: pytest.MonkeyPatch) -> list[QMessageBox]:
    """Every message box the window would show, instead of showing it (its text format kept): no
    test here ever waits on a modal dialog."""
    shown: list[QMessageBox] = []

    def capture(box: QMessageBox) -> int:
        shown.append(box)
        return int(QMessageBox.StandardButton.Ok)

    monkeypatch.setattr(QMessageBox, "exec", capture)
    return shown


def reader_holds(fifo: Path) -> bool:
    """Whether some reader has ``fifo`` open now (and, if so, let it go by writing nothing and closing)."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        assert exc.errno == errno.ENXIO  # no reader: what the window should leave it
        return False
    os.close(fd)
    return True


def still_running(w: MainWindow) -> None:
    t = w.playback.simulation.now_ns
    for _ in range(3):
        w.playback.tick(FRAME)
    assert w.playback.simulation.now_ns > t and w.playback.playing


def test_a_fifo_as_scenario_is_a_dialog_and_never_read(window, dialogs, tmp_path: Path) -> None:
    fifo = tmp_path / "x.toml"
    os.mkfifo(fifo)
    sim = window.playback.simulation
    assert not window.open_scenario_file(str(fifo))
    assert [b.windowTitle() for b in dialogs] == ["Cannot open this scenario"]
    assert "FIFO" in dialogs[0].text() and "not a regular file" in dialogs[0].text()
    assert not reader_holds(fifo)
    assert window.playback.simulation is sim
    still_running(window)


def test_a_key_that_looks_like_html_is_shown_as_text(window, dialogs, tmp_path: Path) -> None:
    markup = '<h1>big</h1><img src="x.png">'
    bad = tmp_path / "html.toml"
    bad.write_text(f"[machine]\n'{markup}' = 1\n", encoding="utf-8")
    assert not window.open_scenario_file(str(bad))
    box = dialogs[0]
    assert box.textFormat() == Qt.TextFormat.PlainText
    assert markup in box.text() and "\n" not in box.text()
    still_running(window)


def test_control_characters_are_escaped_in_the_dialog(window, dialogs, tmp_path: Path) -> None:
    bad = tmp_path / "esc.toml"
    bad.write_text('[machine]\n"a\\nb\\u001b[31m" = 1\n', encoding="utf-8")
    assert not window.open_scenario_file(str(bad))
    text = dialogs[0].text()
    assert "a\\nb\\x1b[31m" in text and "\x1b" not in text and "\n" not in text


@pytest.mark.parametrize("target", ["pipe.png", "folder.png", "readonly.png", "nowhere/x.png", "x.gif"])
def test_export_to_a_place_that_cannot_take_it(window, dialogs, tmp_path: Path, target: str) -> None:
    os.mkfifo(tmp_path / "pipe.png")
    (tmp_path / "folder.png").mkdir()
    (tmp_path / "readonly.png").write_bytes(b"old")
    (tmp_path / "readonly.png").chmod(0o444)
    before = sorted(os.listdir(tmp_path))
    assert not export_to(window, "Whole window", str(tmp_path / target))
    assert [b.windowTitle() for b in dialogs] == ["Export failed"]
    assert dialogs[0].textFormat() == Qt.TextFormat.PlainText and target.split("/")[-1] in dialogs[0].text()
    assert sorted(os.listdir(tmp_path)) == before and (tmp_path / "readonly.png").read_bytes() == b"old"
    assert not reader_holds(tmp_path / "pipe.png")
    still_running(window)


def test_export_on_a_full_disk_keeps_the_old_picture(window, dialogs, tmp_path: Path, monkeypatch) -> None:
    real = outputs._temporary_file

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def write(self, data: bytes) -> int:
            self.fh.write(data[:1000])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name):
            return getattr(self.fh, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    monkeypatch.setattr(
        outputs, "_temporary_file", lambda path, what: (lambda fp: (Full(fp[0]), fp[1]))(real(path, what))
    )
    shots = tmp_path / "shots"
    shots.mkdir()
    old = shots / "shot.png"
    old.write_bytes(b"the picture from before")
    assert not export_to(window, "Whole window", str(old))
    assert "No space left on device" in dialogs[0].text()
    assert old.read_bytes() == b"the picture from before" and os.listdir(shots) == ["shot.png"]
    still_running(window)


def test_a_user_file_never_borrows_a_lesson(window, dialogs, tmp_path: Path) -> None:
    from gui.panels.explainer import LESSON_DIR

    outside = Path(tempfile.mkdtemp(prefix="x", dir="/tmp"))  # short: a name has at most 64 characters
    try:
        (outside / "evil.html").write_text("<h1>EVIL LESSON</h1>", encoding="utf-8")
        (outside / "evil.md").write_bytes(b"\xff\xfe not UTF-8")
        escape = "../" * len(LESSON_DIR.resolve().parts[1:]) + str(outside / "evil").lstrip("/")
        assert (LESSON_DIR / f"{escape}.html").resolve() == (outside / "evil.html").resolve()
        for name in ("qdisc-fairness-2011", escape):
            path = tmp_path / "user.toml"
            path.write_text(f'[scenario]\nname = "{name}"\ndescription = "mine"\n[[tasks]]\nname = "h"\n')
            assert window.open_scenario_file(str(path)), dialogs[-1].text() if dialogs else name
            text = window.explainer.lesson_text()
            assert "mine" in text and "EVIL" not in text and LESSON_2011 not in text, name
    finally:
        shutil.rmtree(outside)


def test_a_built_in_opened_by_its_path_keeps_its_lesson(window) -> None:
    from model.scenario import SCENARIO_DIR

    assert window.open_scenario_file(str(SCENARIO_DIR / "qdisc-fairness-2011.toml"))
    assert window.playback.scenario.builtin == "qdisc-fairness-2011"
    assert LESSON_2011 in window.explainer.lesson_text()


class Opens:
    """The files opened in a folder, as inotify reports them (IN_OPEN): who opened them does not
    matter, as nothing but the dialog looks at the test's folder."""

    IN_OPEN, IN_NONBLOCK = 0x20, 0o4000

    def __init__(self, folder: Path) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(self.IN_NONBLOCK)
        if self.fd < 0 or self.libc.inotify_add_watch(self.fd, str(folder).encode(), self.IN_OPEN) < 0:
            pytest.skip("inotify is not available")

    def names(self) -> set[str]:
        out: set[str] = set()
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return out
            while data:
                _, _, _, size = struct.unpack_from("iIII", data)
                name = data[16 : 16 + size].rstrip(b"\0").decode()
                if name:
                    out.add(name)
                data = data[16 + size :]

    def close(self) -> None:
        os.close(self.fd)


@pytest.mark.parametrize("filter_", ["Scenario files (*.toml)", "All files (*)"])
def test_the_file_dialog_lists_files_without_opening_them(
    window, qtbot, tmp_path: Path, filter_: str
) -> None:
    folder = tmp_path / "listed"
    folder.mkdir()
    os.mkfifo(folder / "x.toml")
    (folder / "y.toml").write_text("[scenario]\n", encoding="utf-8")
    (folder / "kmsg").write_text("a file whose type only its content could tell\n", encoding="utf-8")
    opens = Opens(folder)
    try:
        dialog = file_dialog(window, "Open scenario", filter_)
        assert dialog.testOption(QFileDialog.Option.DontUseNativeDialog)
        assert isinstance(dialog.iconProvider(), FileTypeIconProvider)
        dialog.setDirectory(str(folder))
        dialog.setViewMode(QFileDialog.ViewMode.Detail)
        dialog.show()
        qtbot.wait(800)  # the listing, its icons and its Type column
        dialog.close()
        dialog.deleteLater()
        assert opens.names() == set()
        assert not reader_holds(folder / "x.toml")
    finally:
        opens.close()


def test_the_icon_provider_never_opens_a_file(tmp_path: Path) -> None:
    fifo = tmp_path / "x.toml"
    os.mkfifo(fifo)
    provider = FileTypeIconProvider()
    done = threading.Event()

    def unblock_if_stuck() -> None:  # a blocked open() of the FIFO returns once a writer comes
        if not done.wait(10):
            reader_holds(fifo)

    threading.Thread(target=unblock_if_stuck, daemon=True).start()
    info = QFileInfo(str(fifo))
    assert provider.type(info) == "Special file"
    assert not provider.icon(info).isNull()
    assert provider.type(QFileInfo(str(tmp_path))) == "Folder"
    done.set()
    assert not reader_holds(fifo)


@pytest.mark.parametrize("typed", ["", ".", "/", "shots/"])
def test_the_export_dialogs_format_change_leaves_a_nameless_path_alone(qtbot, typed: str) -> None:
    """A format chosen after the file box was emptied (or holds a folder) raised ValueError ("PosixPath('.')
    has an empty name") in a slot; a name in the box still takes the new format's extension."""
    from gui.figure_dialog import FigureDialog

    window = MainWindow(load_scenario("cfs-yield-2007"), use_timer=False)
    qtbot.addWidget(window)
    dialog = FigureDialog(window, ["window"], "schedlab-x", window.settings)
    qtbot.addWidget(dialog)
    dialog.path.setText(typed)
    dialog.format.setCurrentIndex((dialog.format.currentIndex() + 1) % dialog.format.count())
    assert dialog.path.text() == typed
    other = ".svg" if dialog.suffix() != ".svg" else ".pdf"
    dialog.path.setText("/tmp/figure.png")
    dialog.format.setCurrentIndex(dialog.format.findData(other))
    assert dialog.path.text() == f"/tmp/figure{other}"
