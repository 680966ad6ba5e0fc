"""Compile the model with mypyc: ``python -m model.build_native [--clean]``.

The compiled modules are the same sources turned into C by mypyc (shipped with mypy) and built by the
machine's C compiler; they run the simulation several times faster. They land beside the sources
(``model/**/*.so``, ignored by git) with a stamp of the sources they came from, and ``model/__init__.py``
uses them only while that stamp matches. Package ``__init__`` files and this script stay Python.

Exit status 0 on success, 1 (with one line saying what is missing) when the build cannot run; the
model then runs from its Python sources, correct but slower.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

from model import NATIVE_STAMP, PACKAGE_DIR, source_digest, source_files

ROOT = PACKAGE_DIR.parent
GROUP = "model._native"  # mypyc's shared library: model/_native__mypyc.*.so


def compiled_sources() -> list[Path]:
    return [p for p in source_files() if p.name != "__init__.py" and p != Path(__file__).resolve()]


def native_files() -> list[Path]:
    """The compiled modules now in the tree."""
    return sorted(PACKAGE_DIR.rglob("*.so"))


def clean() -> None:
    NATIVE_STAMP.unlink(missing_ok=True)
    for path in native_files():
        path.unlink()


def toolchain_gaps() -> list[tuple[str, str]]:
    """What the C toolchain lacks here, each as (what is missing, the Debian packages that provide it)."""
    gaps: list[tuple[str, str]] = []
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        gaps.append((f"no C compiler ({compiler})", "gcc libc6-dev"))
    header = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not header.is_file():
        version = f"{sys.version_info[0]}.{sys.version_info[1]}"
        gaps.append((f"no Python headers ({header})", f"python{version}-dev"))
    return gaps


def missing_prerequisite() -> str | None:
    """Why a build cannot run here, as the line to print, or None."""
    try:
        import mypyc.build  # noqa: F401
        import setuptools  # noqa: F401
    except ImportError as exc:
        return f"mypyc or setuptools is not installed ({exc}); run ./run.sh once to install the dev tools"
    gaps = toolchain_gaps()
    if gaps:
        what = "; ".join(w for w, _ in gaps)
        return f"{what}: install with `sudo apt-get install {' '.join(p for _, p in gaps)}`"
    return None


def build() -> None:
    """Compile every model module into a scratch directory, then move the results into the tree."""
    from mypyc.build import mypycify
    from setuptools import setup

    digest = source_digest()  # of the sources as they were when the build started
    sources = [str(p) for p in compiled_sources()]
    # Outside the project: both setuptools and mypy read a pyproject.toml they find around them.
    with tempfile.TemporaryDirectory(prefix="schedlab-native-") as tmp:
        out = Path(tmp) / "lib"
        log = io.StringIO()
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
                setup(
                    name="schedlab-native",
                    ext_modules=mypycify(sources, opt_level="3", group_name=GROUP),
                    script_args=["-q", "build_ext", "--build-lib", str(out), "--build-temp", "temp"],
                )
        except SystemExit as exc:  # how mypyc and setuptools report a failure; the reason is in the log
            lines = [line for line in log.getvalue().splitlines() if line.strip()]
            raise RuntimeError(lines[-1] if lines else f"exit status {exc.code}") from None
        finally:
            os.chdir(cwd)
        built = sorted(out.rglob("*.so"))
        if not built:
            raise RuntimeError("mypyc produced no modules:\n" + log.getvalue())
        clean()
        for path in built:
            shutil.copy2(path, ROOT / path.relative_to(out))
    NATIVE_STAMP.write_text(digest + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m model.build_native", description=__doc__)
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules and the stamp")
    parser.add_argument(
        "--packages", action="store_true", help="print the Debian packages the build lacks here, and stop"
    )
    args = parser.parse_args(argv)
    if args.clean:
        clean()
        return 0
    if args.packages:
        print(" ".join(p for _, p in toolchain_gaps()))
        return 0
    reason = missing_prerequisite()
    if reason is not None:
        print(f"schedlab: cannot compile the model: {reason}", file=sys.stderr)
        return 1
    try:
        build()
    except Exception as exc:
        clean()
        print(f"schedlab: compiling the model failed: {exc}".splitlines()[0], file=sys.stderr)
        return 1
    print(f"schedlab: compiled {len(native_files())} model modules with mypyc", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
