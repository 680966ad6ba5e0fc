"""File > Export data: the window's CSV and JSON are the command line's, for the run's live settings."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from qt_guard import leak_guard, temp_settings  # noqa: F401 - autouse fixtures

from gui.data_export import export_data
from model import cli
from model.scenario import load_scenario


def window_on(qtbot, story: str):  # type: ignore[no-untyped-def]
    from gui.main_window import MainWindow

    window = MainWindow(load_scenario(story), use_timer=False)
    qtbot.addWidget(window)
    return window


def test_the_csv_is_the_command_lines_with_the_live_settings(qtbot, tmp_path: Path) -> None:
    window = window_on(qtbot, "cfs-yield-2007")
    window.playback.advance_to(300_000_000)
    assert window.playback.apply_live("sched.compat_yield", 1)
    line = export_data(window, tmp_path / "window.csv", to_now=True)
    assert line is not None and "--set sched.compat_yield=1" in line and "--duration 0.3" in line
    assert (
        cli.main(
            [
                "run",
                "cfs-yield-2007",
                "--set",
                "sched.compat_yield=1",
                "--duration",
                "0.3",
                "--csv",
                str(tmp_path / "cli.csv"),
            ]
        )
        == 0
    )
    assert (tmp_path / "window.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()


def test_the_json_is_run_json_but_for_the_wall_time(qtbot, tmp_path: Path, capsys) -> None:
    window = window_on(qtbot, "cfs-yield-2007")
    window.playback.advance_to(200_000_000)
    assert export_data(window, tmp_path / "window.json", to_now=True) is not None
    capsys.readouterr()
    assert cli.main(["run", "cfs-yield-2007", "--duration", "0.2", "--json"]) == 0
    from_cli = json.loads(capsys.readouterr().out)
    from_window = json.loads((tmp_path / "window.json").read_text())
    for summary in (from_cli, from_window):
        summary["sim"].pop("wall_s", None)
        summary["sim"].pop("compiled", None)
    assert from_window == from_cli


def refusing_window(qtbot, tmp_path: Path, monkeypatch):  # type: ignore[no-untyped-def]
    """The 2007 window with its error dialogs caught in a list, and an empty folder to write in."""
    window = window_on(qtbot, "cfs-yield-2007")
    folder = tmp_path / "out"
    folder.mkdir()
    said: list[str] = []
    monkeypatch.setattr(window, "show_error", lambda title, message: said.append(message))
    return window, folder, said


def test_a_bad_extension_gets_a_dialog_and_no_file(qtbot, tmp_path: Path, monkeypatch) -> None:
    window, tmp_path, said = refusing_window(qtbot, tmp_path, monkeypatch)
    assert export_data(window, tmp_path / "x.txt") is None
    assert said and "allowed: .csv, .json" in said[0]
    assert not (tmp_path / "x.txt").exists()


def test_the_command_line_of_a_resized_2011_run_makes_the_same_file(
    qtbot, tmp_path: Path, monkeypatch
) -> None:
    # The CPUs control resizes the story (one sender per CPU, the NIC's interrupts on CPUs that
    # exist); `--set machine.cpus=N` must do the same, or the line the window shows makes another run
    # (two CPUs: refused; eight: four senders on eight CPUs).
    errors: list[str] = []
    for cpus in (2, 6):
        window = window_on(qtbot, "qdisc-fairness-2011")
        monkeypatch.setattr(window, "show_error", lambda title, text: errors.append(text))
        window.controls.cpus_spin.setValue(cpus)
        assert sum(t.count for t in window.playback.scenario.tasks if t.kind == "sender") == cpus
        window.playback.advance_to(20_000_000)
        line = export_data(window, tmp_path / f"window{cpus}.csv", to_now=True)
        assert not errors and line is not None and f"--set machine.cpus={cpus}" in line
        words = shlex.split(line)
        assert words[:2] == ["schedlab", "run"]
        words[-1] = str(tmp_path / f"cli{cpus}.csv")
        assert cli.main(words[1:]) == 0
        assert (tmp_path / f"window{cpus}.csv").read_bytes() == (tmp_path / f"cli{cpus}.csv").read_bytes()


@pytest.mark.parametrize("value", ["cfs-2.6.23", "true", "1", "inf", "a b", 'say "hi"', (1, 2), True, 0.25])
def test_a_value_in_the_command_line_reads_back_as_itself(value: object) -> None:
    from gui.data_export import toml_value
    from model.scenario import parse_set_value

    back = parse_set_value("scenario.title", toml_value("scenario.title", value))
    assert back == (list(value) if isinstance(value, tuple) else value)


def test_save_scenario_keeps_the_live_settings_and_opens_again(qtbot, tmp_path: Path, capsys) -> None:
    """File ▸ Save scenario as…: the run as it is on screen (a live toggle), as a file that the window
    opens again and ``schedlab run`` runs to the same numbers."""
    from gui.scenario_save import save_scenario, scenario_to_save

    window = window_on(qtbot, "yield-playground")
    window.playback.advance_to(100_000_000)
    assert window.playback.apply_live("sched.compat_yield", 1)
    out = tmp_path / "out" / "mine.toml"
    out.parent.mkdir()
    assert save_scenario(window, out)
    assert "compat_yield = 1" in out.read_text() and [p.name for p in out.parent.iterdir()] == ["mine.toml"]
    again = window_on(qtbot, "cfs-yield-2007")
    assert again.open_scenario_file(str(out))
    assert again.playback.scenario.settings() == scenario_to_save(window).settings()
    assert again.playback.scenario.tasks == window.playback.scenario.tasks
    assert again.playback.scenario.builtin == ""  # a saved file is the user's: no built-in lesson
    runs = []
    for argv in (["run", str(out)], ["run", "yield-playground", "--set", "sched.compat_yield=1"]):
        assert cli.main([*argv, "--duration", "0.3", "--json"]) == 0
        runs.append(json.loads(capsys.readouterr().out)["threads"])
    assert runs[0] == runs[1] and runs[0]["yielder"]["share"] < 0.05  # compat_yield kept: yields lose


def test_save_scenario_refuses_a_folder_and_keeps_the_old_file(qtbot, tmp_path: Path, monkeypatch) -> None:
    from gui.scenario_save import save_scenario

    window, tmp_path, said = refusing_window(qtbot, tmp_path, monkeypatch)
    assert not save_scenario(window, tmp_path)
    assert not save_scenario(window, tmp_path / "x.txt")
    assert "folder" in said[0] and ".toml" in said[1]
    old = tmp_path / "old.toml"
    old.write_text("kept")
    monkeypatch.setattr("gui.scenario_save.scenario_toml", lambda *_: 1 / 0)  # fails mid-write
    with pytest.raises(ZeroDivisionError):
        save_scenario(window, old)
    assert old.read_text() == "kept" and sorted(p.name for p in tmp_path.iterdir()) == ["old.toml"]


def test_the_save_dialog_adds_the_extension_and_remembers_the_folder(
    qtbot, tmp_path: Path, monkeypatch
) -> None:
    from gui import scenario_save

    window = window_on(qtbot, "bfs-saturated-2009")
    monkeypatch.setattr(scenario_save, "chosen_path", lambda dialog: (str(tmp_path / "mine"), ""))
    menu = next(a for a in window.menuBar().actions() if a.text() == "&File").menu()
    next(a for a in menu.actions() if a.text() == "Save scenario as…").trigger()
    assert load_scenario(str(tmp_path / "mine.toml")).settings()["net.udelay_us"] == 3000
    assert window.settings.value("scenario/folder") == str(tmp_path)


def test_the_command_line_of_a_scenario_file_names_the_file(qtbot, tmp_path: Path, capsys) -> None:
    # It named the file's scenario ("cfs-yield-2007"): the built-in, not the file, with its changes.
    from gui.compare_dialog import open_compare
    from gui.compare_export import compare_command
    from model.compare import Side, parse_side
    from model.scenario import scenario_path

    text = scenario_path("cfs-yield-2007")[0].read_text(encoding="utf-8")
    path = tmp_path / "my lab" / "slow iperf.toml"
    path.parent.mkdir()
    path.write_text(text.replace("duration_s = ", "duration_s = 2.0\n# was ", 1), encoding="utf-8")
    window = window_on(qtbot, "cfs-yield-2007")
    assert window.open_scenario_file(str(path))
    window.playback.advance_to(50_000_000)
    line = export_data(window, tmp_path / "window.json", to_now=True)
    assert line is not None
    words = shlex.split(line)
    assert words[:3] == ["schedlab", "run", str(path)], words
    capsys.readouterr()
    assert words[-3:-1] == ["--json", ">"]
    assert cli.main(words[1:-2]) == 0  # to stdout, here
    ours = json.loads((tmp_path / "window.json").read_text(encoding="utf-8"))
    theirs = json.loads(capsys.readouterr().out)
    assert theirs["bandwidth_mbps"] == ours["bandwidth_mbps"] and theirs["duration_s"] == ours["duration_s"]
    compare = open_compare(window, (Side("A", (), "this run"), parse_side("B", ["sched.compat_yield=1"])))
    assert compare is not None
    compare._timer.stop()
    assert shlex.split(compare_command(compare))[:3] == ["schedlab", "compare", str(path)]
    compare.close()
