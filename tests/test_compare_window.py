"""The window's Compare: sides on one clock, the differences as the command line words them, live toggles
to one side or all."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from PySide6.QtWidgets import QMessageBox
from qt_guard import leak_guard, temp_settings  # noqa: F401 - autouse fixtures

from gui.compare_dialog import CompareDialog, applicable_presets, open_compare
from gui.compare_window import CompareWindow
from gui.panels.time_controls import format_sim_time
from model.compare import Lockstep, Side, differences
from model.presets import PRESETS
from model.scenario import load_scenario

FRAME_NS = 330_000  # one frame at Normal speed (33 ms of wall time is 0.33 ms of the machine)


def test_sides_advance_together_and_the_numbers_are_the_command_lines(qtbot) -> None:
    scenario = load_scenario("cfs-yield-2007")
    sides = PRESETS["compat-yield"].sides
    window = CompareWindow(scenario, sides, use_timer=False)
    qtbot.addWidget(window)
    for _ in range(60):
        snaps = window.advance(FRAME_NS)
    assert len({s.t_ns for s in snaps}) == 1 and snaps[0].t_ns == 60 * FRAME_NS
    assert window.time_label.text() == f"t = {format_sim_time(60 * FRAME_NS)}"  # the main window's clock
    headless = Lockstep(scenario, sides)
    headless.advance(60 * FRAME_NS)
    expected = differences(headless.summaries(), ["A", "B"])
    text = window.headline_text()
    for diff in expected:
        assert diff.texts[0] in text
    bandwidth = {d.metric.path: d for d in expected}["bandwidth_mbps"]
    assert bandwidth.values[1] > bandwidth.values[0], "compat_yield 1 should out-run 0 here"
    for curve in window.graph.curves:
        x, y = curve.getData()
        assert x is not None and len(x) > 5 and np.isfinite(y).all()


def test_the_2011_pair_draws_fairness_and_a_live_toggle_goes_to_one_side(qtbot) -> None:
    window = CompareWindow(
        load_scenario("qdisc-fairness-2011"), PRESETS["time-vs-quota"].sides, use_timer=False
    )
    qtbot.addWidget(window)
    window.advance(5 * FRAME_NS)
    assert window.graph_kind() == "jain"
    assert window.apply("qdisc.weight_p", 8, side=1)
    a, b = window.snapshots
    assert a.settings["qdisc.weight_p"] == 64 and b.settings["qdisc.weight_p"] == 8
    assert window.apply("qdisc.weight_p", 16)
    assert {s.settings["qdisc.weight_p"] for s in window.snapshots} == {16}


def test_the_headline_states_each_value_once(qtbot) -> None:
    # The 2011 pair's Jain line read "Jain: A 0.57   B 0.98   (Jain 0.57 → 0.98)".
    window = CompareWindow(
        load_scenario("qdisc-fairness-2011"), PRESETS["time-vs-quota"].sides, use_timer=False
    )
    qtbot.addWidget(window)
    window.advance(20 * FRAME_NS)
    lines = window.headline_text().splitlines()
    jain = [line for line in lines if line.startswith("Jain:")]
    assert len(jain) == 1, lines
    diffs = {d.metric.path: d for d in differences(window.lockstep.summaries(), ["A", "B"])}
    a, b = diffs["fairness_jain"].values
    assert jain[0].split() == ["Jain:", "A", f"{a:.2f}", "B", f"{b:.2f}"], jain
    # Each CPU's share of the dequeues, per side, on one line (the command line gives each a row).
    shares = [line for line in lines if line.startswith("dequeues per CPU")]
    assert len(shares) == 1, lines
    per_side = [
        "/".join(f"{diffs[f'qdisc.per_cpu_dequeue_shares.{cpu}'].values[side]:.0f}" for cpu in range(4))
        for side in (0, 1)
    ]
    assert shares[0] == f"dequeues per CPU (cpu0–cpu3): A {per_side[0]} %   B {per_side[1]} %"
    assert per_side[0] != per_side[1]  # the quota evens them out
    others = [line for line in lines if not line.startswith(("Jain:", "dequeues per CPU"))]
    assert others and all("(B − A:" in line for line in others), others


def test_presets_offered_are_those_that_mean_something_here(qtbot) -> None:
    assert "time-vs-quota" not in applicable_presets(load_scenario("cfs-yield-2007"))
    assert "time-vs-quota" in applicable_presets(load_scenario("qdisc-fairness-2011"))
    assert "fixed-build" not in applicable_presets(load_scenario("qdisc-fairness-2011"))
    # a yield's meaning only where a task yields: the 2011 senders never do
    yields = {"o1-vs-cfs", "compat-yield", "bfs-yield", "eevdf-yield"}
    assert not yields & set(applicable_presets(load_scenario("qdisc-fairness-2011")))
    assert yields <= set(applicable_presets(load_scenario("yield-playground")))
    assert yields <= set(applicable_presets(load_scenario("cfs-yield-2007")))
    # the three-way comparisons where their settings act: the iperf client's build, the qdisc's rule
    assert "yield-remedies" in applicable_presets(load_scenario("cfs-yield-2007"))
    assert "yield-remedies" not in applicable_presets(load_scenario("yield-playground"))
    assert "exit-rules" in applicable_presets(load_scenario("qdisc-fairness-2011"))
    assert "exit-rules" not in applicable_presets(load_scenario("cfs-yield-2007"))


def test_the_example_setting_is_one_that_matters_in_the_story(qtbot) -> None:
    from gui.compare_dialog import custom_examples

    assert custom_examples(load_scenario("qdisc-fairness-2011")) == (
        "qdisc.exit_rule=quota",
        "qdisc.exit_rule=quota+jiffy",
    )
    assert custom_examples(load_scenario("cfs-yield-2007")) == (
        "sched.compat_yield=1",
        "iperf.thread_rest=fixed",
    )
    assert custom_examples(load_scenario("yield-playground")) == ("sched.compat_yield=1", "sched.policy=o1")
    assert custom_examples(load_scenario("bfs-saturated-2009")) == ("sched.policy=eevdf", "sched.policy=bfs")


def test_the_main_window_opens_this_run_against_the_same_with_a_setting(qtbot) -> None:
    from gui.main_window import MainWindow

    main = MainWindow(load_scenario("cfs-yield-2007"), use_timer=False)
    qtbot.addWidget(main)
    dialog = CompareDialog(main, load_scenario("cfs-yield-2007"))
    dialog.custom.setText("sched.compat_yield=1")
    dialog._custom()
    assert dialog.choice is not None
    compare = open_compare(main, dialog.choice)
    assert compare is not None
    compare._timer.stop()
    compare.advance(FRAME_NS)
    a, b = compare.snapshots
    assert a.settings["sched.compat_yield"] == 0 and b.settings["sched.compat_yield"] == 1
    dialog.custom.setText("nonsense")
    dialog._custom()
    assert "expected KEY=VALUE" in dialog.error.text()
    compare.close()


def test_a_third_side_from_the_dialog_and_enter_compares_what_the_boxes_say(qtbot) -> None:
    from PySide6.QtCore import Qt

    from gui.main_window import MainWindow

    main = MainWindow(load_scenario("cfs-yield-2007"), use_timer=False)
    qtbot.addWidget(main)
    dialog = CompareDialog(main, load_scenario("cfs-yield-2007"))
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.custom_c.setText("iperf.thread_rest=fixed")
    dialog.custom_c.setFocus()
    qtbot.keyClick(dialog.custom_c, Qt.Key.Key_Return)  # the first classic button took Enter before
    assert dialog.choice is not None
    assert [(s.label, s.settings) for s in dialog.choice] == [
        ("A", ()),
        ("B", (("sched.compat_yield", "1"),)),
        ("C", (("iperf.thread_rest", "fixed"),)),
    ]
    dialog.custom_c.setText("nonsense")
    dialog._custom()
    assert dialog.error.text().startswith("--c 'nonsense': expected KEY=VALUE"), dialog.error.text()
    # a fourth side; a D box filled in with C empty is the third side, C
    dialog.custom_c.setText("sched.policy=o1")
    dialog.custom_d.setText("sched.policy=bfs")
    dialog._custom()
    assert [s.label for s in dialog.choice] == ["A", "B", "C", "D"]
    dialog.custom_c.setText("")
    dialog._custom()
    assert [(s.label, s.settings) for s in dialog.choice][2:] == [("C", (("sched.policy", "bfs"),))]


def test_three_sides_fit_a_1280_screen_and_the_graph_keeps_its_share(qtbot) -> None:
    # Three lanes panels of 480 pixels made the window 1470 wide; and at 720 high the lanes, asking
    # for 76 px a lane, left the graph (the comparison itself) its least 180 px, 70 of them data.
    # In projector mode the lanes, asking for as much, still left it 210 px; and a side whose title
    # wrapped had its lanes lower than the others'. Where even that is short, the legends fold.
    from gui.draw import theme

    sides_3 = (*PRESETS["time-vs-quota"].sides, Side("C", (("qdisc.exit_rule", "quota+jiffy"),)))
    sides_4 = (*PRESETS["exit-rules"].sides, Side("D", (("net.device", "dummy"),)))
    cases = [
        ("standard", "exit-rules", PRESETS["exit-rules"].sides, False),
        ("standard", "four sides", sides_4, False),
        ("standard", "time-vs-quota", PRESETS["time-vs-quota"].sides, False),
        ("projector", "untitled sides", sides_3, False),
        ("large", "untitled sides", sides_3, True),
        ("large", "four sides", sides_4, True),
    ]
    try:
        for mode, name, sides, folds in cases:
            theme.set_theme(theme.make_theme(mode))
            window = CompareWindow(load_scenario("qdisc-fairness-2011"), sides, use_timer=False)
            qtbot.addWidget(window)
            window.resize(1280, 720)
            window.show()
            qtbot.waitExposed(window)
            for _ in range(20):
                window.advance(FRAME_NS)
            qtbot.wait(10)
            case = (mode, name)
            assert window.width() == 1280 and window.height() == 720, (case, window.size())
            assert len({lanes.geometry().top() for lanes in window.lanes}) == 1, case  # level
            for lanes in window.lanes:
                assert lanes.height() >= lanes.needed_height()
                assert lanes.legend_folded == folds, case
                _, strip_w = lanes._strips_x()  # logical pixels: the text size's zoom makes them larger
                # large text widens the heads' words as much: four sides leave the strips 100 pixels
                least_strip = 100 if mode == "large" else 150 if len(sides) == 4 else 170
                assert strip_w * lanes.zoom >= least_strip and lanes.head_w() >= 130, (
                    case,
                    strip_w,
                    lanes.head_w(),
                )
            # large text, three or four sides, 720 pixels: the legends folded, the lanes at their least
            least = 200 if mode == "large" else 250
            assert window.graph.view.height() >= least, (case, window.graph.view.height())
            # the graph's legend as many a row as its width holds (it was laid out for the window's
            # width before the layout, one a row: four rows under a four-sided graph, no data left)
            assert window.graph.plot.legend.rowCount <= 2, (case, window.graph.plot.legend.rowCount)
            assert window.graph.plot.getViewBox().height() >= 100, (
                case,
                window.graph.plot.getViewBox().height(),
            )
            # three or four sides: the values side by side, the differences from A in the tooltip
            changes = " − A: " in window.numbers.text()
            assert changes == (len(sides) == 2), case
            assert len(sides) == 2 or " − A: " in window.numbers.toolTip(), case
            window.close()
    finally:
        theme.set_theme(theme.make_theme("standard"))


def test_the_graph_is_the_main_windows_legend_under_the_data_and_jain_on_its_fixed_axis(qtbot) -> None:
    # The legend sat in the plot's top left, with the y axis stretched to leave it room: Jain's axis
    # ran to 1.47 (to 2.0 at small sizes), and the graph had none of the main window's sizes or floor.
    from PySide6.QtCore import QPointF

    for story, preset, title in (
        ("qdisc-fairness-2011", "time-vs-quota", "Fairness (Jain index)"),
        ("cfs-yield-2007", "compat-yield", "Bandwidth"),
    ):
        window = CompareWindow(load_scenario(story), PRESETS[preset].sides, use_timer=False)
        qtbot.addWidget(window)
        window.resize(1280, 720)
        window.show()
        qtbot.waitExposed(window)
        for _ in range(100):
            window.advance(FRAME_NS)
        item = window.graph.plot
        assert item.property("schedlab_title") == title
        view = item.getViewBox()
        data = view.mapRectToScene(view.boundingRect())
        legend = item.legend.mapRectToScene(item.legend.boundingRect())
        assert legend.height() > 0 and not legend.intersects(data), (story, legend, data)
        assert legend.top() >= data.bottom()
        points = 0
        for curve in window.graph.curves:
            xs, ys = curve.getData()
            for x, y in zip(xs, ys, strict=True):
                assert data.contains(view.mapViewToScene(QPointF(float(x), float(y)))), (story, x, y)
                points += 1
        assert points > 40
        y_low, y_high = view.viewRange()[1]
        if window.graph_kind() == "jain":
            assert (y_low, y_high) == (-0.06, 1.2)  # Jain's own range, whatever the legend
            assert window.graph.floor.isVisible() and window.graph.floor.value() == 0.25  # 1/n, n = 4 CPUs
        else:
            tops = max(float(curve.getData()[1].max()) for curve in window.graph.curves)
            assert tops <= y_high <= 2.5 * tops
            assert not window.graph.floor.isVisible()
        window.close()


def test_the_live_setting_offers_what_means_something_here_and_starts_from_its_value(
    qtbot, monkeypatch
) -> None:
    # The 2011 pair offered sched.compat_yield first, with "1" in the box whatever the setting was, and
    # took any word typed as a string of its own reading; it now offers the qdisc's settings first,
    # shows side A's value and reads the box as --set does.
    window = CompareWindow(
        load_scenario("qdisc-fairness-2011"), PRESETS["time-vs-quota"].sides, use_timer=False
    )
    qtbot.addWidget(window)
    keys = [window.key_box.itemText(i) for i in range(window.key_box.count())]
    assert keys[:2] == ["qdisc.exit_rule", "qdisc.weight_p"]
    assert keys[2:] == ["sched.compat_yield"]  # cfs-2.6.24's own tunable, and no other policy's
    assert window.value_edit.text() == "time"  # side A's rule
    window.key_box.setCurrentText("qdisc.weight_p")
    assert window.value_edit.text() == "64" and "1..100000" in window.value_edit.toolTip()
    window.value_edit.setText("8")
    window._apply_from_controls()
    assert {s.settings["qdisc.weight_p"] for s in window.snapshots} == {8}
    # A number that is not whole reads as a float: refused in a dialog (it raised a TypeError before).
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: said.append(text))
    window.value_edit.setText("0.5")
    window._apply_from_controls()
    assert said == ["qdisc.weight_p = 0.5; allowed: 1..100000"]
    # A value TOML cannot read is named as typed here, not as the command line's --set.
    window.value_edit.setText("1" * 200)
    window._apply_from_controls()
    assert len(said) == 2 and said[1].startswith("qdisc.weight_p = '1111") and "--set" not in said[1]
    assert {s.settings["qdisc.weight_p"] for s in window.snapshots} == {8}
    window2 = CompareWindow(load_scenario("cfs-yield-2007"), PRESETS["compat-yield"].sides, use_timer=False)
    qtbot.addWidget(window2)
    keys2 = [window2.key_box.itemText(i) for i in range(window2.key_box.count())]
    assert keys2 == ["sched.compat_yield"]  # no qdisc here, and CFS 2.6.23 has this one tunable


def test_runs_with_no_live_setting_open_with_the_live_row_off(qtbot) -> None:
    # O(1) on both sides of the 2007 story: no qdisc and no tunable, so nothing to offer; the window
    # failed to open (KeyError: '' from the empty key box's tooltip), found by random use.
    sides = [
        Side("A", (("sched.policy", "o1"),)),
        Side("B", (("sched.policy", "o1"), ("iperf.thread_rest", "fixed"))),
    ]
    window = CompareWindow(load_scenario("cfs-yield-2007"), sides, use_timer=False)
    qtbot.addWidget(window)
    assert window.key_box.count() == 0 and not window.key_box.isEnabled()
    assert not window.value_edit.isEnabled() and window.value_edit.text() == ""
    window.advance(FRAME_NS)  # and it runs
    assert window.lockstep.now_ns == FRAME_NS


def test_a_policy_s_setting_goes_only_to_the_sides_whose_policy_has_it(qtbot, monkeypatch) -> None:
    # O(1) against CFS 2.6.23: "to all sides" gave the O(1) side a compat_yield change that did nothing
    # but mark its graph; one side chosen that lacks it is a dialog.
    sides = [Side("A", (("sched.policy", "o1"),)), Side("B", (("sched.policy", "cfs-2.6.23"),))]
    window = CompareWindow(load_scenario("cfs-yield-2007"), sides, use_timer=False)
    qtbot.addWidget(window)
    window.advance(FRAME_NS)
    assert window.apply("sched.compat_yield", 1)
    a, b = window.lockstep.sims
    assert not a.toggles and [(k, v) for _t, k, v in b.toggles] == [("sched.compat_yield", 1)]
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: said.append(text))
    assert not window.apply("sched.compat_yield", 0, 0)
    assert said == ["sched.compat_yield means nothing under the scheduler of A (O(1): Linux 2.6.22)"]
    assert not a.toggles


def test_an_interval_or_a_task_chosen_on_one_side_is_chosen_on_every_side(qtbot) -> None:
    # The sides share one clock: an interval measured on one side's lanes measures the same instants on
    # the others, and a task followed on one is followed on all.
    from PySide6.QtCore import QPoint, Qt

    window = CompareWindow(load_scenario("cfs-yield-2007"), PRESETS["compat-yield"].sides, use_timer=False)
    qtbot.addWidget(window)
    window.resize(1200, 700)
    window.show()
    for _ in range(60):
        window.advance(FRAME_NS)
    a, b = window.lanes
    _, top, lane_h, _ = a._geometry()
    y, x0 = int((top + lane_h / 2) * a.zoom), int(a.width() * 0.5)
    shift = Qt.KeyboardModifier.ShiftModifier
    qtbot.mousePress(a, Qt.MouseButton.LeftButton, shift, QPoint(x0, y))
    qtbot.mouseMove(a, QPoint(x0 + 80, y))
    qtbot.mouseRelease(a, Qt.MouseButton.LeftButton, shift, QPoint(x0 + 80, y))
    assert a.measured is not None and b.measured == a.measured
    qtbot.mouseClick(b, Qt.MouseButton.LeftButton, shift, QPoint(x0, y))  # a Shift+click on B clears both
    assert a.measured is None and b.measured is None
    a.task_clicked.emit(2)
    assert a.followed == b.followed == 2
    b.task_clicked.emit(2)
    assert a.followed == b.followed == 0


def test_a_run_without_network_draws_the_thread_that_differs_most_and_no_bandwidth(qtbot) -> None:
    # The playground moves no bytes: its compare window showed "bandwidth: A 0.0 B 0.0" and a flat graph.
    window = CompareWindow(load_scenario("yield-playground"), PRESETS["eevdf-yield"].sides, use_timer=False)
    qtbot.addWidget(window)
    for _ in range(40):
        window.advance(10 * FRAME_NS)
    assert window.graph_kind() == "share:yielder"
    assert "bandwidth" not in window.headline_text() and "yielder CPU" in window.headline_text()
    means = [float(np.mean(curve.getData()[1])) for curve in window.graph.curves]
    # 6.6-6.16 leaves the yielder eligible, about half the CPU; 6.17+ forfeits its requests
    a, b = (float(s["threads"]["yielder"]["share"]) for s in window.lockstep.summaries())
    assert means[0] > 2 * means[1] and a > 2 * b
    assert abs(means[0] / 100 - a) < 0.15  # the curve is the share, in percent
    # where bytes move, the graph stays the bandwidth
    story = CompareWindow(load_scenario("cfs-yield-2007"), PRESETS["compat-yield"].sides, use_timer=False)
    qtbot.addWidget(story)
    story.advance(10 * FRAME_NS)
    assert story.graph_kind() == "bandwidth" and "bandwidth" in story.headline_text()


def test_a_speed_the_model_cannot_keep_up_with_is_capped_and_the_clock_says_so(qtbot) -> None:
    # At Fast (real time) the 2011 pair took 115 ms a frame and the window answered clicks that late;
    # it now caps a frame's simulated time as the main window does (gui.playback.next_budget_ns).
    readings = itertools.count(0.0, 0.025)  # each advance takes 25 ms of this clock
    window = CompareWindow(
        load_scenario("yield-playground"),
        PRESETS["compat-yield"].sides,
        use_timer=False,
        speed=1.0,
        clock=lambda: next(readings),
    )
    qtbot.addWidget(window)
    frame_ns = 33_000_000  # a frame at real time
    steps = []
    for _ in range(3):
        before = window.lockstep.now_ns
        window._on_frame()
        steps.append(window.lockstep.now_ns - before)
    # 33 ms in 25 ms of work, where a frame may spend 8 ms: the next frame takes 10.56 ms, and as that
    # took 25 ms as well, the one after less again.
    assert steps[:2] == [frame_ns, frame_ns * 8 // 25] and 0 < steps[2] < steps[1]
    assert window.limited and "cannot keep up" in window.time_label.toolTip()


def test_export_writes_each_part_with_a_caption_and_a_bad_path_is_a_dialog(
    qtbot, tmp_path, monkeypatch
) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    from gui.compare_export import compare_caption, compare_targets, export_compare
    from gui.figures import FigureOptions

    window = CompareWindow(
        load_scenario("qdisc-fairness-2011"), PRESETS["exit-rules"].sides, seed=3, use_timer=False
    )
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    for _ in range(10):
        window.advance(FRAME_NS)
    assert list(compare_targets(window)) == [
        "Whole window",
        "Graph",
        "Side A: CPU lanes",
        "Side B: CPU lanes",
        "Side C: CPU lanes",
    ]
    caption = compare_caption(window)
    assert "A: 3.0-rc4 time; B: jamal's quota+jiffy; C: 3.1 quota" in caption and "seed 3" in caption
    sizes = {}
    for i, target in enumerate(compare_targets(window)):
        path = tmp_path / f"part{i}.png"
        assert export_compare(window, target, str(path))
        sizes[target] = path.stat().st_size
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(set(sizes.values())) == len(sizes)  # five different pictures
    svg = tmp_path / "graph.svg"
    assert export_compare(window, "Graph", str(svg), FigureOptions(caption=caption))
    assert "3.1 quota" in svg.read_text(encoding="utf-8")  # the caption (and the legend) in the drawing
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: said.append(text))
    assert not export_compare(window, "Graph", str(tmp_path / "graph.txt"))
    assert len(said) == 1 and "graph.txt" in said[0] and "\n" not in said[0]
    # Space plays and pauses, as in the main window (shortcuts fire in the active window only)
    from PySide6.QtWidgets import QApplication

    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    assert not window.playing
    qtbot.keyClick(window, Qt.Key.Key_Space)
    assert window.playing and window.play_button.text() == "Pause"
    qtbot.keyClick(window, Qt.Key.Key_Space)
    assert not window.playing
    window.value_edit.setFocus()
    qtbot.keyClick(window.value_edit, Qt.Key.Key_Space)  # a space typed in the value box stays there
    assert not window.playing
    window.close()


def test_copy_command_is_a_compare_line_that_gives_the_windows_numbers(qtbot, capsys) -> None:
    # A figure made in the window can be made again from the command line, with the same numbers.
    import json
    import shlex

    from PySide6.QtWidgets import QApplication

    from gui.compare_dialog import open_compare
    from gui.compare_export import copy_compare_command
    from gui.main_window import MainWindow
    from model.cli import main as cli_main

    cases = [
        ("cfs-yield-2007", (), "sched.compat_yield=1", "iperf.thread_rest=fixed", 40),
        ("qdisc-fairness-2011", (("qdisc.weight_p", 32),), "", "", 12),
    ]
    for story, live, b, c, frames in cases:
        main = MainWindow(load_scenario(story), use_timer=False)
        qtbot.addWidget(main)
        for key, value in live:
            assert main.playback.apply_live(key, value)
        dialog = CompareDialog(main, load_scenario(story))
        if b:
            dialog.custom.setText(b)
            dialog.custom_c.setText(c)
            dialog._custom()
            sides = dialog.choice
        else:
            sides = PRESETS["exit-rules"].sides
        assert sides is not None
        compare = open_compare(main, sides)
        assert compare is not None
        compare._timer.stop()
        for _ in range(frames):
            compare.advance(FRAME_NS * 20)
        line = copy_compare_command(compare)
        assert QApplication.clipboard().text() == line and line in compare.statusBar().currentMessage()
        words = shlex.split(line)
        assert words[:3] == ["schedlab", "compare", story]
        if live:
            assert "--set" in words and "qdisc.weight_p=32" in words and "--preset" in words
        else:  # "this run" states the keys the other sides change, at this run's values
            assert "--a" in words and {"sched.compat_yield=0", "iperf.thread_rest=sched_yield"} <= set(words)
        capsys.readouterr()
        assert cli_main([*words[1:], "--json"]) == 0
        printed = json.loads(capsys.readouterr().out)
        for side, sim in zip(printed["sides"], compare.lockstep.sims, strict=True):
            ours = sim.summary()
            theirs = side["summary"]
            assert theirs["duration_s"] == pytest.approx(ours["duration_s"])
            for key in ("bandwidth_mbps", "fairness_jain", "threads", "cpus"):
                assert theirs.get(key) == ours.get(key), (story, key)
        compare.close()
        main.close()
