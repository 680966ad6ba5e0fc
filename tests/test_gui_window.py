"""The window driven like a class would drive it, frame by frame with a fake clock (the timer stays off).

Controls are clicked through widget methods and each test asserts what reached the model
(``playback.simulation``, the snapshots). A seeded random-input test fires thousands of commands and
then checks that nothing raised and the model's invariants held in every frame.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from fakes import TWO_CPUS
from PySide6.QtCore import QRectF, QSettings, QSize, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox, QTextBrowser, QWidget
from qt_guard import leak_guard, temp_settings  # noqa: F401 - autouse fixtures

import model
from gui.draw.layout_plan import plan_layout
from gui.main_window import MainWindow
from gui.panels.controls import why_disabled, wrapped
from gui.panels.status import status_text
from gui.panels.time_controls import format_sim_time, slider_to_speed, speed_label, speed_to_slider
from gui.playback import (
    FRAME_WORK_S,
    MAX_FRAME_SIM_NS,
    MIN_FRAME_SIM_NS,
    SPEED_MAX,
    SPEED_MIN,
    SPEED_NORMAL,
    Playback,
    next_budget_ns,
)
from gui.window_export import export_targets
from gui.window_settings import last_story
from model.scenario import builtin_names, key_specs, load_scenario, parse_scenario
from model.simulation import Simulation
from model.snapshot import Snapshot

FRAME = 1 / 60


@pytest.fixture
def make_window(qtbot, temp_settings):  # noqa: F811 - the autouse fixture imported above
    def make(name: str = "cfs-yield-2007", settings: QSettings | None = None, **kw) -> MainWindow:
        scenario = load_scenario(name) if name in builtin_names() else parse_scenario(name, "two-cpus.toml")
        w = MainWindow(scenario, settings=settings or temp_settings, use_timer=False, **kw)
        qtbot.addWidget(w)
        return w

    return make


@pytest.fixture
def window(make_window) -> MainWindow:
    w = make_window()
    w.playback.play()
    return w


def frames(w: MainWindow, n: int, dt: float = FRAME) -> Snapshot:
    snap = None
    for _ in range(n):
        snap = w.playback.tick(dt)
    assert snap is not None
    return snap


# ---- the clock ---------------------------------------------------------------------------------


def test_tick_advances_speed_times_wall_time(window: MainWindow) -> None:
    assert not window.playback.timer_active  # the tests are the clock
    window.playback.set_speed(1 / 100)
    snap = window.playback.tick(0.05)
    assert snap is not None and snap.t_ns == 500_000
    assert "500.000 µs" in window.time_controls.time_text.text()


def test_fractions_of_a_nanosecond_carry_over(window: MainWindow) -> None:
    window.playback.set_speed(SPEED_MIN)
    for _ in range(600):
        window.playback.tick(FRAME)
    assert window.playback.simulation.now_ns == pytest.approx(1_000_000, abs=1)


def test_paused_tick_does_nothing(window: MainWindow) -> None:
    window.playback.pause()
    assert window.playback.tick(1.0) is None
    assert window.playback.simulation.now_ns == 0


def test_one_frame_never_does_unbounded_work(window: MainWindow) -> None:
    window.playback.set_speed(SPEED_MAX)
    snap = window.playback.tick(10.0)  # a frame that stalled for 10 s
    assert snap is not None and snap.t_ns <= MAX_FRAME_SIM_NS


def test_slow_frames_shrink_the_next_frames_work() -> None:
    assert next_budget_ns(MAX_FRAME_SIM_NS, 100_000_000, FRAME_WORK_S * 4) == 25_000_000
    assert next_budget_ns(20_000, 20_000, 1.0) == MIN_FRAME_SIM_NS
    assert next_budget_ns(10_000_000, 10_000_000, 0.001) == 15_000_000  # quick and capped: grow
    assert next_budget_ns(10_000_000, 1_000, 0.001) == 10_000_000  # not capped: stay
    assert next_budget_ns(10_000_000, 10_000_000, FRAME_WORK_S * 0.8) == 12_500_000  # grow to the aim


def test_adaptive_cap_with_a_slow_model(qtbot) -> None:
    clock = [0.0]

    def fake_clock() -> float:
        clock[0] += 0.05  # every advance seems to take 50 ms of wall time
        return clock[0]

    pb = Playback(load_scenario("cfs-yield-2007"), use_timer=False, clock=fake_clock)
    pb.set_speed(SPEED_MAX)
    pb.play()
    pb.tick(FRAME)
    first = pb.simulation.now_ns
    pb.tick(FRAME)
    assert pb.simulation.now_ns - first < first / 4  # the second frame asked for far less
    assert pb.limited


def test_speed_mapping_is_readable() -> None:
    assert speed_label(1 / 100) == "1/100 of real time"
    assert speed_label(SPEED_MIN) == "1/10000 of real time"
    assert speed_label(1.0) == "real time"
    assert speed_label(SPEED_MAX) == "10× real time"
    assert speed_label(1 / 2512) == "1/2500 of real time"
    for speed in (SPEED_MIN, 1 / 1000, SPEED_NORMAL, 1.0, SPEED_MAX):
        assert slider_to_speed(speed_to_slider(speed)) == pytest.approx(speed)
    assert format_sim_time(12_345) == "12.345 µs"
    assert format_sim_time(2_500_000_000) == "2.500 000 s"


def test_speed_presets_and_slider_reach_the_playback(window: MainWindow) -> None:
    tc = window.time_controls
    tc.choose_preset("Fast")
    assert window.playback.speed == 1.0 and tc.speed_text.text() == "real time"
    tc.slider.setValue(speed_to_slider(1 / 1000))
    assert window.playback.speed == pytest.approx(1 / 1000)
    assert tc.radios["Slow"].isChecked()
    tc.slider.setValue(0)
    assert window.playback.speed == pytest.approx(SPEED_MIN)
    assert not any(r.isChecked() for r in tc.radios.values())


# ---- keys and buttons --------------------------------------------------------------------------


def activate(window: MainWindow, qtbot) -> None:
    """Window shortcuts fire only in the active window."""
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


def test_space_right_and_r(window: MainWindow, qtbot) -> None:
    activate(window, qtbot)
    frames(window, 5)
    qtbot.keyClick(window, Qt.Key.Key_Space)
    assert not window.playback.playing and "Play" in window.time_controls.play_button.text()
    before = window.playback.simulation.now_ns
    qtbot.keyClick(window, Qt.Key.Key_Right)
    assert window.playback.simulation.now_ns > before
    assert window.time_controls.event_text.toolTip().startswith("Step: at t = ")
    qtbot.keyClick(window, Qt.Key.Key_R)
    assert window.playback.simulation.now_ns == 0
    qtbot.keyClick(window, Qt.Key.Key_Space)
    assert window.playback.playing and "Pause" in window.time_controls.play_button.text()


def test_step_pauses_runs_to_the_next_event_and_says_what_it_was(window: MainWindow) -> None:
    frames(window, 5)
    before = window.playback.simulation.now_ns
    with_records = window.playback.simulation.machine.trace.appended
    window.time_controls.step_button.click()
    assert not window.playback.playing
    snap = window.playback.last_snapshot
    assert snap is not None and snap.t_ns > before and snap.events
    assert window.playback.simulation.machine.trace.appended > with_records
    # The words name what the records say: the first record's event and time.
    text = window.time_controls.event_text.toolTip()
    assert text.startswith("Step: at t = ") and ("CPU 0" in text or "iperf" in text)
    # The same instant reached by a plain advance is the same state: a step stops at a clean instant.
    plain = Simulation(window.playback.scenario)
    plain.advance(snap.t_ns)
    assert plain.snapshot().tasks == window.playback.simulation.snapshot().tasks


def test_shortcut_sheet_on_question_mark(window: MainWindow, qtbot, monkeypatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr(QDialog, "exec", lambda d: shown.append(d.findChild(QTextBrowser).toPlainText()) or 0)
    activate(window, qtbot)
    qtbot.keyClick(window, Qt.Key.Key_Question)
    assert shown and "Space" in shown[0] and "Reset All" in shown[0] and "Escape" in shown[0]
    assert "Shift+drag" in shown[0] and "Click a task" in shown[0]  # the mouse's gestures too


@pytest.mark.parametrize("room", [(1280, 720), (1366, 768), (800, 600)])
def test_the_shortcut_sheet_fits_the_screen(window: MainWindow, room) -> None:
    # At 14 pt in one column the sheet was taller than a 1366x768 screen, its last menus off the bottom.
    # It now puts the menus in two columns where they fit side by side, and scrolls where nothing fits.
    from gui.window_menus import shortcut_sheet

    sheet = shortcut_sheet(window, QSize(*room))
    sheet.show()
    text = sheet.findChild(QTextBrowser)
    assert sheet.width() <= room[0] and sheet.height() <= room[1], sheet.size()
    assert text.horizontalScrollBar().maximum() == 0  # never sideways
    if room[1] >= 720:  # a classroom screen: all of it at once
        assert text.verticalScrollBar().maximum() == 0, text.verticalScrollBar().maximum()
        assert text.toHtml().count("<table") >= 3  # side by side: the outer table and a column's each
    assert {"File", "Playback", "View", "Lesson", "Help", "Keyboard"} <= set(text.toPlainText().split())
    sheet.close()


def test_about_says_how_the_model_runs(window: MainWindow, monkeypatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "about", lambda parent, title, text: shown.append(text))
    about = next(a for a in window.menuBar().actions()[-1].menu().actions() if a.text() == "About schedlab")
    about.trigger()
    expected = "compiled with mypyc" if model.NATIVE else "from its Python sources"
    assert shown and "<h3>schedlab " in shown[0] and expected in shown[0]


# ---- controls reach the model ------------------------------------------------------------------


def test_compat_yield_toggle_is_live(window: MainWindow) -> None:
    frames(window, 30)
    sim, t = window.playback.simulation, window.playback.simulation.now_ns
    window.controls.checks["sched.compat_yield"].click()
    assert window.playback.simulation is sim  # live: the same run goes on
    assert sim.settings()["sched.compat_yield"] == 1
    snap = frames(window, 1)
    assert snap.toggles[-1] == (t, "sched.compat_yield", 1)
    assert "sched_compat_yield = 1" in window.status_label.text()
    assert "rightmost" in window.explainer.now_label.text()


def test_restart_settings_keep_seed_speed_and_play_state(make_window) -> None:
    w = make_window()
    w.playback.load(load_scenario("cfs-yield-2007"), seed=7)
    w.playback.play()
    w.time_controls.choose_preset("Slow")
    frames(w, 20)
    w.controls.checks["sched.compat_yield"].click()
    w.controls.radios["sched.policy"]["cfs-2.6.24"].click()
    sim = w.playback.simulation
    assert sim.scenario.sched.policy == "cfs-2.6.24" and sim.now_ns == 0
    assert sim.seed == 7 and w.playback.speed == pytest.approx(1 / 1000) and w.playback.playing
    assert sim.settings()["sched.compat_yield"] == 1  # the live setting carried over
    w.controls.radios["iperf.thread_rest"]["fixed"].click()
    assert w.playback.simulation.scenario.iperf.thread_rest == "fixed"
    w.controls.cpus_spin.setValue(2)
    snap = frames(w, 1)
    assert len(snap.cpus) == 2 and w.playback.seed == 7


def test_o1_has_no_compat_yield_switch(window: MainWindow) -> None:
    window.controls.radios["sched.policy"]["o1"].click()
    assert window.playback.simulation.scenario.sched.policy == "o1"
    assert not window.controls.is_enabled("sched.compat_yield")
    tip = window.controls.tooltip("sched.compat_yield")
    assert "CFS: Linux 2.6.23, CFS: Linux 2.6.24" in tip and "O(1): Linux 2.6.22 has none" in tip
    assert "does nothing" in tip
    assert "expired array" in window.explainer.now_label.text()


def test_eevdf_yield_semantics_and_run_to_parity_come_from_the_registry(window: MainWindow) -> None:
    """Declared only in model/sched/eevdf.py, the two EEVDF tunables get controls, live commands, the
    "Now:" line and the status line."""
    ctl = window.controls
    assert not ctl.is_enabled("sched.yield_forfeit") and not ctl.is_enabled("sched.run_to_parity")
    ctl.radios["sched.policy"]["eevdf"].click()
    sim = window.playback.simulation
    assert ctl.is_enabled("sched.yield_forfeit") and ctl.is_enabled("sched.run_to_parity")
    assert "applies at once" in ctl.tooltip("sched.yield_forfeit")
    assert ctl.shown("sched.yield_forfeit") == 1 and "6.17+" in window.explainer.now_label.text()
    frames(window, 5)
    ctl.radios["sched.yield_forfeit"][0].click()
    assert window.playback.simulation is sim and sim.policy.yield_forfeit is False  # type: ignore[attr-defined]
    assert "6.6–6.16" in window.explainer.now_label.text()
    assert "sched_yield(): 6.6–6.16" in window.status_label.text()
    ctl.checks["sched.run_to_parity"].click()
    assert sim.policy.run_to_parity is False  # type: ignore[attr-defined]
    assert [k for _, k, _ in sim.toggles] == ["sched.yield_forfeit", "sched.run_to_parity"]
    assert not ctl.is_enabled("sched.compat_yield")


def test_a_control_is_not_set_back_by_the_value_it_sent(window: MainWindow) -> None:
    shown: list[str] = []
    for key, control in window.controls._controls.items():
        real = control.show
        control.show = lambda v, key=key, real=real: (shown.append(key), real(v))  # type: ignore[assignment]
    window.controls.checks["sched.compat_yield"].click()
    frames(window, 2)
    assert window.playback.simulation.settings()["sched.compat_yield"] == 1
    assert shown == []  # the checkbox already shows 1: settings flowed down without touching it
    window.playback.apply_live("sched.compat_yield", 0)  # a change from elsewhere does reach it
    assert shown == ["sched.compat_yield"] and window.controls.shown("sched.compat_yield") == 0


def test_a_setting_and_its_value_stay_on_one_line(window: MainWindow) -> None:
    # A narrow column (File > Export of the controls: 307 px) broke "sched_compat_yield =" from its "1".
    check = window.controls.checks["sched.compat_yield"]
    for width in (60, 120, 205):
        lines = wrapped("sched_compat_yield = 1\n(a yield goes to the back)", check, width).split("\n")
        assert lines[0] == "sched_compat_yield = 1", width
        assert all(line for line in lines)  # and the rest still wraps between its words
    assert len(wrapped("a yield goes to the back", check, 60).split("\n")) > 1


def test_control_ranges_are_the_models(window: MainWindow) -> None:
    specs = key_specs()
    for key in ("qdisc.weight_p", "net.udelay_us", "machine.cpus"):
        spin = window.controls.spins[key]
        assert (spin.minimum(), spin.maximum()) == (specs[key].lo, specs[key].hi), key
    assert window.controls.spins["qdisc.weight_p"].maximum() == 100_000


def test_controls_that_do_not_apply_are_disabled_with_a_reason(window: MainWindow) -> None:
    ctl = window.controls
    assert ctl.is_enabled("sched.policy") and ctl.is_enabled("iperf.thread_rest")
    assert ctl.is_enabled("sched.compat_yield") and "applies at once" in ctl.tooltip("sched.compat_yield")
    assert "restarts the run" in ctl.tooltip("sched.policy")
    for key in ("qdisc.exit_rule", "qdisc.weight_p", "net.udelay_us"):
        assert not ctl.is_enabled(key) and ctl.tooltip(key).startswith("Not available: ")
    settings = load_scenario("cfs-yield-2007").settings()
    assert why_disabled("net.udelay_us", settings | {"iperf.mode": "server"}) is None
    assert "no iperf client" in str(why_disabled("iperf.thread_rest", settings | {"iperf.enabled": False}))


def test_story_picker_loads_a_story(window: MainWindow, temp_settings) -> None:  # noqa: F811
    others = [n for n in builtin_names() if n != "cfs-yield-2007"]
    if not others:
        pytest.skip("only one built-in story")
    combo = window.controls.story_combo
    index = combo.findData(others[0])
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    assert window.playback.scenario.name == others[0] and window.playback.playing
    assert temp_settings.value("last_story") == others[0]
    assert window.explainer.lesson_name == others[0]


def test_the_story_list_shows_every_title_whole_and_the_box_elides_the_one_picked(window: MainWindow) -> None:
    # The titles were cut to the settings column's width in the list too ("2009: a saturated ipe…").
    combo = window.controls.story_combo
    titles = [combo.itemText(i) for i in range(combo.count())]
    assert "because its threads poll with sched_yield()" in " ".join(titles)  # the items hold whole titles
    fm = combo.view().fontMetrics()
    assert max(fm.horizontalAdvance(t) for t in titles) > combo.width()  # which the box cannot hold
    combo.showPopup()
    try:
        assert combo.view().width() >= max(fm.horizontalAdvance(t) for t in titles)
    finally:
        combo.hidePopup()
    combo.setCurrentIndex(combo.findData("qdisc-fairness-2011"))
    shown = combo.shown_text()
    assert shown.endswith("…") and combo.currentText().startswith(shown[:-1])
    assert combo.fontMetrics().horizontalAdvance(shown) <= combo.field_width()


def test_bad_restart_value_is_a_dialog_and_the_run_goes_on(window: MainWindow, monkeypatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr(window, "show_error", lambda title, message: shown.append(message))
    frames(window, 10)
    sim, t = window.playback.simulation, window.playback.simulation.now_ns
    window.playback.restart_with({"machine.cpus": 0})
    assert shown and "machine.cpus" in shown[0]
    assert window.playback.simulation is sim and sim.now_ns == t
    assert window.controls.cpus_spin.value() == 1  # the controls show what really runs
    window.playback.apply_live("sched.policy", "o1")
    assert "not a live setting" in shown[-1]
    # A value of the wrong kind is a dialog too (SetTunable raised a TypeError at a float).
    assert not window.playback.apply_live("sched.compat_yield", 1.0)
    assert shown[-1] == "sched.compat_yield = 1.0; allowed: 0, 1"
    assert window.playback.simulation is sim and sim.now_ns == t


def test_an_unanswered_dialog_fails_a_test_at_once(window: MainWindow) -> None:
    # The suite's guard (tests/conftest.py): a real modal would wait for a click until the timeout.
    with pytest.raises(AssertionError, match="Cannot open this story: nope"):
        window.show_error("Cannot open this story", "nope")


def test_opening_a_malformed_scenario_shows_a_dialog(window: MainWindow, tmp_path: Path, monkeypatch) -> None:
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append((box.windowTitle(), box.text())))
    frames(window, 10)
    sim, t = window.playback.simulation, window.playback.simulation.now_ns
    bad = tmp_path / "bad.toml"
    bad.write_text("[machine]\ncpus = 'many'\n", encoding="utf-8")
    assert not window.open_scenario_file(str(bad))
    broken = tmp_path / "broken.toml"
    broken.write_text("[scenario\n", encoding="utf-8")
    assert not window.open_scenario_file(str(broken))
    assert not window.open_scenario_file(str(tmp_path / "missing.toml"))
    impossible = tmp_path / "impossible.toml"
    impossible.write_text("[net]\nirq_cpus = [3]\n", encoding="utf-8")  # well formed, 1 CPU
    assert not window.open_scenario_file(str(impossible))
    assert [t for t, _ in shown] == ["Cannot open this scenario"] * 4  # the CPU rule is checked on loading
    assert "net.irq_cpus" in shown[3][1]
    assert (
        "machine.cpus" in shown[0][1] and "malformed TOML" in shown[1][1] and "does not exist" in shown[2][1]
    )
    assert window.playback.simulation is sim and frames(window, 1).t_ns > t


def test_a_user_scenario_file_opens_with_its_description(window: MainWindow, tmp_path: Path) -> None:
    path = tmp_path / "two.toml"
    path.write_text(TWO_CPUS, encoding="utf-8")
    assert window.open_scenario_file(str(path))
    assert window.playback.scenario.name == "two-cpus"
    assert "A small machine for the tests." in window.explainer.lesson_text()
    assert window.controls.story_combo.currentText().startswith("file: ")
    assert not window.controls.is_enabled("iperf.thread_rest")
    assert len(frames(window, 3).cpus) == 2


def test_window_remembers_size_and_story(make_window, temp_settings) -> None:  # noqa: F811
    w = make_window()
    w.resize(1111, 555)
    w.show()
    w.close()
    assert temp_settings.value("last_story") == "cfs-yield-2007"
    w2 = make_window()
    # Restoring clamps a window to its screen (800 px wide offscreen); the height fits and comes back.
    screen = QApplication.primaryScreen().availableGeometry()
    assert w2.height() == 555 and 700 < w2.width() <= screen.width()
    assert last_story(temp_settings) == "cfs-yield-2007"
    temp_settings.setValue("last_story", "no-such-story")
    assert last_story(temp_settings) == "cfs-yield-2007"


def test_status_line_names_the_key_settings() -> None:
    settings = load_scenario("cfs-yield-2007").settings()
    text = status_text(dict(settings), 1)
    assert "CFS: Linux 2.6.23" in text and "sched_compat_yield = 0" in text and "seed 1" in text
    assert "RUN_TO_PARITY" not in text  # EEVDF's, not this policy's
    assert "qdisc exit rule" not in text
    assert "sched_compat_yield" not in status_text(dict(settings), 1, yields=False)
    assert "qdisc exit rule: quota" in status_text(
        {"qdisc.exit_rule": "quota", "qdisc.weight_p": 64}, 2, True
    )


def test_model_failure_in_a_timer_frame_is_a_signal(window: MainWindow, qtbot, monkeypatch) -> None:
    class Broken:  # the real simulation but for advance(); a wrapper, as compiled classes are sealed
        def __init__(self, real: object) -> None:
            self._real = real

        def __getattr__(self, name: str) -> object:
            return getattr(self._real, name)

        def run_to(self, t_ns: int, rule: object = None) -> bool:
            raise RuntimeError("broken model")

    monkeypatch.setattr(window.playback.live, "sim", Broken(window.playback.simulation))
    monkeypatch.setattr(window, "show_error", lambda title, message: None)
    with qtbot.waitSignal(window.playback.error) as blocker:
        window.playback._on_timeout()
    assert "broken model" in blocker.args[0] and not window.playback.playing


# ---- random input ------------------------------------------------------------------------------


def check_invariants(snap: Snapshot, last_t: int) -> None:
    assert snap.t_ns >= last_t, "simulated time went backwards"
    running = snap.cpu_curr[snap.cpu_curr > 0]
    assert len(set(running.tolist())) == len(running), "a task is on two CPUs"
    on_cpu = {t.tid: t.cpu for t in snap.tasks if t.state == "running"}
    for cpu, tid in enumerate(snap.cpu_curr.tolist()):
        if tid:
            assert on_cpu.get(tid) == cpu


def test_random_input_fuzz(make_window, tmp_path: Path, monkeypatch) -> None:
    errors: list[str] = []
    w = make_window()
    monkeypatch.setattr(w, "show_error", lambda title, message: errors.append(message))
    user_file = tmp_path / "two.toml"
    user_file.write_text(TWO_CPUS, encoding="utf-8")
    rng = random.Random(20070926)
    pb, ctl = w.playback, w.controls
    last_t = [0]
    pb.restarted.connect(lambda _sc: last_t.__setitem__(0, 0))

    def on_snapshot(snap: Snapshot) -> None:
        check_invariants(snap, last_t[0])
        last_t[0] = snap.t_ns

    pb.snapshot_ready.connect(on_snapshot)
    actions = [
        (30, lambda: pb.tick(rng.uniform(0, FRAME))),
        (6, lambda: w.time_controls.play_action.trigger()),
        (8, lambda: w.time_controls.step_action.trigger()),
        (1, lambda: w.time_controls.reset_action.trigger()),
        (6, lambda: w.time_controls.slider.setValue(rng.randint(0, w.time_controls.slider.maximum()))),
        (3, lambda: w.time_controls.choose_preset(rng.choice(["Slow", "Normal", "Fast"]))),
        (8, lambda: ctl.checks["sched.compat_yield"].click()),
        (1, lambda: rng.choice(list(ctl.radios["sched.policy"].values())).click()),
        (1, lambda: rng.choice(list(ctl.radios["iperf.thread_rest"].values())).click()),
        (1, lambda: rng.choice(list(ctl.radios["qdisc.exit_rule"].values())).click()),
        (1, lambda: ctl.weight_spin.isEnabled() and ctl.weight_spin.setValue(rng.randint(1, 256))),
        (0.3, lambda: ctl.cpus_spin.setValue(rng.randint(1, 4))),
        (0.3, lambda: w.choose_story(rng.choice(builtin_names()))),
        (0.3, lambda: w.open_scenario_file(str(user_file))),
        (2, lambda: pb.apply_live("sched.compat_yield", rng.choice([0, 1, 2]))),
    ]
    weights = [a[0] for a in actions]
    for _ in range(2000):
        rng.choices(actions, weights)[0][1]()
    pb.play()
    frames(w, 5)
    # Only refused input may complain: compat_yield = 2, a CPU count the senders do not fit.
    assert all("allowed" in e or "need" in e for e in errors), errors
    assert pb.simulation.now_ns == last_t[0]


# ---- what the screen shows ---------------------------------------------------------------------


def _not_blank(image: QImage) -> bool:
    colors = {
        QColor(image.pixel(x, y)).name()
        for x in range(0, image.width(), 5)
        for y in range(0, image.height(), 5)
    }
    return len(colors) > 3


@pytest.mark.parametrize("story", ["cfs-yield-2007", TWO_CPUS])
def test_screenshots_of_every_panel(make_window, story: str) -> None:
    w = make_window(story)
    w.resize(1400, 900)
    w.show()
    w.playback.play()
    w.playback.set_speed(1 / 10)
    frames(w, 40)
    whole = w.grab()
    assert (whole.width(), whole.height()) == (1400, 900)
    assert _not_blank(whole.toImage())
    parts: dict[str, QWidget] = {**w.panels, "Explainer": w.explainer, "Controls": w.controls}
    parts["Time controls"] = w.time_controls
    for name, panel in parts.items():
        if panel.isHidden():
            continue
        shot = panel.grab()
        assert shot.size() == panel.size() and panel.width() > 100 and panel.height() > 40, name
        assert _not_blank(shot.toImage()), f"{name} is blank"


def test_qdisc_tab_only_with_a_qdisc(make_window) -> None:
    w = make_window()
    assert frames_or_refresh(w).qdisc is None
    assert w.frame.middle.indexOf(w.qdisc) < 0 and "Qdisc" not in export_targets(w)
    if "qdisc-fairness-2011" not in builtin_names():
        pytest.skip("no qdisc story yet")
    assert w.choose_story("qdisc-fairness-2011")
    assert w.playback.last_snapshot is not None and w.playback.last_snapshot.qdisc is not None
    assert w.frame.middle.currentWidget() is w.qdisc and "Qdisc" in export_targets(w)
    assert w.controls.is_enabled("qdisc.exit_rule") and w.controls.is_enabled("qdisc.weight_p")
    w.controls.radios["qdisc.exit_rule"]["quota"].click()
    w.controls.weight_spin.setValue(16)
    assert w.playback.simulation.settings()["qdisc.exit_rule"] == "quota"
    assert w.playback.simulation.settings()["qdisc.weight_p"] == 16
    assert [k for _, k, _ in w.playback.simulation.toggles] == ["qdisc.exit_rule", "qdisc.weight_p"]
    w.choose_story("cfs-yield-2007")
    assert w.frame.middle.indexOf(w.qdisc) < 0 and w.frame.middle.currentWidget() is w.runqueue


def frames_or_refresh(w: MainWindow) -> Snapshot:
    return w.playback.refresh()


def test_panels_forget_their_history_on_restart(window: MainWindow, monkeypatch) -> None:
    resets: list[str] = []
    for name, panel in window.panels.items():
        monkeypatch.setattr(panel, "reset", lambda n=name: resets.append(n))
    window.playback.reset()
    assert sorted(resets) == sorted(window.panels)
    assert window.playback.last_snapshot is not None and window.playback.last_snapshot.t_ns == 0


def test_void_calls_and_emits_do_not_use_up_none_or_true(qtbot) -> None:
    # PySide6 6.12.0 on CPython 3.11 drops a reference to None per void call and to True per emit();
    # gui.pyside_fix must keep a long session alive (here: far more calls than None had references).
    from gui import pyside_fix

    w = QWidget()
    qtbot.addWidget(w)
    pb = Playback(load_scenario("cfs-yield-2007"), use_timer=False)
    pyside_fix.install()
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(20_000):
        w.update()
        pb.speed_changed.emit(1.0)
    # Either PySide6 keeps its references (6.11, or 3.12+), or the guard made the singletons immortal.
    assert sys.getrefcount(None) > none_before - 1_000
    assert sys.getrefcount(True) > true_before - 1_000


def test_the_panel_behind_a_tab_catches_up_when_brought_to_the_front(make_window, monkeypatch) -> None:
    w = make_window("qdisc-fairness-2011")
    w.show()
    w.playback.play()
    frames(w, 2)  # the qdisc tab comes to the front, the run queues go behind it
    rendered: list[int] = []
    monkeypatch.setattr(w.runqueue, "render", lambda snap: rendered.append(snap.t_ns))
    last = frames(w, 3)
    assert rendered == []  # hidden: no work per frame
    w.frame.middle.setCurrentWidget(w.runqueue)
    assert rendered == [last.t_ns]  # shown: the latest snapshot at once


def test_the_layout_plan_keeps_every_lane_in_a_short_window() -> None:
    tall = plan_layout(1920, 980, lanes_needed=120, lanes_hint=378, qdisc=True)
    assert tall.wide and tall.stacked and tall.lanes_h == 220  # the usual ceiling over a qdisc
    assert tall.lanes_h + sum(tall.lower) == 980
    short = plan_layout(1280, 600, lanes_needed=226, lanes_hint=378, qdisc=True)
    assert not short.wide and not short.stacked
    assert short.lanes_h == 226  # every CPU's lane, though it is more than the short window's share
    assert sum(short.lower) == short.columns[1] and min(short.lower) > 0
    assert short.lanes_legend  # 226 px of lanes leave the panels below their least height


def test_a_stage_too_short_for_lanes_and_panels_folds_the_lanes_legend() -> None:
    roomy = plan_layout(1280, 560, lanes_needed=250, lanes_hint=400, qdisc=False, lanes_legend_h=60)
    assert roomy.lanes_legend and roomy.lanes_h == 250  # 250 + 262 fit in 560
    tight = plan_layout(1280, 480, lanes_needed=250, lanes_hint=400, qdisc=False, lanes_legend_h=60)
    assert not tight.lanes_legend and tight.lanes_h == 190  # the legend's 60 px go below
    no_legend = plan_layout(1280, 480, lanes_needed=250, lanes_hint=400, qdisc=False)
    assert no_legend.lanes_legend and no_legend.lanes_h == 250  # nothing to fold: the lanes keep it all


def test_a_stage_too_short_even_without_the_legend_lets_idle_cpus_share_a_lane() -> None:
    merge = (120, 200)  # what the lanes need and like with the legend out and the idle CPUs merged
    folded = plan_layout(1280, 480, lanes_needed=250, lanes_hint=400, qdisc=False, lanes_legend_h=60)
    assert not folded.lanes_merged  # 190 + 262 fit in 480: folding the legend was enough
    short = plan_layout(
        1280, 420, lanes_needed=250, lanes_hint=400, qdisc=False, lanes_legend_h=60, lanes_merged=merge
    )
    assert not short.lanes_legend and short.lanes_merged and short.lanes_h == 126  # 30 % of 420
    nothing = plan_layout(1280, 420, lanes_needed=250, lanes_hint=400, qdisc=False, lanes_legend_h=60)
    assert not nothing.lanes_merged and nothing.lanes_h == 190  # no idle CPUs: every lane stays


def test_a_stage_short_even_after_the_lanes_folds_the_headline_caption() -> None:
    args = {"lanes_needed": 250, "lanes_hint": 400, "qdisc": False, "lanes_legend_h": 60}
    roomy = plan_layout(1280, 480, **args, caption_h=25)
    assert roomy.caption  # 190 + 262 fit in 480: the lanes' legend was enough
    short = plan_layout(1280, 420, **args, caption_h=25)
    assert not short.lanes_legend and not short.caption  # 190 + 262 > 420: the caption's line goes too
    assert short.lanes_h + sum(short.lower) > 0
    beside = plan_layout(1280, 420, **args)
    assert beside.caption  # a caption beside the tiles costs no line: nothing to fold


def test_a_stage_short_even_without_the_caption_makes_the_headline_and_lanes_compact() -> None:
    args = {"lanes_needed": 250, "lanes_hint": 400, "qdisc": False, "lanes_legend_h": 60}
    folded = plan_layout(1280, 430, **args, caption_h=25, compact_h=60)
    assert not folded.caption and not folded.compact  # 190 + 262 <= 430 + 25: the caption was enough
    short = plan_layout(1280, 380, **args, caption_h=25, compact_h=60)
    assert not short.caption and short.compact  # 190 + 262 > 380 + 25: the tiles and lanes go compact
    assert short.lanes_h == 190 and sum(short.lower) == short.columns[1]
    beside = plan_layout(1280, 380, **args, compact_h=60)
    assert beside.compact and not beside.caption  # a caption beside the tiles goes with them
    nothing = plan_layout(1280, 380, **args, caption_h=25, compact_h=25)
    assert not nothing.compact  # compact tiles saving no more than the caption's fold: not worth it
    lanes = plan_layout(1280, 380, **args, caption_h=25, compact_h=25, lanes_compact=170)
    assert lanes.compact and lanes.lanes_h == 170  # compact lanes: what they save goes below
    assert plan_layout(1280, 380, **args, compact_h=60, lanes_compact=170).lanes_h == 170


# ---- the first frame before the graphs ------------------------------------------------------------


def test_the_graphs_placeholder_takes_the_graphs_room() -> None:
    from gui.panels.graphs import GraphsPanel
    from gui.panels.graphs_placeholder import GraphsPlaceholder

    graphs, slot = GraphsPanel(), GraphsPlaceholder(SPEED_NORMAL)
    assert slot.sizeHint() == graphs.sizeHint()
    assert slot.minimumSizeHint() == graphs.minimumSizeHint()
    assert slot.sizePolicy() == graphs.sizePolicy()
    graphs.deleteLater()
    slot.deleteLater()


def test_the_first_frame_is_painted_before_the_graphs_are_built(make_window) -> None:
    w = make_window("qdisc-fairness-2011", defer_graphs=True)
    w.resize(1280, 720)
    w.playback.play()
    frames(w, 3)  # snapshots before the graphs exist: the placeholder keeps the latest
    w.show()
    assert w._graphs is None  # nothing built before the first paint
    slot = w.panels["Graphs"]
    w.repaint()  # the first frame, painted with the placeholder
    slot_rect = slot.geometry()
    assert w._graphs is None  # built after the frame, by a zero timer
    for _ in range(50):
        QApplication.processEvents()
        if w._graphs is not None:
            break
    graphs = w._graphs
    assert graphs is not None and w.panels["Graphs"] is graphs
    assert graphs.geometry() == slot_rect  # the same room: nothing else moved
    assert graphs.shown  # it drew the latest snapshot at once


def test_the_window_module_does_not_load_pyqtgraph() -> None:
    import subprocess

    code = "import sys, gui.main_window; sys.exit('pyqtgraph' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


@pytest.mark.parametrize("story", ["cfs-yield-2007", "qdisc-fairness-2011"])
def test_frames_that_repaint_only_what_changed_look_like_a_full_repaint(make_window, story: str) -> None:
    # Panels repaint parts of themselves (the lanes below their legend); what the screen holds after
    # many such frames must be what painting the whole window at once gives.
    w = make_window(story)
    w.resize(1280, 720)
    w.show()
    while not w.windowHandle().isExposed():
        QApplication.processEvents()
    w.playback.advance_to(500_000_000)
    w.playback.play()
    for _ in range(40):
        w.playback.tick(1 / 30)
        QApplication.sendPostedEvents(None, 0)
        w.repaint(0, 0, 1, 1)  # paints every pending update, as the event loop would
    stored = w.backingStore().paintDevice()
    assert isinstance(stored, QImage) and stored.size() == w.size()
    rgb = QImage.Format.Format_RGB32
    assert stored.convertToFormat(rgb) == w.grab().toImage().convertToFormat(rgb)


def test_a_run_that_cannot_be_parked_says_why_going_back_is_slow(window: MainWindow) -> None:
    # Such a run (a plug-in policy holding a lambda, say) keeps no checkpoints, so every landing
    # replays from t = 0: slower, the same run. The window once said nothing about it.
    frames(window, 30)
    window.playback.rewinder.unparkable = "a lambda or closure in the state"
    window.playback.seek(window.playback.simulation.now_ns // 2)
    message = window.statusBar().currentMessage()
    assert "replays this run from its start" in message and "lambda" in message, message


@pytest.mark.parametrize("story", ["cfs-yield-2007", "qdisc-fairness-2011"])
def test_a_wide_window_made_narrow_and_wide_again_moves_its_settings(make_window, qtbot, story) -> None:
    # From 1920x1080 to 1280x720 the settings move from their own column to a tab beside the lesson.
    # Moved inside the resize event, they left the body's splitter a null child: the 2007 story's
    # window crashed in its next layout (a segfault in qSmartMinSize).
    w = make_window(story)
    w.resize(1920, 1080)
    w.show()
    qtbot.waitExposed(w)
    w.playback.play()
    frames(w, 3)
    settings = w.frame.settings_scroll
    for size, wide in (((1280, 720), False), ((1920, 1080), True), ((1280, 720), False)):
        w.resize(*size)
        qtbot.wait(20)  # the column change waits for the event loop
        assert w.frame.plan is not None and w.frame.plan.wide is wide
        assert (w.frame.side.indexOf(settings) < 0) is wide
        assert (w.frame.body.indexOf(settings) >= 0) is wide
        assert all(w.frame.body.widget(i) is not None for i in range(w.frame.body.count()))
        frames(w, 2)
        w.grab()


def test_a_lesson_highlight_follows_the_settings_to_their_tab(make_window, qtbot) -> None:
    # The change of columns waits for the event loop: the highlight is placed again after it, so a
    # framed setting is framed on its tab (the tab's name) and not where its column used to be.
    w = make_window()
    w.resize(1920, 1080)
    w.show()
    qtbot.waitExposed(w)
    w.show_highlight(("setting:sched.compat_yield",))
    (wide,) = w.highlight.rects
    w.resize(1280, 720)
    qtbot.wait(20)
    assert w.frame.plan is not None and not w.frame.plan.wide
    (narrow,) = w.highlight.rects
    side = w.frame.side
    tab = side.tabBar().tabRect(side.indexOf(w.frame.settings_scroll))
    top_left = side.tabBar().mapTo(w.centralWidget(), tab.topLeft())
    assert narrow == QRectF(tab).translated(top_left.x() - tab.x(), top_left.y() - tab.y()), narrow
    assert narrow != wide


def _framed_rect(w: MainWindow, widget: QWidget) -> QRectF:
    top_left = widget.mapTo(w.centralWidget(), widget.rect().topLeft())
    return QRectF(widget.rect()).translated(top_left.x(), top_left.y())


def test_a_lesson_highlight_follows_its_panel_when_it_moves_inside_the_window(make_window, qtbot) -> None:
    # The window is not resized: the teacher drags the splitter between the side column and the stage
    # to the right, and the framed headline moves right with the stage.
    w = make_window()
    w.resize(1366, 768)
    w.show()
    qtbot.waitExposed(w)
    qtbot.wait(50)  # the first layout settles
    w.show_highlight(("headline",))
    (before,) = w.highlight.rects
    assert before == _framed_rect(w, w.headline)
    sizes = w.frame.body.sizes()
    w.frame.body.setSizes([sizes[0] + 80, sizes[1] - 80])
    qtbot.wait(20)
    (after,) = w.highlight.rects
    assert after == _framed_rect(w, w.headline)
    assert after.x() > before.x() + 40, (before, after)


def test_a_framed_panel_behind_a_tab_the_class_chose_stays_behind_it(make_window, qtbot) -> None:
    # The step frames the qdisc; the teacher opens the run-queue tab: the tab stays open (the frames
    # follow, they do not pull the qdisc back), the frame goes with the qdisc and comes back with it.
    w = make_window("qdisc-fairness-2011")
    w.resize(1366, 768)
    w.show()
    qtbot.waitExposed(w)
    qtbot.wait(50)
    w.show_highlight(("qdisc",))
    assert w.frame.middle.currentWidget() is w.qdisc
    assert w.highlight.rects == [_framed_rect(w, w.qdisc)]
    w.frame.middle.setCurrentWidget(w.runqueue)
    qtbot.wait(20)
    assert w.frame.middle.currentWidget() is w.runqueue
    assert w.highlight.rects == []
    w.frame.middle.setCurrentWidget(w.qdisc)
    qtbot.wait(20)
    assert w.highlight.rects == [_framed_rect(w, w.qdisc)]


@pytest.mark.parametrize("cpus", [2, 4, 7])
def test_each_sender_wears_the_colour_of_its_cpu(make_window, cpus) -> None:
    # The qdisc panel, the headline's tiles and the dequeue graph colour each CPU (palette.cpu_color);
    # the lanes and the run queues colour each task. sender.N runs alone on CPU N, so the two agree:
    # cpu1's orange packets in the band are sender.1's orange lane, though ksoftirqd/0..N-1 came first.
    from gui.draw import palette
    from gui.draw.lane_brushes import code_brush

    w = make_window("qdisc-fairness-2011")
    w.controls.cpus_spin.setValue(cpus)
    w.playback.play()
    snap = frames(w, 2)
    senders = [t for t in snap.tasks if t.role == "sender"]
    assert [t.cpu for t in senders] == list(range(cpus))
    assert all(t.tid < senders[0].tid for t in snap.tasks if t.role == "ksoftirqd")
    for task in senders:
        brush = code_brush(task.tid)
        assert brush.color() == palette.cpu_color(task.cpu), task.name
        assert brush.style() == Qt.BrushStyle.SolidPattern, task.name

    def look(tid: int) -> tuple[str, Qt.BrushStyle]:
        return code_brush(tid).color().name(), code_brush(tid).style()

    kernel = {look(t.tid) for t in snap.tasks if t.role == "ksoftirqd"}
    assert len(kernel) == cpus and not kernel & {look(t.tid) for t in senders}


def test_a_lesson_frame_covers_none_of_the_framed_part(qtbot) -> None:
    # The frame was drawn inside the framed panel, its halo over the qdisc panel's "Exit rule" line
    # and the ring's "160 / 2048". It now runs just outside the part (inside the window's edge).
    from gui.panels.highlight import HighlightOverlay

    host = QWidget()
    qtbot.addWidget(host)
    host.resize(400, 300)
    overlay = HighlightOverlay(host)
    part = QRectF(100, 80, 200, 120)
    overlay.show_rects([part, QRectF(0, 0, 400, 60)])  # the second meets the window's edges
    image = QImage(host.size(), QImage.Format.Format_ARGB32)
    image.fill(QColor(0, 0, 0, 0))
    overlay.render(image)
    inner = part.adjusted(1, 1, -1, -1).toRect()
    touched = [
        (x, y)
        for x in range(inner.left(), inner.right() + 1)
        for y in range(inner.top(), inner.bottom() + 1)
        if image.pixelColor(x, y).alpha()
        and min(x - inner.left(), inner.right() - x) + min(y - inner.top(), inner.bottom() - y) > 6
    ]  # the rounded corners aside
    assert not touched, touched[:5]
    ring = [image.pixelColor(x, 80 - 3) for x in range(110, 290)]  # just above the part: the dashes
    assert sum(c.red() > 150 and c.green() < 130 and c.alpha() > 200 for c in ring) > 40
    edge = [image.pixelColor(200, y) for y in range(0, 6)]  # the top edge's frame is drawn, pulled in
    assert any(c.alpha() > 200 for c in edge)


def test_a_framed_graph_is_framed_round_the_more_button_it_meets(make_window, qtbot) -> None:
    # The 2009 lesson frames the bandwidth graph; the frame's right edge ran through "More ▾".
    w = make_window("bfs-saturated-2009")
    w.resize(1366, 768)
    w.show()
    qtbot.waitExposed(w)
    w.finish_startup()
    qtbot.wait(50)
    chooser = w.graphs.grid._chooser
    assert chooser.isVisible()  # not every graph fits at this size
    w.show_highlight(("graph:bandwidth",))
    (framed,) = w.highlight.rects
    top_left = chooser.mapTo(w.centralWidget(), chooser.rect().topLeft())
    button = QRectF(chooser.rect()).translated(top_left.x(), top_left.y())
    assert framed.contains(button), (framed, button)


def test_the_settings_words_follow_their_column_and_not_its_least_width(qtbot) -> None:
    # The settings broke their words at 205 px in a column of 330: "sched_compat_yield =" / "1" /
    # "(a yield goes to the" / "back)". They now follow the width the column has, and the column's
    # least width stays what the standard line width needs, so that it can narrow again.
    from gui.panels.controls import ControlsPanel

    panel = ControlsPanel()
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    least = panel.minimumSizeHint().width()
    check = panel.checks["sched.compat_yield"]
    panel.resize(least, 900)
    narrow_lines = check.text().count("\n") + 1
    panel.resize(least + 160, 900)
    wide_lines = check.text().count("\n") + 1
    assert wide_lines < narrow_lines, (narrow_lines, check.text())
    assert check.text().splitlines()[0] == "sched_compat_yield = 1"
    assert panel.minimumSizeHint().width() == least
    panel.resize(least, 900)
    assert check.text().count("\n") + 1 == narrow_lines
    assert max(w.sizeHint().width() for w in panel.findChildren(QWidget) if w.isVisibleTo(panel)) <= least


def test_a_step_passes_over_the_stretches_of_an_open_interrupt_context() -> None:
    # The 2011 transmit path's softirqs and NAPI interrupts are traced stretch by stretch, dozens a
    # millisecond: a step stops at the story's events (the dequeuer's turns), and names a stretch,
    # where it is asked to, by what ran and for how long.
    from gui.draw.step_words import describe_step, happened_ns, phrase
    from model.snapshot import IrqRecord, TenureRecord

    soft = IrqRecord(1_000_000, 3, 0, 2_500, open_context=True)
    assert happened_ns(soft) == 1_002_500
    assert phrase(soft, {}, str) == "CPU 3 ran 2.5 µs in softirq"
    assert (
        phrase(IrqRecord(1_000_000, 1, 1_500, 0, open_context=True), {}, str) == "CPU 1 ran 1.5 µs in hardirq"
    )
    tenure = TenureRecord(900_000, 0, 100_000, 64, "quota")
    words = describe_step([soft, tenure], 1_002_500, {}, str)
    assert words.endswith("CPU 0 stopped dequeuing after 64 packets: its packet quota was used up"), words
    assert describe_step([soft], 1_002_500, {}, str).startswith("Step: nothing happened")


def test_a_click_on_a_task_follows_it_in_the_lanes_and_the_run_queue(window: MainWindow, qtbot) -> None:
    # The lanes and the run queue said which task was clicked, and nothing listened: a click did nothing.
    snap = frames(window, 30)
    data = next(t.tid for t in snap.tasks if t.name == "iperf-data")
    lanes = window.cpu_lanes
    with qtbot.waitSignal(lanes.task_clicked):
        lanes.task_clicked.emit(data)
    assert lanes.followed == data and window.runqueue.followed == data
    assert window.statusBar().currentMessage() == "Following iperf-data: click it again to stop"
    window.runqueue.task_clicked.emit(data)  # the task followed, clicked again: stop
    assert lanes.followed == 0 and window.runqueue.followed == 0
    lanes.task_clicked.emit(data)
    window.playback.reset()  # a new run: its tasks are not the old ones
    assert lanes.followed == 0 and window.runqueue.followed == 0


def test_escape_clears_the_interval_and_the_task_followed(window: MainWindow, qtbot) -> None:
    from gui.draw.lane_measure import Interval

    frames(window, 30)
    window.cpu_lanes.set_measured(Interval(1_000_000, 2_000_000))
    window.follow_task(1)
    assert window.cpu_lanes.measured is not None and window.runqueue.followed == 1
    activate(window, qtbot)
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert window.cpu_lanes.measured is None
    assert window.cpu_lanes.followed == 0 and window.runqueue.followed == 0


def _scenario_files(tmp_path: Path, *names: str) -> list[Path]:
    out = []
    for name in names:
        path = tmp_path / "files" / f"{name}.toml"
        path.parent.mkdir(exist_ok=True)
        story = Path(model.__file__).parent.parent / "resources" / "scenarios" / "yield-playground.toml"
        path.write_text(story.read_text().replace('name = "yield-playground"', f'name = "{name}"'))
        out.append(path)
    return out


def test_open_recent_lists_the_files_opened_latest_first(make_window, tmp_path: Path) -> None:
    from gui.window_menus import fill_recent

    w = make_window()
    first, second = _scenario_files(tmp_path, "first", "second")
    menu = next(a for a in w.menuBar().actions() if a.text() == "&File").menu()
    recent = next(a for a in menu.actions() if a.text() == "Open recent").menu()

    def listed() -> list[str]:
        fill_recent(w, recent)
        return [a.text().split("   ")[0] for a in recent.actions() if not a.isSeparator()]

    assert listed() == ["No scenario files yet"]
    assert w.open_scenario_file(str(first)) and w.open_scenario_file(str(second))
    assert w.open_scenario_file(str(first))  # listed once, and first again
    assert listed() == ["first.toml", "second.toml", "Clear the list"]
    assert f"({first.parent})" in recent.actions()[0].text()
    recent.actions()[1].trigger()
    assert w.playback.scenario.name == "second" and listed()[:2] == ["second.toml", "first.toml"]
    second.unlink()  # a deleted file drops out
    assert listed() == ["first.toml", "Clear the list"]
    recent.actions()[-1].trigger()
    assert listed() == ["No scenario files yet"]


def test_a_scenario_file_dropped_on_the_window_opens(make_window, tmp_path: Path, qtbot) -> None:
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent

    w = make_window()
    (dropped,) = _scenario_files(tmp_path, "dropped")
    text = tmp_path / "notes.txt"
    text.write_text("not a scenario")
    for path, wanted in ((text, False), (dropped, True)):
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(str(path))])
        enter = QDragEnterEvent(
            w.rect().center(),
            Qt.DropAction.CopyAction,
            mime,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
        )
        w.dragEnterEvent(enter)
        assert enter.isAccepted() is wanted, path
        drop = QDropEvent(
            QPointF(w.rect().center()), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
        )  # fmt: skip
        w.dropEvent(drop)
    qtbot.waitUntil(lambda: w.playback.scenario.name == "dropped", timeout=2000)


def test_an_rt_app_workload_opens_in_the_window_as_on_the_command_line(make_window, tmp_path: Path) -> None:
    """File ▸ Open scenario… (and a drop) take an rt-app JSON workload, as ``schedlab run`` does; it read
    it as TOML and refused it ("malformed TOML")."""
    from gui.file_dialogs import SCENARIO_FILTER

    workload = tmp_path / "video.json"
    workload.write_text(
        '{"tasks": {"video": {"run": 3000, "timer": {"ref": "t", "period": 16000}}, "hog": {"run": 10000}}}'
    )
    w = make_window()
    assert w.open_scenario_file(str(workload))
    assert [t.name for t in w.playback.scenario.tasks] == ["video", "hog"]
    assert "*.json" in SCENARIO_FILTER
