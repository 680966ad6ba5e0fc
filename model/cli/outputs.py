"""Output files: checked before any long run, written whole or not at all.

Every file schedlab writes (CSV, JSON, PNG, SVG, and any later video or trace) goes through here.
``check_output`` looks at the path before the run that fills it, so a bad path costs no run: an
empty name, a folder, a folder that does not exist, a FIFO or device that a rename would replace, a
read-only file, a folder that refuses a new file, a name too long, or one of the command's own input
files. ``open_atomic`` (``open_atomic_text`` for text) opens a temporary file in the same folder;
when it is complete it is flushed to disk and renamed over the destination: on any failure (a full
disk, a signal, a refused trace) the old file is untouched and the temporary file is gone.
``write_atomic`` and ``write_bytes_atomic`` do the same for a writer function and for bytes. Errors
are ``OutputError``, one line that starts with what the caller names (``--csv FILE``, ``cannot export
to 'x.png'``); the command line exits with status 2. ``gui.export`` uses the same functions.
"""

from __future__ import annotations

import io
import os
import secrets
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TextIO

from model.keyspec import SHOWN_PATH_CHARS, ScenarioError, shown, shown_path

PARTIAL_SUFFIX = ".partial"


class OutputError(ScenarioError):
    """An output file that cannot or must not be written; the message is one line."""


def option_what(option: str, value: str) -> str:
    """How a message names an output option as typed: ``--csv out.csv``; quoted where a bare name would
    be ambiguous or unreadable (``--csv ''``, ``--out 'x y.png'``, control characters escaped)."""
    plain = value.isprintable() and not any(c.isspace() or c in "'\"" for c in value)
    return (
        f"{option} {value}"
        if value and plain and len(value) <= SHOWN_PATH_CHARS
        else f"{option} {shown_path(value)}"
    )


def check_output(
    text: str, what: str, *, suffixes: Sequence[str] = (), inputs: Sequence[Path | str] = ()
) -> Path:
    """The path ``text`` names, if a file can be written there; else OutputError ("{what}: ...")."""
    if not text:
        raise OutputError(f"{what}: expected a file name, got an empty one")
    if "\0" in text:
        raise OutputError(f"{what}: a file name cannot hold a NUL character")
    path = Path(text)
    if text.endswith(("/", os.sep)) or os.path.isdir(path):
        raise OutputError(
            f"{what}: cannot write there: it is a folder; expected a file name "
            f"(e.g. {shown_path(path / 'out')})"
        )
    if suffixes and path.suffix.lower() not in suffixes:
        raise OutputError(f"{what}: unknown extension {shown(path.suffix)}; allowed: {', '.join(suffixes)}")
    real = _destination(path)  # a symlink is written through: the file it points to is replaced
    folder = real.parent
    if not folder.is_dir():
        problem = "is not a folder" if os.path.lexists(folder) else "does not exist"
        raise OutputError(f"{what}: folder {shown_path(folder)} {problem}")
    _check_existing(real, what, inputs)
    _check_name_length(real, what)
    _probe_folder(folder, what)
    return path


def _destination(path: Path) -> Path:
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def _check_existing(path: Path, what: str, inputs: Sequence[Path | str]) -> None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(f"{what}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise OutputError(f"{what}: not a regular file (a FIFO, device or socket); refusing to replace it")
    if not info.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise OutputError(f"{what}: permission denied (the file is read-only)")
    for source in inputs:
        if _same_file(path, Path(source)):
            raise OutputError(f"{what}: that is the scenario file this command reads; choose another name")


def _check_name_length(path: Path, what: str) -> None:
    try:
        limit = os.pathconf(path.parent, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    if len(os.fsencode(path.name)) > limit:
        raise OutputError(f"{what}: the file name is longer than {limit} bytes")


def _probe_folder(folder: Path, what: str) -> None:
    """Make (and remove) an empty file in ``folder``: the one sure test that a new file can go there."""
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".schedlab-", suffix=PARTIAL_SUFFIX)
    except PermissionError:
        raise OutputError(f"{what}: permission denied") from None
    except OSError as exc:
        raise OutputError(f"{what}: cannot write there: {exc.strerror}") from None
    os.close(fd)
    os.unlink(probe)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


@contextmanager
def open_atomic(path: Path, what: str) -> Iterator[BinaryIO]:
    """A new temporary file beside ``path``, open for writing; when the block ends cleanly it is
    flushed to disk and renamed into place. OutputError ("{what}: cannot write: ...") if anything
    fails, with the old file untouched and nothing left over."""
    path = _destination(path)
    fh, partial = _temporary_file(path, what)
    try:
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())  # a full disk shows here at the latest, before the rename
        if path.exists():
            os.chmod(partial, stat.S_IMODE(os.stat(path).st_mode))  # the old file's permissions
        os.replace(partial, path)
    except BaseException as exc:  # a signal too: no partial file outlives the run
        Path(partial).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OutputError(f"{what}: cannot write: {exc.strerror or exc}") from None
        raise


@contextmanager
def open_atomic_text(path: Path, what: str) -> Iterator[TextIO]:
    """``open_atomic`` for UTF-8 text."""
    with open_atomic(path, what) as fh:
        text = io.TextIOWrapper(fh, encoding="utf-8")
        yield text
        text.flush()
        text.detach()  # the file stays open for open_atomic to sync and close


def write_atomic(path: Path, what: str, write: Callable[[BinaryIO], None]) -> None:
    """Call ``write`` on a temporary file beside ``path``, then rename it into place (``open_atomic``)."""
    with open_atomic(path, what) as fh:
        write(fh)


def write_bytes_atomic(path: Path, what: str, data: bytes) -> None:
    """``data`` as the whole content of ``path``, written as ``write_atomic`` writes."""

    def write(fh: BinaryIO) -> None:
        fh.write(data)

    write_atomic(path, what, write)


def _temporary_file(path: Path, what: str) -> tuple[BinaryIO, str]:
    """A new file in the destination's folder (a rename within a file system is atomic), created with
    the permissions of any new file (0666 less the umask), as an in-place write would have."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    for _ in range(100):
        partial = str(path.parent / f".{path.name[:80]}.{secrets.token_hex(4)}{PARTIAL_SUFFIX}")
        try:
            return os.fdopen(os.open(partial, flags, 0o666), "wb"), partial
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputError(f"{what}: cannot write: {exc.strerror}") from None
    raise OutputError(f"{what}: cannot write: no free temporary name in {shown_path(path.parent)}")
