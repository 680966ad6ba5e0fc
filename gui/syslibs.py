"""Which Debian/Ubuntu packages Qt still needs on this machine, found with ``ldd``.

The PySide6 wheels ship Qt itself but link against system libraries (OpenGL, fontconfig, xkbcommon, the
xcb utility libraries) that a fresh Debian or Ubuntu may lack; Qt then aborts with "could not load the Qt
platform plugin". ``run.sh`` calls ``python -m gui.syslibs PLATFORM`` before starting, which prints the
missing packages on one line (nothing when all is there), so that it can install them or print one
``sudo apt-get install`` line instead. This module never imports Qt: it must work when Qt cannot load.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

# Shared library soname -> the Debian/Ubuntu package that ships it. Where a newer release renamed the
# package (Debian 13's ``libglib2.0-0t64``), apt picks the renamed one by itself.
LIB_PACKAGES: dict[str, str] = {
    # the xcb platform plugin (a window on X11 or XWayland)
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb.so.1": "libxcb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libX11-xcb.so.1": "libx11-xcb1",
    # every platform, offscreen included (QtGui, QtWidgets)
    "libxkbcommon.so.0": "libxkbcommon0",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libGLX.so.0": "libglx0",
    "libOpenGL.so.0": "libopengl0",
    "libGLdispatch.so.0": "libglvnd0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libX11.so.6": "libx11-6",
    "libXau.so.6": "libxau6",
    "libXdmcp.so.6": "libxdmcp6",
    "libpng16.so.16": "libpng16-16",
    # the wayland platform plugin
    "libwayland-client.so.0": "libwayland-client0",
    "libwayland-cursor.so.0": "libwayland-cursor0",
    "libwayland-egl.so.1": "libwayland-egl1",
}

# Per Qt platform, the binaries whose whole dependency tree must resolve, relative to the PySide6 folder.
PLATFORM_BINARIES: dict[str, tuple[str, ...]] = {
    "xcb": ("Qt/plugins/platforms/libqxcb.so", "Qt/lib/libQt6XcbQpa.so.6"),
    "wayland": ("Qt/plugins/platforms/libqwayland.so", "Qt/lib/libQt6WaylandClient.so.6"),
    "offscreen": (
        "Qt/plugins/platforms/libqoffscreen.so",
        "Qt/lib/libQt6Core.so.6",
        "Qt/lib/libQt6Gui.so.6",
        "Qt/lib/libQt6Widgets.so.6",
        "Qt/lib/libQt6Svg.so.6",
        "Qt/lib/libQt6OpenGL.so.6",
    ),
}

# PySide6's binding modules that the app and its tests import, checked for the offscreen platform.
PYSIDE_MODULES = ("QtCore", "QtGui", "QtWidgets", "QtSvg")

Runner = Callable[[Path], str]


def parse_ldd_missing(ldd_output: str) -> list[str]:
    """The sonames that ``ldd`` reports as ``not found``, in first-seen order, without repeats."""
    missing: list[str] = []
    for line in ldd_output.splitlines():
        name, sep, target = line.strip().partition("=>")
        if sep and target.strip() == "not found" and name.strip() not in missing:
            missing.append(name.strip())
    return missing


def packages_for(libraries: Iterable[str]) -> list[str]:
    """The packages that provide ``libraries``, in order, without repeats; an unknown one stays a soname."""
    packages: list[str] = []
    for library in libraries:
        package = LIB_PACKAGES.get(library, library)
        if package not in packages:
            packages.append(package)
    return packages


def pyside6_dir() -> Path | None:
    """The installed PySide6 package folder, found without importing it (Qt may be unloadable)."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def binaries_for(platform: str, pyside_dir: Path) -> list[Path]:
    """The Qt binaries of ``platform`` present under ``pyside_dir``; for offscreen, PySide6's own too."""
    paths = [pyside_dir / rel for rel in PLATFORM_BINARIES[platform]]
    if platform == "offscreen":
        for module in PYSIDE_MODULES:  # QtCore.abi3.so and the like
            paths += sorted(pyside_dir.glob(f"{module}.*so"))
    return [path for path in paths if path.is_file()]


def run_ldd(path: Path) -> str:
    """``ldd``'s report on ``path``; empty when ``ldd`` is absent or cannot read the file."""
    try:
        done = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=False)
    except OSError:
        return ""
    return done.stdout


def missing_libraries(paths: Sequence[Path], run: Runner = run_ldd) -> list[str]:
    """The sonames that some binary in ``paths`` needs and the dynamic loader cannot find."""
    missing: list[str] = []
    for path in paths:
        missing += [lib for lib in parse_ldd_missing(run(path)) if lib not in missing]
    return missing


def missing_packages(platform: str, run: Runner = run_ldd) -> list[str]:
    """The packages to install so that Qt's ``platform`` plugin loads; empty without PySide6."""
    pyside_dir = pyside6_dir()
    if pyside_dir is None:
        return []
    return packages_for(missing_libraries(binaries_for(platform, pyside_dir), run))


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or args[0] not in PLATFORM_BINARIES:
        print(f"usage: python -m gui.syslibs {{{','.join(PLATFORM_BINARIES)}}}", file=sys.stderr)
        return 2
    print(" ".join(missing_packages(args[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
