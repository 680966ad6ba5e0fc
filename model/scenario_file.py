"""Reading a scenario file: only a regular file below a size limit, as UTF-8 text, never blocking.

The path is looked at with ``os.stat`` (which follows symlinks) before anything opens it: a folder, a
FIFO (opening it would wait for a writer for ever), a device (``/dev/zero`` never ends) or a socket is
refused by name, and so is a file over ``MAX_SCENARIO_BYTES``. A file whose size is 0 is not opened
at all (``/proc`` files say 0 and some, ``/proc/kmsg``, block or lose data when read). The file is
then opened non-blocking and checked again, in case it was swapped meanwhile, and read up to the limit.
A UTF-8 byte-order mark is accepted; text that is not UTF-8 is named with its line and column.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from model.keyspec import ScenarioError, shown_path

MAX_SCENARIO_BYTES = 1 << 20  # the built-in scenarios are 1-6 KB


def read_scenario_text(path: Path, limit: int = MAX_SCENARIO_BYTES, what: str = "scenario file") -> str:
    """The text of the scenario file at ``path`` (``what`` names it: an rt-app workload is a "workload
    file" with a limit of its own); ScenarioError where it cannot or must not be read."""
    name = shown_path(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise ScenarioError(
                f"{what} {name} is a symlink to {shown_path(os.readlink(path))}, which does not exist"
            ) from None
        raise ScenarioError(f"{what} {name} does not exist") from None
    except (OSError, ValueError) as exc:
        raise ScenarioError(f"cannot read {what} {name}: {_reason(exc)}") from None
    _check_kind(path, info, limit, what)
    if info.st_size == 0:
        return ""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise ScenarioError(f"cannot read {what} {name}: {_reason(exc)}") from None
    try:
        _check_kind(path, os.fstat(fd), limit, what)
        data = _read_at_most(fd, limit + 1)
    except OSError as exc:
        raise ScenarioError(f"cannot read {what} {name}: {_reason(exc)}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ScenarioError(_too_big(path, len(data), limit, what))
    return _decode(data, name, what)


def _check_kind(path: Path, info: os.stat_result, limit: int, what: str) -> None:
    name = shown_path(path)
    kind = _kind(info.st_mode)
    if kind:
        target = f" (a symlink to {shown_path(os.path.realpath(path))})" if os.path.islink(path) else ""
        raise ScenarioError(f"{what} {name}{target} is {kind}, not a regular file")
    if info.st_size > limit:
        raise ScenarioError(_too_big(path, info.st_size, limit, what))


def _kind(mode: int) -> str:
    """What a path that is not a regular file is, in words ('' for a regular file)."""
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _too_big(path: Path, size: int, limit: int, what: str) -> str:
    return f"{what} {shown_path(path)} is {size:,} bytes or more; a {what} may be at most {limit:,} bytes"


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, min(1 << 16, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _decode(data: bytes, name: str, what: str) -> str:
    try:
        return data.decode("utf-8-sig")  # a byte-order mark, which some editors write, is dropped
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise ScenarioError(
            f"{what} {name} is not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line}, column {column}"
        ) from None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)
