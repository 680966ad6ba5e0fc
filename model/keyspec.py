"""Key specs and the one check every scenario value passes: type, range or choices, length, text.

A ``KeySpec`` says what one dotted key allows; ``coerce`` checks a value against it and is the only
place a value from a file, ``--set``, a command-line option or a control of the window is accepted.
Errors are ``ScenarioError`` with one line of plain text that names the key, shows the value (long
ones elided, control characters escaped: ``shown``) and says what is allowed. ``one_line`` is the
last guard before any message reaches a terminal or a dialog.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MAX_MESSAGE_CHARS = 1000  # a message longer than this is cut: values are elided long before
SHOWN_CHARS = 40  # characters of a string value an error message repeats
SHOWN_ITEMS = 8  # items of a list value an error message repeats
SHOWN_PATH_CHARS = 200  # a path is shown whole up to this length


class ScenarioError(ValueError):
    """Bad scenario input; the message is one line naming the key and what is allowed."""


def spec_field(
    default: Any,
    doc: str,
    lo: float | None = None,
    hi: float | None = None,
    choices: Any = None,
    *,
    length: tuple[int, int] | None = None,
    items: str | None = None,
    multiline: bool = False,
    parse: Any = None,
) -> Any:
    """A dataclass field that is a scenario key: its default, meaning and what it allows."""
    meta = {"doc": doc, "lo": lo, "hi": hi, "choices": choices}
    meta.update({"length": length, "items": items, "multiline": multiline, "parse": parse})
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class KeySpec:
    """One dotted key: its default, what is allowed, and what it means."""

    key: str
    default: Any
    doc: str
    lo: int | float | None = None  # int where the key is an int: a compiled float field would make 1 into 1.0
    hi: int | float | None = None
    choices: tuple[Any, ...] | None = None
    length: tuple[int, int] | None = None  # characters of a string, entries of a list
    items: str | None = None  # a list's entries, as the message names them ("CPU numbers below machine.cpus")
    multiline: bool = False  # a string that may hold line breaks (and tabs)
    parse: Any = None  # a value with a structure of its own (a task's script): parsed and checked by this

    @property
    def type(self) -> type:
        return type(self.default)


def allowed_text(spec: KeySpec) -> str:
    """What ``spec`` allows, as the messages and the README's key table say it."""
    if spec.choices is not None:
        return "one of " + ", ".join(str(c) for c in spec.choices)
    if spec.lo is not None:
        return f"{spec.lo}..{spec.hi}"
    lo, hi = spec.length if spec.length is not None else (0, 0)
    if spec.type is tuple:
        count = str(lo) if lo == hi else f"{lo}..{hi} distinct"
        return f"{count} {spec.items}"
    if spec.type is str:
        kind = "a text" if spec.multiline else "a string"
        return f"{kind} of {lo}..{hi} characters" if lo else f"{kind} of at most {hi} characters"
    return {bool: "true or false", int: "an integer"}.get(spec.type, "a number")


def coerce(spec: KeySpec, value: Any, where: str) -> Any:
    """``value`` as the type of ``spec``, if allowed; else a ScenarioError naming ``spec.key``."""
    if spec.parse is not None:
        try:
            return spec.parse(value)
        except ValueError as exc:
            raise ScenarioError(f"{where}: {spec.key}: {one_line(str(exc))}") from None
    checked = _typed(spec, value)
    if checked is None or not _in_range(spec, checked):
        raise ScenarioError(
            f"{where}: {spec.key} = {shown(value)} is not allowed; allowed: {allowed_text(spec)}"
        )
    return checked


