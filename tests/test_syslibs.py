"""gui.syslibs: reading ldd's report and naming the Debian packages Qt's platform plugins lack."""

from __future__ import annotations

from pathlib import Path

import pytest

from gui import syslibs

# ldd on PySide6's libqxcb.so on a Debian 12 without libxcb-icccm4 and libxcb-keysyms1 (abridged).
LDD_QXCB = """\
\tlinux-vdso.so.1 (0x00007f8bf448e000)
\tlibGL.so.1 => /lib/x86_64-linux-gnu/libGL.so.1 (0x00007f8bf4330000)
\tlibQt6XcbQpa.so.6 => /opt/v/PySide6/Qt/plugins/platforms/../../lib/libQt6XcbQpa.so.6 (0x00007f8bf3a00000)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f8bf37b3000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-image.so.0 => /lib/x86_64-linux-gnu/libxcb-image.so.0 (0x00007f8bf37a5000)
\tlibxcb-keysyms.so.1 => not found
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f8bf261e000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\t/lib64/ld-linux-x86-64.so.2 (0x00007f8bf4490000)
"""

# ldd on the offscreen plugin on a minimal container: no OpenGL, no fontconfig, an unknown library.
LDD_OFFSCREEN = """\
\tlibEGL.so.1 => not found
\tlibGL.so.1 => not found
\tlibxkbcommon.so.0 => not found
\tlibfontconfig.so.1 => not found
\tlibdbus-1.so.3 => not found
\tlibglib-2.0.so.0 => not found
\tlibgthread-2.0.so.0 => not found
\tlibfrobnicate.so.7 => not found
"""


def test_not_found_libraries_are_read_in_order_without_repeats() -> None:
    assert syslibs.parse_ldd_missing(LDD_QXCB) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]


def test_a_complete_report_has_nothing_missing() -> None:
    complete = "\n".join(line for line in LDD_QXCB.splitlines() if "not found" not in line)
    assert syslibs.parse_ldd_missing(complete) == []
    assert syslibs.parse_ldd_missing("") == []


def test_the_xcb_libraries_map_to_their_debian_packages() -> None:
    libraries = syslibs.parse_ldd_missing(LDD_QXCB)
    assert syslibs.packages_for(libraries) == ["libxcb-icccm4", "libxcb-keysyms1"]


@pytest.mark.parametrize(
    ("library", "package"),
    [
        ("libxcb-cursor.so.0", "libxcb-cursor0"),
        ("libxcb-icccm.so.4", "libxcb-icccm4"),
        ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
        ("libxcb-image.so.0", "libxcb-image0"),
        ("libxcb-render-util.so.0", "libxcb-render-util0"),
        ("libxcb-xkb.so.1", "libxcb-xkb1"),
        ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
        ("libxkbcommon.so.0", "libxkbcommon0"),
        ("libxcb-shape.so.0", "libxcb-shape0"),
        ("libxcb-randr.so.0", "libxcb-randr0"),
        ("libEGL.so.1", "libegl1"),
        ("libGL.so.1", "libgl1"),
        ("libfontconfig.so.1", "libfontconfig1"),
        ("libdbus-1.so.3", "libdbus-1-3"),
        ("libX11-xcb.so.1", "libx11-xcb1"),
    ],
)
def test_package_table(library: str, package: str) -> None:
    assert syslibs.LIB_PACKAGES[library] == package


def test_packages_are_not_repeated_and_unknown_libraries_stay_named() -> None:
    libraries = syslibs.parse_ldd_missing(LDD_OFFSCREEN)
    assert syslibs.packages_for(libraries) == [
        "libegl1",
        "libgl1",
        "libxkbcommon0",
        "libfontconfig1",
        "libdbus-1-3",
        "libglib2.0-0",  # libglib and libgthread: one package
        "libfrobnicate.so.7",
    ]


def test_missing_libraries_merges_the_reports_of_all_binaries(tmp_path: Path) -> None:
    reports = {tmp_path / "libqxcb.so": LDD_QXCB, tmp_path / "libQt6XcbQpa.so.6": LDD_OFFSCREEN}
    missing = syslibs.missing_libraries(list(reports), run=reports.__getitem__)
    assert missing[:3] == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libEGL.so.1"]
    assert len(missing) == len(set(missing)) == 10


def test_binaries_for_lists_only_files_that_exist(tmp_path: Path) -> None:
    plugin = tmp_path / "Qt/plugins/platforms/libqxcb.so"
    plugin.parent.mkdir(parents=True)
    plugin.touch()
    assert syslibs.binaries_for("xcb", tmp_path) == [plugin]
    (tmp_path / "QtCore.abi3.so").touch()
    assert syslibs.binaries_for("offscreen", tmp_path) == [tmp_path / "QtCore.abi3.so"]


def test_the_command_line_rejects_an_unknown_platform(capsys: pytest.CaptureFixture[str]) -> None:
    assert syslibs.main(["cocoa"]) == 2
    assert "usage" in capsys.readouterr().err


def test_the_installed_pyside6_is_found() -> None:
    pyside = syslibs.pyside6_dir()
    assert pyside is not None
    assert (pyside / "Qt" / "plugins" / "platforms").is_dir()


def test_the_command_line_prints_the_packages_on_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(syslibs, "missing_packages", lambda platform: ["libxcb-icccm4", "libxcb-keysyms1"])
    assert syslibs.main(["xcb"]) == 0
    assert capsys.readouterr().out == "libxcb-icccm4 libxcb-keysyms1\n"
