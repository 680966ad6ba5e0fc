"""schedlab's build: the package layout, and the model compiled with mypyc when asked.

pyproject.toml holds the metadata, dependencies and entry points; this file holds what takes code.

Packages: ``model`` and ``gui`` with their subpackages, and the top-level ``resources/`` folder
(scenarios, lessons, icons, the desktop entry) installed as the package ``schedlab_resources``, a
name no other project will claim in site-packages.

The compiled model, the way mypyc projects ship one: with ``SCHEDLAB_COMPILE=1`` in the environment
(``SCHEDLAB_COMPILE=1 pip wheel .``, or ``SCHEDLAB_COMPILE=1 python setup.py build_ext --inplace``,
which ``./run.sh`` runs), mypy's mypyc turns the model into C extension modules, one per module plus
one shared library for the group. Without it the wheel is the pure Python sources: the same results,
several times slower. Python loads a compiled module in place of the ``.py`` beside it, so nothing at
run time chooses between the two.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
COMPILE = os.environ.get("SCHEDLAB_COMPILE", "") not in ("", "0")
# mypyc ships with mypy, which checks the model against numpy's type stubs while compiling it; an
# isolated build (pip's default) installs these only when compiling (setup_requires, below).
NATIVE_BUILD_REQUIRES = ["mypy>=1.10", "numpy>=1.26"]
NATIVE_GROUP = "model._native"  # the group's shared library: model/_native__mypyc.*.so
# Commands that only describe the project: the build backend runs them to learn the build
# requirements and the metadata, then runs this file again to build.
METADATA_COMMANDS = {"egg_info", "dist_info", "sdist"}


def compiled_sources() -> list[str]:
    """The modules mypyc compiles: every model module except package ``__init__`` files (they only
    import and register; a package whose ``__init__`` is Python imports the same either way) and the
    command line ``model/cli/`` (it parses arguments and prints; the time is spent in the model)."""
    model = ROOT / "model"
    return [
        path.relative_to(ROOT).as_posix()
        for path in sorted(model.rglob("*.py"))
        if path.name != "__init__.py" and (model / "cli") not in path.parents
    ]


def native_extensions() -> list[object]:
    if not COMPILE:
        return []
    if {arg for arg in sys.argv[1:] if not arg.startswith("-")} <= METADATA_COMMANDS:
        return []  # nothing is built: spare the mypy run
    try:
        from mypyc.build import mypycify
    except ImportError:
        sys.exit(
            "SCHEDLAB_COMPILE=1: mypyc is not installed in this build environment "
            f"(it needs {' and '.join(NATIVE_BUILD_REQUIRES)}); unset SCHEDLAB_COMPILE to build the "
            "pure Python model"
        )
    # mypy reads its settings from pyproject.toml (strict on the model), as `mypy` does; the settings
    # for gui/ go unused here, which mypyc would otherwise report as an error.
    extensions: list[object] = mypycify(
        ["--no-warn-unused-configs", *compiled_sources()],
        opt_level="3",
        group_name=NATIVE_GROUP,
        target_dir="build/native/c",
    )
    return extensions


class InPlaceByRename(build_ext):
    """``build_ext --inplace`` that puts each library beside its source by a rename, never by writing
    over the old one where it lies: a schedlab already running maps that file, and a library rewritten
    in place under a running process ends it (a segmentation fault) at its next call into the model."""

    def copy_file(self, infile: str, outfile: str, *args: object, **kwargs: object) -> tuple[str, bool]:
        if not self.inplace:
            return super().copy_file(infile, outfile, *args, **kwargs)  # type: ignore[no-any-return]
        partial = f"{outfile}.{os.getpid()}.partial"
        try:
            super().copy_file(infile, partial, *args, **kwargs)
            os.replace(partial, outfile)
        finally:
            if os.path.exists(partial):
                os.unlink(partial)
        return outfile, True


# resources/'s folders, each a package of data files (setuptools wants every folder it installs from
# to be a package); resources/screenshots/ is the README's and stays out of the wheel.
RESOURCE_DATA = {
    "schedlab_resources": ["*.desktop"],
    "schedlab_resources.scenarios": ["*.toml"],
    "schedlab_resources.lessons": ["*.md", "*.html", "*.steps.toml"],
    "schedlab_resources.icons": ["*.svg", "*.png"],
}

# The build backend runs this file as __main__ too; the tests import compiled_sources() from it.
if __name__ == "__main__":
    setup(
        packages=[*find_packages(include=["model", "model.*", "gui", "gui.*"]), *RESOURCE_DATA],
        package_dir={"schedlab_resources": "resources"},
        package_data=RESOURCE_DATA,
        ext_modules=native_extensions(),
        cmdclass={"build_ext": InPlaceByRename},
        setup_requires=NATIVE_BUILD_REQUIRES if COMPILE else [],
        # Separate build folders: a pure wheel never picks up compiled modules left by an earlier build.
        options={"build": {"build_base": "build/native" if COMPILE else "build/pure"}},
    )
