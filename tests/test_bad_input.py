"""Bad input, generated from the key specs: every case ends in exit status 2 with one line on stderr
that names the key (or option, or file), no traceback, and no file created or changed.

The cases come from ``key_specs()`` and the ``[[tasks]]`` specs, not from a list kept by hand: every
key just below and just above its range, outside its choices, too long or too short, of every wrong
type, NaN and infinities, huge numbers, deep nesting; each in a file and through ``--set``. Around
them: unknown keys and sections (names drawn from ``random.Random(SEED)``), duplicate task names,
special files as the scenario, bad and unwritable output paths of every command (run, export,
compare, trace, sweep), rt-app JSON workloads (malformed, too deep, too big, bad task names, too many
tasks or threads, unsupported events), a disk that fills mid-write (a fake writer; a real 64 KiB tmpfs
too where the tests run as root), Ctrl-C and a closed pipe. The CLI runs
in-process (a few cases, where a regression would hang or where a signal is the input, run it as a
subprocess with a timeout), inside a sandbox folder whose every file is compared before and after.
"""

from __future__ import annotations

import errno
import hashlib
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from model import cli
from model.cli import outputs
from model.keyspec import KeySpec
from model.scenario import key_specs, task_specs

SEED = 13
ROOT = Path(__file__).resolve().parent.parent
BASE = """[scenario]
name = "base"
duration_s = 0.01
[[tasks]]
name = "hog"
"""
OLD_CSV = b"t_s,bandwidth_mbps\r\n0.1,1\r\n"


@dataclass(frozen=True)
class Case:
    label: str
    argv: tuple[str, ...]  # after "run" or "export"; {sandbox files} by name
    needle: str  # what the one line must name
    scenario: str = BASE  # the text of sandbox/s.toml
    workload: str = ""  # the text of sandbox/w.json (an rt-app workload), where not empty


# ---- values just outside each spec, and of the wrong type -------------------------------------------