def check_table(
    specs: Mapping[str, KeySpec], values: Mapping[str, Any], section: str, where: str
) -> dict[str, Any]:
    """Every key of one table checked against its spec; an unknown key lists the allowed ones."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        spec = specs.get(name)
        if spec is None:
            raise ScenarioError(
                f"{where}: unknown key {shown(f'{section}.{name}')}; "
                f"allowed keys in [{section}]: {', '.join(specs)}"
            )
        out[name] = coerce(spec, value, where)
    return out


def _typed(spec: KeySpec, value: Any) -> Any:
    """``value`` converted to the spec's type, or None where it has another type."""
    want = spec.type
    if want is bool:
        return value if isinstance(value, bool) else None
    if want is tuple:
        if type(value) is int:
            value = [value]  # one CPU needs no brackets
        if not isinstance(value, list | tuple) or not _length_ok(spec, len(value)):
            return None  # a list's length first: a long one is refused before its entries are looked at
        if not all(type(v) is int for v in value):
            return None
        fixed = spec.length is not None and spec.length[0] == spec.length[1]
        if not fixed and len(set(value)) < len(value):
            return None  # a set (of CPUs) names each member once; a map (the priomap) may repeat
        return tuple(value)
    if want is float:
        if type(value) is int:  # exact comparison with the range first: a huge integer is no float
            return float(value) if spec.lo is None or spec.lo <= value <= spec.hi else None  # type: ignore[operator]
        # float(): a number from the command line comes as a float that remembers how it was typed
        return float(value) if isinstance(value, float) and math.isfinite(value) else None
    if want is int:
        if type(value) is float and value.is_integer():
            value = int(value)
        return value if type(value) is int else None
    if (
        not isinstance(value, str)
        or not _length_ok(spec, len(value))
        or not _plain_text(value, spec.multiline)
    ):
        return None
    return value


def _length_ok(spec: KeySpec, n: int) -> bool:
    return spec.length is None or spec.length[0] <= n <= spec.length[1]


def _in_range(spec: KeySpec, value: Any) -> bool:
    if spec.choices is not None:
        return value in spec.choices
    if isinstance(value, tuple):  # entries below a limit another key sets: the scenario checks them
        return True
    if spec.lo is not None and spec.hi is not None:
        return bool(spec.lo <= value <= spec.hi)
    return True


def _plain_text(text: str, multiline: bool) -> bool:
    """No control characters (a line break and a tab only where the key is a multi-line text)."""
    allowed = "\n\t" if multiline else ""
    return all(_printable(ch) or ch in allowed for ch in text)


def _printable(ch: str) -> bool:
    """Not a control, format or line-separator character (any kind of space is fine)."""
    return ch.isprintable() or unicodedata.category(ch) == "Zs"


def shown(value: object, depth: int = 0) -> str:
    """``value`` as a message repeats it: like repr, but short, and with control characters escaped."""
    if isinstance(value, str):
        if len(value) <= SHOWN_CHARS:
            return repr(value)
        return f"{repr(value[:SHOWN_CHARS])[:-1]}…' ({len(value):,} characters)"
    if isinstance(value, bool):
        return "true" if value else "false"  # as it was typed: --set and scenario files are TOML
    if not isinstance(value, int | list | tuple | dict):
        return _cut(repr(value))
    if isinstance(value, int):
        if value.bit_length() > 10_000:
            return f"an integer of about {int(value.bit_length() * 0.30103):,} digits"
        digits = str(value)
        return (
            digits if len(digits) <= SHOWN_CHARS else f"{digits[:12]}…{digits[-4:]} ({len(digits):,} digits)"
        )
    if depth >= 3:
        return "[…]" if isinstance(value, list | tuple) else "{…}"
    if isinstance(value, dict):
        pairs = [f"{shown(k)}: {shown(v, depth + 1)}" for k, v in list(value.items())[:SHOWN_ITEMS]]
        more = ", …" if len(value) > SHOWN_ITEMS else ""
        return "{" + ", ".join(pairs) + more + "}"
    entries = [shown(v, depth + 1) for v in value[:SHOWN_ITEMS]]
    if len(value) <= SHOWN_ITEMS:
        return "[" + ", ".join(entries) + "]"
    return "[" + ", ".join(entries) + f", …] ({len(value):,} entries)"


def shown_path(path: object) -> str:
    """A file's path as a message shows it: quoted like ``shown``, whole up to ``SHOWN_PATH_CHARS``,
    longer ones cut in the middle (the file's own name, at the end, stays)."""
    text = str(path)
    if len(text) <= SHOWN_PATH_CHARS:
        return repr(text)
    return f"{repr(text[:40])[:-1]}…{repr(text[-100:])[1:]}"


def _cut(text: str, limit: int = 2 * SHOWN_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` as one line of plain text: line breaks, tabs, escape sequences and other control or
    format characters written as escapes, and cut to ``limit`` characters."""
    out = []
    for ch in text:
        if _printable(ch):
            out.append(ch)
        elif ch in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[ch])
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
        if len(out) > limit:
            return "".join(out)[: limit - 1] + "…"
    return "".join(out)
