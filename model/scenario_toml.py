"""A scenario written back as a scenario file: what File ▸ Save scenario as… writes, so that a run
tried in the window (its live settings as they are now) can be opened again, run with ``schedlab run
FILE`` or shared.

The file holds the keys whose values differ from a default scenario's (every section's defaults are
fixed, so a key left out reads back as the same value), plus the scenario's name, title, duration,
seed and scheduler, which a reader looks for; then each ``[[tasks]]`` entry the same way, a script as
its ``[tasks.script]`` table. ``parse_scenario`` reads it back to an equal scenario
(tests/test_scenario_toml.py), the lesson apart: a saved file is the user's, not a built-in story.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from model.scenario import Scenario
from model.scenario_sections import TaskSpec
from model.script_steps import (
    US,
    Barrier,
    Broadcast,
    Lock,
    Repeat,
    Run,
    Runtime,
    Script,
    Signal,
    Sleep,
    Step,
    Sync,
    Timer,
    Unlock,
    Wait,
    Yield,
)

ALWAYS = ("scenario.name", "scenario.title", "scenario.duration_s", "scenario.seed", "sched.policy")


def scenario_toml(scenario: Scenario, header: str = "") -> str:
    """The scenario file of ``scenario``; ``header`` (lines of text) goes first, as comments."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    defaults = Scenario().settings()
    sections: dict[str, list[str]] = {}
    for key, value in scenario.settings().items():
        if key in ALWAYS or value != defaults.get(key):
            section, _, name = key.partition(".")
            sections.setdefault(section, []).append(f"{name} = {toml_value(value)}")
    for section, entries in sections.items():
        lines += ["", f"[{section}]", *entries]
    for task in scenario.tasks:
        lines += ["", "[[tasks]]", *_task_lines(task)]
    return "\n".join(lines).lstrip("\n") + "\n"


def _task_lines(task: TaskSpec) -> list[str]:
    default = TaskSpec()
    out, script = [], None
    for f in dataclasses.fields(TaskSpec):
        value = getattr(task, f.name)
        if f.name == "script":
            script = value if value != default.script else None
        elif f.name in ("name", "kind") or value != getattr(default, f.name):
            out.append(f"{f.name} = {toml_value(value)}")
    if script is not None:
        out += ["", "[tasks.script]", *_script_lines(script)]
    return out


def _script_lines(script: Script) -> list[str]:
    out = []
    if script.loop != Script().loop:
        out.append(f"loop = {script.loop}")
    if script.delay_us:
        out.append(f"delay_us = {script.delay_us}")
    return [*out, "steps = [", *(f"  {_inline(_step_table(s))}," for s in script.steps), "]"]


def _step_table(step: Step) -> dict[str, Any]:
    """A step as ``model.script_steps.parse_step`` reads it: one action key, and its extra keys."""
    match step:
        case Run(ns):
            return {"run_us": ns // US}
        case Runtime(ns):
            return {"runtime_us": ns // US}
        case Sleep(ns):
            return {"sleep_us": ns // US}
        case Timer(ref, period_ns, absolute):
            return {"timer_us": period_ns // US, "timer": ref, "absolute": absolute}
        case Yield():
            return {"yield": True}
        case Repeat(count, steps, name):
            return {"repeat": count, "name": name, "steps": [_step_table(s) for s in steps]}
        case Wait(cond, mutex):
            return {"wait": cond, "mutex": mutex}
        case Sync(cond, mutex):
            return {"sync": cond, "mutex": mutex}
        case Lock(name) | Unlock(name) | Signal(name) | Broadcast(name) | Barrier(name):
            verb = {
                Lock: "lock",
                Unlock: "unlock",
                Signal: "signal",
                Broadcast: "broadcast",
                Barrier: "barrier",
            }
            return {verb[type(step)]: name}
    raise TypeError(f"no scenario-file form for the step {step!r}")


def _inline(table: dict[str, Any]) -> str:
    return "{ " + ", ".join(f"{k} = {_any(v)}" for k, v in table.items()) + " }"


def _any(value: Any) -> str:
    if isinstance(value, dict):
        return _inline(value)
    if isinstance(value, list):
        return "[" + ", ".join(_any(v) for v in value) + "]"
    return toml_value(value)


def toml_value(value: object) -> str:
    """A setting's value as TOML writes it (a string always quoted: a file has no bare words)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back as the same float
    if isinstance(value, tuple | list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return _basic_string(value)
    raise TypeError(f"no TOML form for {value!r}")


def _basic_string(text: str) -> str:
    """A TOML basic string: backslash and quote escaped, and every control character (TOML allows
    none unescaped but the tab). Text of several lines is a multi-line string, its lines as they are
    (the line break after the opening quotes is not part of it)."""
    lines = "\n" in text
    named = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}
    named["\n"] = "\n" if lines else "\\n"
    out = []
    for ch in text:
        if ch in named:
            out.append(named[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"""\n' + "".join(out) + '"""' if lines else '"' + "".join(out) + '"'