def toml(value: object) -> str:
    """A Python value as a TOML value (strings escaped as TOML basic strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return {math.inf: "inf", -math.inf: "-inf"}.get(value, "nan" if math.isnan(value) else repr(value))
    if isinstance(value, str):
        escaped = "".join(c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" for c in value)
        return f'"{escaped}"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    return str(value)


WRONG_TYPES: dict[type, list[str]] = {
    int: ['"2"', "2.5", "true", "[1]", "{ a = 1 }", "1979-05-27"],
    float: ['"0.5"', "true", "[0.5]", "{ a = 1 }"],
    bool: ["1", '"yes"', "[true]"],
    str: ["5", "true", '["a"]', '{ a = "b" }'],
    tuple: ['"0"', "1.5", "[[0]]", '["a"]', "{ a = 0 }", "true"],
}
BAD_SCRIPTS = [  # tasks.script values model.script_steps must refuse, each in one line
    "1",
    '"run"',
    "{ steps = [] }",
    "{ steps = [{ run_us = 0 }] }",
    "{ steps = [{ run_us = 100000001 }] }",
    "{ steps = [{ run_us = nan }] }",
    "{ steps = [{ sleep_us = 0 }] }",
    "{ steps = [{ run_us = 10, sleep_us = 10 }] }",
    '{ steps = [{ lock = "a\\u001b[31m" }, { run_us = 1 }, { frob = 1 }] }',
    "{ steps = [{ run_us = 1 }], loop = 0 }",
    "{ steps = [{ run_us = 1 }], nope = 1 }",
    "{ steps = [{ yield = 2 }] }",
    "{ steps = [" + "{ repeat = 2, steps = [" * 9 + "{ run_us = 1 }" + "] }" * 9 + "] }",
    "{ steps = [" + ", ".join(["{ run_us = 1 }"] * 10_001) + "] }",
]
NON_FINITE = ["nan", "inf", "-inf", "+nan", "1e400", "-1e400"]
HUGE = [
    "1" + "0" * 400,
    "9" * 5000,
    str(10**30),
    str(-(10**30)),
]  # 401 digits: refused before tomllib converts


def bad_values(spec: KeySpec, rng: random.Random) -> Iterator[tuple[str, str]]:
    """(label, TOML text) of values ``spec`` must refuse: every edge of its range, choices and length,
    and a seeded sample of wrong types, non-finite and huge numbers and deep nesting."""
    want = spec.type
    if spec.parse is not None:  # a value with a structure of its own: a task's script
        yield from (("script", t) for t in rng.sample(BAD_SCRIPTS, 4))
        return
    yield from (("type", t) for t in rng.sample(WRONG_TYPES[want], 3))
    if want in (int, float):
        yield from (("non-finite", t) for t in rng.sample(NON_FINITE, 2))
        yield "huge", rng.choice(HUGE)
    if spec.choices is not None:
        yield "choice", toml(rng.choice(["nope", "", "O1", "cfs", "\u00e9"])) if want is str else "-1"
        if want is int:
            yield "choice", str(max(spec.choices) + 1)
            yield "choice", str(max(spec.choices) - 1) if max(spec.choices) - 1 not in spec.choices else "7"
    elif spec.lo is not None and spec.hi is not None:
        if want is int:
            yield "below", str(int(spec.lo) - 1)
            yield "above", str(int(spec.hi) + 1)
        else:
            yield "below", repr(math.nextafter(float(spec.lo), -math.inf))
            yield "above", repr(math.nextafter(float(spec.hi), math.inf))
    if want is str and spec.length is not None:
        lo, hi = spec.length
        yield "too long", toml("x" * (hi + 1))
        if lo > 0:
            yield "too short", '""'
        yield "control", toml(rng.choice(["a\x1b[31mb", "a\x00b", "a\u202eb", "a\rb"]))
        if not spec.multiline:
            yield "newline", toml("a\nb")
    if want is tuple:
        lo, hi = spec.length or (0, 0)
        if lo > 0:
            yield "too short", toml([0] * (lo - 1))
        yield "too long", toml([0] * (hi + 1))
        yield "entry", toml([64] * lo)  # no CPU 64, no band 16
        yield "entry", toml([-1] * lo)
        if lo != hi:
            yield "duplicate", "[0, 0]"
    yield "nested", rng.choice(["[" * 1000 + "]" * 1000, "{a = " * 1000 + "1" + "}" * 1000])


def key_cases() -> list[Case]:
    rng = random.Random(SEED)
    cases: list[Case] = []
    for spec in key_specs().values():
        section, name = spec.key.split(".", 1)
        for label, value in bad_values(spec, rng):
            cases.append(
                Case(
                    f"file {spec.key} {label} {value[:20]}",
                    ("s.toml",),
                    spec.key,
                    f"[{section}]\n{name} = {value}\n",
                )
            )
            cases.append(
                Case(
                    f"--set {spec.key} {label} {value[:20]}",
                    ("s.toml", "--set", f"{spec.key}={value}"),
                    spec.key,
                )
            )
    for spec in task_specs().values():
        name = spec.key.split(".", 1)[1]
        for label, value in bad_values(spec, rng):
            text = (
                f'[[tasks]]\nkind = "hog"\n{name} = {value}\n'
                if name != "kind"
                else f"[[tasks]]\n{name} = {value}\n"
            )
            cases.append(Case(f"file {spec.key} {label} {value[:20]}", ("s.toml",), spec.key, text))
    return cases


def unknown_cases() -> list[Case]:
    rng = random.Random(SEED)
    sections = sorted({k.split(".")[0] for k in key_specs()})
    cases = []
    for _ in range(12):
        section = rng.choice(sections)
        key = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(1, 12)))
        if f"{section}.{key}" in key_specs():
            continue
        cases.append(
            Case(f"unknown key {section}.{key}", ("s.toml",), f"{section}.{key}", f"[{section}]\n{key} = 1\n")
        )
        cases.append(
            Case(
                f"--set unknown {section}.{key}",
                ("s.toml", "--set", f"{section}.{key}=1"),
                f"{section}.{key}",
            )
        )
        bogus = rng.choice(["scenarios", "task", "cpu", "Machine", key])
        cases.append(Case(f"unknown section {bogus}", ("s.toml",), bogus, f"[{bogus}]\nx = 1\n"))
    html = '<h1>big</h1><img src="x">'
    cases += [
        Case("html key", ("s.toml",), "<h1>big</h1>", f"[machine]\n'{html}' = 1\n"),
        Case("escape in key", ("s.toml",), "machine.a\\x1b[31m", '[machine]\n"a\\u001b[31m" = 1\n'),
        Case("newline in key", ("s.toml",), "machine.a\\nb", '[machine]\n"a\\nb" = 1\n'),
        Case("--set without =", ("s.toml", "--set", "machine.cpus"), "KEY=VALUE"),
        Case("--set no section", ("s.toml", "--set", "cpus=2"), "cpus"),
        Case(
            "--set a key twice",
            ("s.toml", "--set", "machine.cpus=2", "--set", "machine.cpus= 3"),
            "given twice",
        ),
        Case("--set huge value", ("s.toml", "--set", "scenario.title=" + "x" * 20_000), "scenario.title"),
        Case(
            "--set dotted value",
            ("s.toml", "--set", "scenario.title={" + ".".join("a" * 40_000) + " = 1}"),
            "scenario.title",
        ),
        Case(
            "dotted key",
            ("s.toml",),
            "a key of more than 8 parts",
            "[scenario]\n" + ".".join(["a"] * 40_000) + " = 1\n",
        ),
        Case(
            "dotted header", ("s.toml",), "a key of more than 8 parts", "[" + ".".join(["a"] * 40_000) + "]\n"
        ),
        Case("section as value", ("s.toml",), "machine", "machine = 5\n"),
        Case("tasks as table", ("s.toml",), "tasks", "[tasks]\nname = 'a'\n"),
        Case("900 KB title", ("s.toml",), "scenario.title", '[scenario]\ntitle = "' + "x" * 900_000 + '"\n'),
        Case("300,000 CPUs", ("s.toml",), "net.irq_cpus", "[net]\nirq_cpus = [" + "0," * 300_000 + "0]\n"),
        Case("malformed", ("s.toml",), "malformed TOML", "[machine\ncpus = 2\n"),
    ]
    return cases


def rule_cases() -> list[Case]:
    """Rules that tie keys together: each names the keys it concerns."""
    two = '[[tasks]]\nname = "a"\n'
    return [
        Case("same name twice", ("s.toml",), "tasks.name", two + two),
        Case(
            "count beside a.1",
            ("s.toml",),
            "tasks.name",
            '[[tasks]]\nname = "a"\ncount = 2\n[[tasks]]\nname = "a.1"\n',
        ),
        Case(
            "iperf's thread name",
            ("s.toml",),
            "tasks.name",
            '[iperf]\nenabled = true\n[[tasks]]\nname = "iperf-data"\n',
        ),
        Case(
            "too many threads",
            ("s.toml",),
            "tasks.count",
            "".join(f'[[tasks]]\nname = "t{i}"\ncount = 64\n' for i in range(5)),
        ),
        Case("irq CPU beyond the machine", ("s.toml", "--set", "net.irq_cpus=[1]"), "net.irq_cpus"),
        Case("task CPU beyond the machine", ("s.toml",), "tasks.cpu", '[[tasks]]\nname = "p"\ncpu = 3\n'),
        Case(
            "iperf CPU beyond the machine",
            ("s.toml", "--set", "iperf.enabled=true", "--set", "iperf.cpu=2"),
            "iperf.cpu",
        ),
        Case(
            "senders beyond the machine",
            ("s.toml",),
            "tasks.count",
            '[[tasks]]\nname = "s"\nkind = "sender"\ncount = 2\n',
        ),
        Case("two bands, default priomap", ("s.toml", "--set", "qdisc.bands=2"), "qdisc.bands"),
        Case(
            "priomap without senders",
            ("s.toml", "--set", "qdisc.priomap=[9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9]"),
            "qdisc.priomap",
        ),
        Case("no irq CPU, 2011", ("qdisc-fairness-2011", "--set", "net.irq_cpus=[]"), "net.irq_cpus"),
        Case("no irq CPU, 2007", ("cfs-yield-2007", "--set", "net.irq_cpus=[]"), "net.irq_cpus"),
        Case("no irq CPU, 2009", ("bfs-saturated-2009", "--set", "net.irq_cpus=[]"), "net.irq_cpus"),
    ]


def option_cases() -> list[Case]:
    run = [
        (["--seed", "-1"], "--seed"),
        (["--seed", str(2**63)], "--seed"),
        (["--seed", str(2**70)], "--seed"),
        (["--seed", "9" * 5000], "--seed"),
        (["--seed", "x"], "--seed"),
        (["--duration", "1e9"], "--duration 1e9 is"),
        (["--duration", "5E-9"], "--duration 5E-9 is"),
        (["--duration", "0"], "--duration"),
        (["--duration", "0.0009"], "--duration"),
        (["--duration", "3600.001"], "--duration"),
        (["--duration", "nan"], "--duration"),
        (["--duration", "inf"], "--duration"),
        (["--duration", "-inf"], "--duration"),
        (["--duration", "1e999"], "--duration"),
        (["--duration", "-1"], "--duration"),
        (["--duration", "x"], "--duration"),
        (["--csv", ""], "--csv"),
        (["--csv", "newdir/"], "--csv"),
        (["--csv", "taken"], "--csv"),
        (["--csv", "taken/"], "--csv"),
        (["--csv", "ro.csv"], "--csv"),
        (["--csv", "s.toml"], "--csv"),
        (["--csv", "linked.toml"], "--csv"),  # a symlink to the scenario file itself
        (["--csv", "nowhere/x.csv"], "--csv"),
        (["--csv", "note.txt/x.csv"], "--csv"),
        (["--csv", "pipe.csv"], "--csv"),
        (["--csv", "x" * 300 + ".csv"], "--csv"),
        (["--csv", "/dev/null"], "--csv"),
    ]
    export = [
        (["--out", "x.gif"], "--out"),
        (["--out", ""], "--out"),
        (["--out", "taken"], "--out"),
        (["--out", "shot/"], "--out"),
        (["--out", "pipe.png"], "--out"),
        (["--out", "ro.png"], "--out"),
        (["--out", "nowhere/x.png"], "--out"),
        (["--out", "x.png", "--at", "nan"], "--at"),
        (["--out", "x.png", "--at", "inf"], "--at"),
        (["--out", "x.png", "--at", "-inf"], "--at"),
        (["--out", "x.png", "--at", "-1"], "--at"),
        (["--out", "x.png", "--at", "1e9"], "--at 1e9 is"),  # as typed, not as Python prints the float
        (["--out", "x.png", "--at", "abc"], "--at: 'abc' is not a number"),
        (["--out", "x.png", "--seed", "-1"], "--seed"),
        (["--out", "x.png", "--size", "big"], "--size"),
        (["--out", "x.png", "--size", "\u00b2x\u00b2"], "--size"),
        (["--out", "x.png", "--size", "99999x99999"], "--size"),
    ]
    cases = [Case(f"run {' '.join(a)[:40]}", ("s.toml", *a), n) for a, n in run]
    cases += [Case(f"export {' '.join(a)[:40]}", ("EXPORT", "s.toml", *a), n) for a, n in export]
    cases.append(Case("bench --repeat 0", ("BENCH", "--repeat", "0"), "--repeat"))
    cases.append(Case("bench --repeat 10**6", ("BENCH", "--repeat", "1000000"), "--repeat"))
    cases.append(Case("bench --duration nan", ("BENCH", "--duration", "nan"), "--duration"))
    cases.append(Case("bench --only no-such-row", ("BENCH", "--only", "no-such-row"), "--only"))
    return cases


def tool_cases() -> list[Case]:
    """compare, trace and sweep: their options and output paths, all refused before any run."""
    ab = ("COMPARE", "s.toml", "--a", "sched.policy=o1", "--b", "sched.policy=bfs")
    compare = [
        (["--out", ""], "--out"),
        (["--out", "taken/"], "--out"),
        (["--out", "s.toml"], "--out"),
        (["--out", "linked.toml"], "--out"),
        (["--out", "ro.png"], "--out"),
        (["--out", "pipe.png"], "--out"),
        (["--out", "nowhere/x.svg"], "--out"),
        (["--out", "x.gif"], "--out"),
        (["--seed", "-1"], "--seed"),
        (["--seed", str(2**70)], "--seed"),
        (["--duration", "nan"], "--duration"),
        (["--duration", "1e999"], "--duration"),
    ]
    cases = [Case(f"compare {' '.join(a)[:40]}", (*ab, *a), n) for a, n in compare]
    cases.append(
        Case(
            "compare bad side value",
            ("COMPARE", "s.toml", "--a", "machine.cpus=nan", "--b", "machine.cpus=2"),
            "machine.cpus",
        )
    )
    tr = ("TRACE", "s.toml")
    trace = [
        (["--out", ""], "--out"),
        (["--out", "taken"], "--out"),
        (["--out", "s.toml"], "--out"),
        (["--out", "ro.json"], "--out"),
        (["--out", "pipe.json"], "--out"),
        (["--out", "nowhere/t.json"], "--out"),
        (["--out", "t.json", "--from", "nan"], "--from"),
        (["--out", "t.json", "--from", "-1"], "--from"),
        (["--out", "t.json", "--from", "3e4"], "--from 3e4 --to"),
        (["--out", "t.json", "--to", "inf"], "--to"),
        (["--out", "t.json", "--sample-ms", "nan"], "--sample-ms"),
        (["--out", "t.json", "--sample-ms", "1e999"], "--sample-ms"),
        (["--out", "t.json", "--max-mb", "inf"], "--max-mb"),
        (["--out", "t.json", "--max-mb", "nan"], "--max-mb"),
        (["--out", "t.json", "--max-mb", "0"], "--max-mb"),
        (["--out", "t.json", "--seed", "-1"], "--seed"),
        (["--out", "t.json", "--duration", "-inf"], "--duration"),
    ]
    cases += [Case(f"trace {' '.join(a)[:40]}", (*tr, *a), n) for a, n in trace]
    cases.append(
        Case("trace over its workload", ("TRACE", "w.json", "--out", "w.json"), "--out", workload=RTAPP)
    )
    sw = ("SWEEP", "s.toml", "--vary", "sched.policy=o1,bfs", "--metric", "bandwidth_mbps")
    sweep = [
        (["--out", ""], "--out"),
        (["--out", "taken/"], "--out"),
        (["--out", "s.toml"], "--out"),
        (["--out", "ro.csv"], "--out"),
        (["--out", "pipe.csv"], "--out"),
        (["--plot", "x.gif"], "--plot"),
        (["--plot", "ro.png"], "--plot"),
        (["--plot", "pipe.png"], "--plot"),
        (["--plot", "linked.toml"], "--plot"),
        (["--seeds", "0-9223372036854775806"], "--seeds"),
        (["--seeds", "1-" + "9" * 5000], "--seeds"),
        (["--seeds", "5-1"], "--seeds"),
        (["--seeds", "x"], "--seeds"),
        (["--jobs", "0"], "--jobs"),
        (["--jobs", "99999"], "--jobs"),
        (["--vary", "machine.cpus=1,nan"], "machine.cpus"),
        (["--vary", "machine.cpus=" + ",".join(["1"] * 200_000)], "runs"),
        (["--vary", "x"], "--vary"),
        (["--duration", "nan"], "--duration"),
    ]
    cases += [Case(f"sweep {' '.join(a)[:40]}", (*sw, *a), n) for a, n in sweep]
    cases.append(
        Case("sweep of a FIFO", ("SWEEP", "pipe.json", "--vary", "sched.policy=o1", "--metric", "x"), "FIFO")
    )
    return cases


RTAPP = '{"tasks": {"a": {"run": 1000, "sleep": 1000}}}'


def rtapp_cases() -> list[Case]:
    """rt-app JSON workloads: every line names the file and the task, event or key that is wrong."""
    task = '"a": {"run": 1000}'
    many = ", ".join(f'"t{i}": {{"mem{i}": 1, "fork": 1}}' for i in range(200))
    cases = [
        ("malformed", '{"tasks": {', "malformed JSON"),
        ("not an object", "[1, 2]", "JSON object"),
        ("unknown top key", '{"tasks": {' + task + '}, "nope": 1}', "'nope'"),
        ("no tasks", '{"global": {}}', "'tasks'"),
        ("5000-digit integer", '{"tasks": {"a": {"run": 1' + "0" * 5000 + "}}}", "malformed JSON"),
        ("nested 100,000 deep", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("escape in a task name", '{"tasks": {"a\\u001b[31m": {"run": 1}}}', "tasks.name"),
        ("5000-character task name", '{"tasks": {"' + "x" * 5000 + '": {"run": 1}}}', "tasks.name"),
        (
            "300 tasks",
            '{"tasks": {' + ", ".join(f'"t{i}": {{"run": 1}}' for i in range(300)) + "}}",
            "at most 256",
        ),
        (
            "6400 threads",
            '{"tasks": {' + ", ".join(f'"t{i}": {{"run": 1, "instance": 64}}' for i in range(100)) + "}}",
            "tasks.count",
        ),
        ("400 unsupported events", '{"tasks": {' + many + "}}", "more"),
        ("run -1", '{"tasks": {"a": {"run": -1}}}', "run"),
        ("run NaN", '{"tasks": {"a": {"run": NaN}}}', "run"),
        ("timer period 1e999", '{"tasks": {"a": {"timer": {"ref": "t", "period": 1e999}}}}', "period"),
        ("priority 100", '{"tasks": {"a": {"run": 1, "priority": 100}}}', "priority"),
        ("duration Infinity", '{"tasks": {' + task + '}, "global": {"duration": Infinity}}', "duration"),
        ("instance 65", '{"tasks": {"a": {"run": 1, "instance": 65}}}', "instance"),
        (
            "same name as an instance",
            '{"tasks": {"a": {"run": 1, "instance": 2}, "a.1": {"run": 1}}}',
            "tasks.name",
        ),
    ]
    out = [Case(f"rt-app {label}", ("w.json",), needle, workload=text) for label, text, needle in cases]
    out += [
        Case("rt-app not UTF-8", ("latin1.json",), "not UTF-8"),
        Case("rt-app too big", ("big.json",), "big.json"),
        Case("rt-app FIFO", ("pipe.json",), "FIFO"),
        Case("rt-app folder", ("taken.json",), "folder"),
    ]
    return out


def file_cases() -> list[Case]:
    """The scenario path itself is wrong: the line names the file."""
    return [
        Case("a folder", ("taken",), "taken"),
        Case("not UTF-8", ("latin1.toml",), "not UTF-8"),
        Case("too big", ("big.toml",), "big.toml"),
        Case("dangling symlink", ("dangling.toml",), "dangling.toml"),
        Case("no such file", ("missing.toml",), "missing.toml"),
        Case("path without .toml", ("s",), "'s'"),  # s.toml exists: never read in its place
        Case("unknown name", ("nosuch-story",), "nosuch-story"),
        Case("a built-in's name as a path", ("./cfs-yield-2007",), "cfs-yield-2007"),
        Case("traversal", ("../../etc/passwd-not-there.toml",), "passwd-not-there"),
    ]


# ---- the sandbox: every file in it is compared before and after each case ---------------------------


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    box = tmp_path / "box"
    box.mkdir()
    (box / "out.csv").write_bytes(OLD_CSV)
    (box / "ro.csv").write_bytes(OLD_CSV)
    (box / "ro.csv").chmod(0o444)
    (box / "ro.png").write_bytes(b"old")
    (box / "ro.png").chmod(0o444)
    (box / "note.txt").write_text("a note\n")
    (box / "taken").mkdir()
    os.mkfifo(box / "pipe.csv")
    os.mkfifo(box / "pipe.png")
    os.mkfifo(box / "pipe.json")
    (box / "ro.json").write_bytes(b"{}")
    (box / "ro.json").chmod(0o444)
    (box / "taken.json").mkdir()
    (box / "latin1.json").write_bytes('{"tasks": {"caf\u00e9": {"run": 1}}}'.encode("latin-1"))
    with open(box / "big.json", "wb") as fh:
        fh.truncate(9_000_000)  # sparse: over the 8 MB a workload may have
    (box / "latin1.toml").write_bytes('[scenario]\ntitle = "caf\u00e9"\n'.encode("latin-1"))
    with open(box / "big.toml", "wb") as fh:
        fh.truncate(2 << 20)  # sparse: 2 MiB that take no room
    os.symlink(box / "nothing-here.toml", box / "dangling.toml")
    os.symlink(box / "s.toml", box / "linked.toml")
    monkeypatch.chdir(box)
    return box


def state(box: Path) -> dict[str, tuple[int, int, str]]:
    """Every entry under ``box``: mode, size and content hash (symlinks and FIFOs by kind only)."""
    out = {}
    for path in sorted(box.rglob("*")):
        info = path.lstat()
        digest = ""
        if path.is_file() and not path.is_symlink() and info.st_size < 1 << 20:
            digest = hashlib.sha1(path.read_bytes()).hexdigest()
        out[str(path.relative_to(box))] = (info.st_mode, info.st_size, digest)
    return out


def run_case(case: Case, box: Path, capfd: pytest.CaptureFixture[str]) -> str:
    """Run ``case`` in-process; "" if it behaved, else what went wrong."""
    scenario = box / "s.toml"
    if not scenario.exists() or scenario.read_text(encoding="utf-8") != case.scenario:
        scenario.write_text(case.scenario, encoding="utf-8")
    if case.workload:
        (box / "w.json").write_text(case.workload, encoding="utf-8")
    before = state(box)
    argv = list(case.argv)
    if argv[0].isupper():  # a command other than run: EXPORT, BENCH, COMPARE, TRACE, SWEEP
        argv = [argv[0].lower(), *argv[1:]]
    else:
        argv = ["run", *argv, "--csv", "out.csv"] if "--csv" not in argv else ["run", *argv]
    code = cli.main(argv)
    out, err = capfd.readouterr()
    lines = err.splitlines()
    problems = []
    if code != 2:
        problems.append(f"exit status {code}")
    if len(lines) != 1 or not err.startswith("schedlab: error: "):
        problems.append(f"stderr is not one error line: {err[:300]!r}")
    elif case.needle not in lines[0]:
        problems.append(f"the line does not name {case.needle!r}: {lines[0][:300]!r}")
    elif len(lines[0]) > 1100:
        problems.append(f"a line of {len(lines[0])} characters")
    if "Traceback" in err or out:
        problems.append(f"traceback or output: {(err + out)[:200]!r}")
    if state(box) != before:
        problems.append("a file was created or changed")
    return "; ".join(problems)


def check_all(cases: list[Case], box: Path, capfd: pytest.CaptureFixture[str]) -> None:
    failures = [f"{c.label}: {p}" for c in cases if (p := run_case(c, box, capfd))]
    assert not failures, f"{len(failures)} of {len(cases)} cases:\n" + "\n".join(failures[:40])


def test_every_key_refuses_values_outside_its_spec(sandbox: Path, capfd: pytest.CaptureFixture[str]) -> None:
    cases = key_cases()
    assert len(cases) > 1000  # every key of every section, in a file and through --set
    check_all(cases, sandbox, capfd)


def test_unknown_keys_sections_and_odd_keys(sandbox: Path, capfd: pytest.CaptureFixture[str]) -> None:
    check_all(unknown_cases(), sandbox, capfd)


def test_rules_between_keys(sandbox: Path, capfd: pytest.CaptureFixture[str]) -> None:
    check_all(rule_cases(), sandbox, capfd)


def test_options_and_output_paths(sandbox: Path, capfd: pytest.CaptureFixture[str]) -> None:
    check_all(option_cases(), sandbox, capfd)


def test_compare_trace_and_sweep_options(sandbox: Path, capfd: pytest.CaptureFixture[str]) -> None:
    check_all(tool_cases(), sandbox, capfd)


def test_rt_app_workloads(sandbox: Path, capfd: pytest.CaptureFixture[str]) -> None:
    check_all(rtapp_cases(), sandbox, capfd)


def test_scenario_paths(sandbox: Path, capfd: pytest.CaptureFixture[str]) -> None:
    check_all(file_cases(), sandbox, capfd)


def test_a_byte_order_mark_is_accepted(sandbox: Path, capfd: pytest.CaptureFixture[str]) -> None:
    (sandbox / "bom.toml").write_bytes(b"\xef\xbb\xbf" + BASE.encode())
    assert cli.main(["run", "bom.toml", "--json"]) == 0
    assert '"scenario": "base"' in capfd.readouterr().out


# ---- writes that fail part-way: the old file stays, nothing partial is left -------------------------


class FailingFile:
    """A file that takes ``room`` bytes and then fails as a full disk does."""

    def __init__(self, real: object, room: int) -> None:
        self.real, self.room = real, room

    def write(self, data: bytes) -> int:
        if len(data) > self.room:
            self.real.write(data[: self.room])  # type: ignore[attr-defined]
            self.room = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(data)
        return self.real.write(data)  # type: ignore[attr-defined, no-any-return]

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)

    def __enter__(self) -> FailingFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.real.close()  # type: ignore[attr-defined]


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    real = outputs._temporary_file

    def failing(path: Path, what: str) -> tuple[object, str]:
        fh, partial = real(path, what)
        return FailingFile(fh, 100), partial

    monkeypatch.setattr(outputs, "_temporary_file", failing)


def test_csv_on_a_full_disk_keeps_the_old_file(sandbox: Path, capfd, full_disk) -> None:
    (sandbox / "s.toml").write_text(BASE)
    before = state(sandbox)
    assert cli.main(["run", "s.toml", "--json", "--csv", "out.csv"]) == 2
    out, err = capfd.readouterr()
    assert err.count("\n") == 1 and "--csv out.csv: cannot write: No space left on device" in err
    assert '"scenario": "base"' in out  # the run's summary is not lost with the file
    assert state(sandbox) == before


def test_interrupted_write_keeps_the_old_file(sandbox: Path, capfd, monkeypatch) -> None:
    (sandbox / "s.toml").write_text(BASE)
    before = state(sandbox)

    def interrupted(fh: object) -> None:
        fh.write(b"half a file")  # type: ignore[attr-defined]
        raise KeyboardInterrupt

    monkeypatch.setattr(
        "model.cli.series_csv.write_bytes_atomic",
        lambda path, what, data: outputs.write_atomic(path, what, interrupted),
    )
    assert cli.main(["run", "s.toml", "--csv", "out.csv"]) == cli.EXIT_INTERRUPTED
    assert capfd.readouterr().err == ""
    assert state(sandbox) == before


def test_export_on_a_full_disk_keeps_the_old_picture(qapp, sandbox: Path, capfd, full_disk) -> None:
    (sandbox / "s.toml").write_text(BASE)
    (sandbox / "old.png").write_bytes(b"an older picture")
    before = state(sandbox)
    argv = ["export", "s.toml", "--at", "0.005", "--size", "1280x720"]
    for name in ("old.png", "new.svg"):
        assert cli.main([*argv, "--out", name]) == 2
        err = capfd.readouterr().err
        assert err.count("\n") == 1 and f"--out {name}: cannot write: No space left on device" in err, err
        assert state(sandbox) == before


@pytest.fixture
def tiny_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A real 64 KiB file system (root only), filled by the test."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True
    ).returncode:
        pytest.skip("mount -t tmpfs is not allowed here")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_csv_on_a_real_full_file_system(tiny_tmpfs: Path, sandbox: Path, capfd) -> None:
    (sandbox / "s.toml").write_text(BASE.replace("0.01", "100.0"))  # a CSV of 1000 rows
    target = tiny_tmpfs / "good.csv"
    target.write_bytes(OLD_CSV * 100)
    vfs = os.statvfs(tiny_tmpfs)
    (tiny_tmpfs / "filler").write_bytes(b"\0" * (vfs.f_bavail * vfs.f_frsize - 4 * 1024))  # 4 KB left
    before = state(tiny_tmpfs)
    assert cli.main(["run", "s.toml", "--csv", str(target)]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err
    assert state(tiny_tmpfs) == before


# ---- a few cases as a real process: a signal, a closed pipe, a file that would block ---------------

SCHEDLAB = [sys.executable, "-c", "import sys; from model.cli import main; sys.exit(main())"]


def schedlab(*argv: str, cwd: Path, **kw: object) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([*SCHEDLAB, *argv], cwd=cwd, env=env, stderr=subprocess.PIPE, **kw)  # type: ignore[call-overload, no-any-return]


@pytest.mark.parametrize("target", ["fifo.toml", "zero.toml"])
def test_special_files_never_block(tmp_path: Path, target: str) -> None:
    os.mkfifo(tmp_path / "fifo.toml")
    os.symlink("/dev/zero", tmp_path / "zero.toml")
    p = schedlab("run", target, cwd=tmp_path, stdout=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 2 and out == b""
    line = err.decode()
    assert line.count("\n") == 1 and target in line and "not a regular file" in line


@pytest.mark.parametrize("json", [True, False])
def test_a_closed_pipe_ends_quietly(tmp_path: Path, json: bool) -> None:
    p = schedlab(
        "run",
        "yield-playground",
        "--duration",
        "0.2",
        *(["--json"] if json else []),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
    )
    p.stdout.close()  # type: ignore[union-attr]  # like `| head -0`: whatever it prints goes nowhere
    _, err = p.communicate(timeout=120)
    assert (p.returncode, err) == (cli.EXIT_BROKEN_PIPE, b"")


def wait_for_cpu(pid: int, seconds: float, timeout: float = 60.0) -> None:
    """Until process ``pid`` has used ``seconds`` of CPU time (user + system, from ``/proc``)."""
    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / tick >= seconds:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} used less than {seconds} s of CPU in {timeout} s")


def test_ctrl_c_exits_130_quietly_and_keeps_the_old_csv(tmp_path: Path) -> None:
    (tmp_path / "out.csv").write_bytes(OLD_CSV)
    before = state(tmp_path)
    p = schedlab(
        "run",
        "qdisc-fairness-2011",
        "--duration",
        "3600",
        "--csv",
        "out.csv",
        cwd=tmp_path,
        stdout=subprocess.PIPE,
    )
    wait_for_cpu(p.pid, 1.0)  # well into the run, however loaded the machine: past its imports
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert (p.returncode, out, err) == (cli.EXIT_INTERRUPTED, b"", b"")
    assert state(tmp_path) == before
