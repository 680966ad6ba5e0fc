"""A linear pass over TOML text before ``tomllib`` reads it: limits that keep reading it cheap.

``tomllib`` recurses once per nested array or inline table (1,000 levels end in RecursionError),
spends time quadratic in the parts of a dotted key (40,000 parts: 35 s and 6 GB before it fails) and
converts numbers of up to 4,300 digits. No scenario needs any of that: its keys have at most two parts
(``machine.cpus``), its values nest two deep (``tasks = [{...}]``) and its numbers are short. So
before parsing, one pass over the tokens (strings and comments skipped exactly as TOML delimits them)
refuses a key of more than ``MAX_KEY_PARTS`` parts, nesting deeper than ``MAX_DEPTH`` and a bare word
or number longer than ``MAX_BARE_CHARS``. It judges nothing else: malformed text is left to ``tomllib``.
"""

from __future__ import annotations

import re

MAX_KEY_PARTS = 8
MAX_DEPTH = 8
MAX_BARE_CHARS = 100

# One token per match, tried in this order. Strings first, exactly as TOML ends them: a multi-line
# string may hold one or two quotes, and up to two more quotes before its closing three are content.
_TOKEN = re.compile(
    r'''(?P<string>"""(?:[^"\\]|\\.|"(?!""))*"""(?:""?)?'''
    r"""|'''(?:[^']|'(?!''))*'''(?:''?)?"""
    r"""|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|["'][^\n]*)"""  # the last: an unclosed string, for tomllib to name
    r"|(?P<comment>#[^\n]*)"
    r"|(?P<newline>\n)"
    # The rest between strings, brackets and '=': one token, looked into only where it may hold a key.
    r"|(?P<run>[^\[\]{}=\"'#\n]+)"
    r"|(?P<mark>.)",
    re.DOTALL,
)


_PIECE = re.compile(r"(?P<word>[^\s,.]+)|(?P<mark>[,.])")
_LONG_WORD = re.compile(rf"[^\s,.]{{{MAX_BARE_CHARS + 1},}}")


class ShapeError(Exception):
    """TOML beyond the limits: where (line, and the key being read) and what."""

    def __init__(self, line: int, key: str, problem: str, token: str = "") -> None:
        super().__init__(f"line {line}: {key}: {problem}" if key else f"line {line}: {problem}")
        self.line = line
        self.key = key
        self.problem = problem
        self.token = token


class _Reader:
    """Where the pass is: nested values, the table and key being read, and the line."""

    def __init__(self) -> None:
        self.line = 1
        self.stack: list[str] = []  # '[' and '{' of the values open now
        self.paths: list[list[str]] = []  # the key each open inline table or array belongs to
        self.table: list[str] = []  # the current [table] or [[array of tables]]
        self.key: list[str] = []  # the key being read, part by part
        self.in_key = True  # reading a key (else a value)
        self.header = False  # reading a [table] header
        self.line_start = True

    def path(self) -> list[str]:
        """The key being read, from the top: table, inline tables, then its own parts."""
        base = self.paths[-1] if self.paths else ([] if self.header else self.table)
        return base + [p for p in self.key if p != "."]

    def fail(self, problem: str, token: str = "") -> ShapeError:
        return ShapeError(self.line, _short_key(".".join(self.path())), problem, token)


def check_shape(text: str) -> None:
    """Raise ShapeError where ``text`` goes beyond the limits above; return otherwise."""
    r = _Reader()
    for m in _TOKEN.finditer(text):
        kind, token = m.lastgroup, m.group()
        if kind == "string":
            r.line += token.count("\n")
            _part(r, token[1:-1])
        elif kind == "run":
            _run(r, token)
        elif kind == "newline":
            r.line += 1
            if not r.stack:
                r.in_key, r.header, r.line_start, r.key = True, False, True, []
        elif kind == "mark":
            _mark(r, token)


def _run(r: _Reader, token: str) -> None:
    """Words, dots and commas: key parts where a key is read, else values that are only measured."""
    if r.in_key or r.header or (r.stack and r.stack[-1] == "{"):
        for piece in _PIECE.finditer(token):
            if piece.lastgroup == "mark":
                _mark(r, piece.group())
            elif len(piece.group()) > MAX_BARE_CHARS:
                raise r.fail(
                    f"a bare word or number of {len(piece.group()):,} characters; at most {MAX_BARE_CHARS}"
                )
            else:
                _part(r, piece.group())
    else:
        long = _LONG_WORD.search(token)
        if long is not None:
            raise r.fail(
                f"a bare word or number of {len(long.group()):,} characters; at most {MAX_BARE_CHARS}"
            )


def _part(r: _Reader, part: str) -> None:
    """A bare word or string: a part of the key being read, or (in a value) nothing to count."""
    r.line_start = False
    if (r.in_key or r.header) and (not r.key or r.key[-1] == "."):
        r.key.append(part)
        if r.header:
            r.table = [p for p in r.key if p != "."]


def _mark(r: _Reader, ch: str) -> None:
    if ch == "[" and r.line_start and not r.stack:  # a [table] or [[array of tables]] header
        r.header, r.in_key, r.key = True, True, []
        return
    r.line_start = False
    if ch == "." and (r.in_key or r.header):
        r.key.append(".")
        if len(r.key) // 2 + 1 > MAX_KEY_PARTS:
            raise r.fail(f"a key of more than {MAX_KEY_PARTS} parts")
    elif ch == "=" and r.in_key and not r.header:
        r.in_key = False
    elif ch in "[{" and not r.header:
        if len(r.stack) >= MAX_DEPTH:
            raise r.fail(f"arrays or inline tables nested more than {MAX_DEPTH} deep")
        r.paths.append(r.path())
        r.stack.append(ch)
        r.in_key, r.key = ch == "{", []
    elif ch in "]}" and r.stack and not r.header:
        r.stack.pop()
        r.paths.pop()
        r.in_key = False
    elif ch == "," and r.stack and r.stack[-1] == "{":
        r.in_key, r.key = True, []


def _short_key(key: str) -> str:
    parts = key.split(".")
    if len(parts) <= 4 and len(key) <= 80:
        return key
    return ".".join(p[:40] for p in parts[:3]) + ".…"
