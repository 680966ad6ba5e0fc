"""Output files written whole or not at all: a temporary file beside the destination, renamed into
place only when complete.

A minimal helper of its own until the shared one for every output (issue 13) lands: ``atomic_output``
hands out a temporary path in the destination's folder (so that the final ``os.replace`` is a rename
on one filesystem, atomic on POSIX) and, on any failure or Ctrl-C, removes it and leaves an existing
file at the destination untouched. ``check_writable`` refuses a bad destination before a long run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from model.scenario import ScenarioError


def check_writable(path: Path, option: str) -> None:
    """Refuse, before any work, a destination that cannot be written (one line, exit 2)."""
    if str(path) == "" or path.name == "":
        raise ScenarioError(f"{option}: expected a file name, got {str(path)!r}")
    if path.is_dir():
        raise ScenarioError(f"{option} {path}: is a folder; expected a file name")
    parent = path.resolve().parent
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        raise ScenarioError(f"{option} {path}: cannot write there (no such folder, or not writable)")
    if path.exists() and not os.access(path, os.W_OK):
        raise ScenarioError(f"{option} {path}: the file exists and is not writable")


@contextmanager
def atomic_output(path: Path, option: str = "--out") -> Iterator[Path]:
    """Yield a temporary path to write; on a clean exit it replaces ``path``, otherwise it is removed."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        yield partial
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ScenarioError(f"{option} {path}: cannot write: {exc.strerror or exc}") from None
    except BaseException:  # KeyboardInterrupt, a refused trace, any error: nothing partial stays
        partial.unlink(missing_ok=True)
        raise
