"""rt-app workloads (the JSON of rt-app, LISA's wlgen and sched_ext's simulator) as schedlab scenarios.

Each rt-app task becomes a ``[[tasks]]`` entry of kind ``script`` (``model.script_steps``), its
``instance`` the entry's ``count``, its phases repeats with their ``loop``. The subset that maps onto
schedlab's tasks: the events ``run``, ``runtime``, ``sleep``, ``timer``, ``yield``, ``lock``,
``unlock``, ``signal``, ``broad``, ``wait``, ``sync`` and ``barrier`` (named, as rt-app does, by their
prefix: ``run0``, ``sleep1``; duplicate keys are kept in order, as rt-app's workgen renames them);
SCHED_OTHER with ``priority`` as the nice value; ``cpus`` of one CPU; ``delay``; and the global
``duration``. Keys that only steer rt-app's logs (``logdir``, ``ftrace``, ``calibration``, ...) are
accepted and change nothing. Anything else — memory and I/O events, fork, suspend/resume,
semaphores, real-time and deadline policies, uclamp, task groups — is refused in one line that names
every unsupported event with its file, task and phase. ``load_any`` and ``parse_any`` are the one
entry for any scenario file: rt-app JSON here, schedlab TOML in ``model.scenario``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from model import script_steps as st
from model.keyspec import coerce, shown
from model.scenario import (
    Scenario,
    ScenarioError,
    check_consistent,
    load_scenario,
    parse_scenario,
    task_specs,
)
from model.scenario_file import read_scenario_text
from model.scenario_sections import TaskSpec

US = 1_000
MAX_FILE_BYTES = 8_000_000
MAX_TASKS = 256  # as many as a scenario's threads: each task is at least one
MAX_NAMED = 8  # unsupported things a message names; the rest are counted

# rt-app_parse_config.c, events[]: a key is an event if it starts with one of these, tried in order.
RTAPP_EVENTS = (
    "lock", "unlock", "wait", "signal", "broad", "sync", "sleep", "runtime", "run", "timer", "suspend",
    "resume", "memrun", "mem", "iorun", "yield", "barrier", "fork", "sem_post", "sem_wait",
)  # fmt: skip
SUPPORTED = (
    "run",
    "runtime",
    "sleep",
    "timer",
    "yield",
    "lock",
    "unlock",
    "signal",
    "broad",
    "wait",
    "sync",
    "barrier",
)
PROPERTIES = ("loop", "policy", "priority", "cpus", "nodes_membind")  # of a task or a phase
TASK_ONLY = ("instance", "delay", "phases")
REFUSED_PROPERTIES = {
    "util_min": "uclamp",
    "util_max": "uclamp",
    "taskgroup": "task groups (cgroups)",
    "dl-runtime": "SCHED_DEADLINE and custom slices",
    "dl-period": "SCHED_DEADLINE",
    "dl-deadline": "SCHED_DEADLINE",
}
PHASE_FIXED: dict[str, Any] = {"policy": "SCHED_OTHER", "priority": 0, "cpus": None}  # the defaults
GLOBAL_IGNORED = (
    "calibration", "default_policy", "pi_enabled", "lock_pages", "logdir", "log_basename", "log_size",
    "ftrace", "gnuplot", "io_device", "mem_buffer_size", "cumulative_slack",
)  # fmt: skip

Pairs = list[tuple[str, Any]]


@dataclass
class _Problems:
    """Every unsupported thing found, so that one line can name them all."""

    source: str
    items: list[str]

    def add(self, task: str, phase: str, what: str) -> None:
        where = f"task {shown(task)}" + (f" phase {shown(phase)}" if phase else "")
        self.items.append(f"{where}: {what}")


def _event_kind(key: str) -> str | None:
    return next((e for e in RTAPP_EVENTS if key.startswith(e)), None)


def _pairs(value: Any, what: str) -> Pairs:
    if not isinstance(value, list) or not all(isinstance(p, tuple) and len(p) == 2 for p in value):
        raise ScenarioError(f"{what} must be a JSON object")
    return value


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise ScenarioError(f"{what} = {shown(value)}; allowed {lo}..{hi}")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise ScenarioError(f"{what} = {shown(value)}; allowed: a name")
    return value


def _event(kind: str, key: str, value: Any, what: str) -> st.Step | None:
    """One supported rt-app event as a step (None: a no-op, such as run 0)."""
    if kind in ("run", "runtime", "sleep"):
        us = _int(value, what, 0, st.MAX_US)
        if kind == "sleep":
            return st.Sleep(us * US)
        if us == 0:
            return None
        return st.Run(us * US) if kind == "run" else st.Runtime(us * US)
    if kind == "timer":
        obj = dict(_pairs(value, what))
        period = _int(obj.get("period", 0), f"{what}.period", 1, st.MAX_US)
        mode = obj.get("mode", "relative")
        if mode not in ("relative", "absolute"):
            raise ScenarioError(f"{what}.mode = {shown(mode)}; allowed: relative, absolute")
        return st.Timer(_text(obj.get("ref", "unknown"), f"{what}.ref"), period * US, mode == "absolute")
    if kind == "yield":
        return st.Yield()
    if kind in ("wait", "sync"):
        obj = dict(_pairs(value, what))
        cond = _text(obj.get("ref"), f"{what}.ref")
        mutex = _text(obj.get("mutex"), f"{what}.mutex")
        return st.Wait(cond, mutex) if kind == "wait" else st.Sync(cond, mutex)
    name = _text(value, what)
    if kind == "lock":
        return st.Lock(name)
    if kind == "unlock":
        return st.Unlock(name)
    if kind == "signal":
        return st.Signal(name)
    if kind == "broad":
        return st.Broadcast(name)
    return st.Barrier(name)


def _phase(pairs: Pairs, task: str, phase: str, props: dict[str, Any], problems: _Problems) -> list[st.Step]:
    """The events of one phase (or of a task without phases), in order."""
    steps: list[st.Step] = []
    for key, value in pairs:
        kind = _event_kind(key)
        what = (
            f"{problems.source}: task {shown(task)}" + (f" phase {shown(phase)}" if phase else "") + f" {key}"
        )
        if kind in SUPPORTED:
            step = _event(kind, key, value, what)
            if step is not None:
                steps.append(step)
        elif kind is not None:
            problems.add(task, phase, f"{shown(key)}")
        elif key in REFUSED_PROPERTIES:
            problems.add(task, phase, f"{shown(key)} ({REFUSED_PROPERTIES[key]} are not modelled)")
        elif key in PROPERTIES and phase and key in PHASE_FIXED and props.get(key, PHASE_FIXED[key]) != value:
            problems.add(task, phase, f"{shown(key)} changes within the task (not modelled)")
        elif key not in PROPERTIES and not (not phase and key in TASK_ONLY):
            problems.add(task, phase, f"{shown(key)} is not an rt-app event or property")
    return steps


def _policy(pairs: dict[str, Any], task: str, problems: _Problems) -> tuple[int, int]:
    """The task's nice value and pinned CPU (-1: none)."""
    policy = pairs.get("policy", "SCHED_OTHER")
    if policy != "SCHED_OTHER":
        problems.add(task, "", f"policy {shown(policy)} (schedlab models SCHED_OTHER only)")
    nice = pairs.get("priority", 0)
    if type(nice) is not int or not -20 <= nice <= 19:
        problems.add(task, "", f"priority {shown(nice)} (SCHED_OTHER: a nice value, -20..19)")
        nice = 0
    cpus = pairs.get("cpus")
    cpu = -1
    if cpus is not None:
        if not isinstance(cpus, list) or len(cpus) != 1 or type(cpus[0]) is not int or not 0 <= cpus[0] < 64:
            problems.add(task, "", f"cpus {shown(cpus)} (schedlab pins a task to one CPU or to none)")
        else:
            cpu = cpus[0]
    return nice, cpu


def _task(name: str, obj: Pairs, problems: _Problems) -> TaskSpec | None:
    props = dict(obj)
    nice, cpu = _policy(props, name, problems)
    instances = _int(props.get("instance", 1), f"{problems.source}: task {shown(name)} instance", 0, 64)
    delay = _int(props.get("delay", 0), f"{problems.source}: task {shown(name)} delay", 0, st.MAX_US)
    steps: list[st.Step] = []
    if "phases" in props:
        loop = _int(props.get("loop", -1), f"{problems.source}: task {shown(name)} loop", -1, st.MAX_REPEAT)
        _phase([(k, v) for k, v in obj if k not in ("phases", "loop")], name, "", props, problems)
        for phase, body in _pairs(props["phases"], f"{problems.source}: task {shown(name)} phases"):
            pairs = _pairs(body, f"{problems.source}: task {shown(name)} phase {shown(phase)}")
            count = _int(
                dict(pairs).get("loop", 1),
                f"{problems.source}: task {shown(name)} phase {shown(phase)} loop",
                1,
                st.MAX_REPEAT,
            )
            body_steps = _phase(pairs, name, phase, props, problems)
            if body_steps:
                steps.append(st.Repeat(count, tuple(body_steps), phase))
    else:
        # rt-app parse_task_data: without phases, a task-level "loop" is the phase's count, run once
        count = _int(props.get("loop", -1), f"{problems.source}: task {shown(name)} loop", -1, st.MAX_REPEAT)
        steps = _phase(obj, name, "", props, problems)
        loop = 1 if count >= 0 else -1
        if count == 0:
            return None
        if count > 1 and steps:
            steps = [st.Repeat(count, tuple(steps), "")]
    if loop == 0 or instances == 0:
        return None
    script = st.Script(tuple(steps), loop, delay)
    try:
        st.check_script(script)
    except ValueError as exc:
        problems.add(name, "", str(exc))
        return None
    return TaskSpec(name=name, kind="script", nice=nice, cpu=cpu, count=instances, script=script)


def parse_rtapp(text: str, source: str = "<rt-app>") -> Scenario:
    """An rt-app JSON workload as a scenario; ``source`` names the file in error messages."""
    try:
        doc = json.loads(text, object_pairs_hook=list)  # duplicate keys kept, in order
    except RecursionError:
        raise ScenarioError(f"{source}: malformed JSON: nested too deeply") from None
    except json.JSONDecodeError as malformed:
        raise ScenarioError(f"{source}: malformed JSON: {malformed}") from None
    except ValueError:  # json converts integers of up to 4300 digits only
        raise ScenarioError(f"{source}: malformed JSON: a number of more than 4300 digits") from None
    top = dict(_pairs(doc, source))
    unknown = [k for k in top if k not in ("tasks", "global", "resources")]
    if unknown:
        raise ScenarioError(f"{source}: unknown key {shown(unknown[0])}; allowed: tasks, global, resources")
    if "tasks" not in top:
        raise ScenarioError(f"{source}: no 'tasks' object: an rt-app workload needs tasks")
    problems = _Problems(source, [])
    named = _pairs(top["tasks"], f"{source}: tasks")
    if len(named) > MAX_TASKS:
        raise ScenarioError(f"{source}: tasks: {len(named):,} tasks; at most {MAX_TASKS}")
    name_spec = task_specs()["name"]
    for name, _ in named:
        coerce(name_spec, name, source)  # a task's name is a scenario's task name: 1..64 plain characters
    tasks = [_task(name, _pairs(obj, f"{source}: task {shown(name)}"), problems) for name, obj in named]
    duration = _global(dict(_pairs(top.get("global", []), f"{source}: global")), problems)
    if problems.items:
        listed = problems.items[:MAX_NAMED]
        more = len(problems.items) - len(listed)
        raise ScenarioError(
            f"{source}: not supported: {'; '.join(listed)}"
            + (f"; and {more:,} more" if more else "")
            + f"; supported events: {', '.join(SUPPORTED)}"
        )
    specs = tuple(t for t in tasks if t is not None)
    if not specs:
        raise ScenarioError(f"{source}: no task would run (every task has instance 0 or loop 0)")
    cpus = max([t.cpu + 1 for t in specs] + [1])
    stem = Path(source).stem or "rt-app"
    base = Scenario(name=stem, title=f"rt-app workload {Path(source).name}", tasks=specs)
    overrides: dict[str, object] = {"machine.cpus": cpus}
    if duration is not None:
        overrides["scenario.duration_s"] = float(duration)
    check_consistent(base, source)  # thread names and count, named for the file, not for --set
    return base.with_overrides(overrides)


def _global(g: dict[str, Any], problems: _Problems) -> int | None:
    """The global object's duration in seconds (None: rt-app's -1, run until the tasks end)."""
    for key, value in g.items():
        if key == "duration":
            continue
        if key not in GLOBAL_IGNORED:
            problems.items.append(f"global {shown(key)} is not an rt-app global key")
        elif key == "default_policy" and value != "SCHED_OTHER":
            problems.items.append(f"global default_policy {shown(value)} (schedlab models SCHED_OTHER only)")
        elif key == "pi_enabled" and value is not False:
            problems.items.append("global pi_enabled (priority inheritance is not modelled)")
    duration = g.get("duration", -1)
    if type(duration) is not int or not (duration == -1 or 1 <= duration <= 3600):
        problems.items.append(f"global duration {shown(duration)} (allowed: -1 or 1..3600 seconds)")
        return None
    return None if duration == -1 else duration


def parse_any(text: str, source: str) -> Scenario:
    """A scenario from a file's text: rt-app JSON if ``source`` ends in .json, else schedlab TOML."""
    return parse_rtapp(text, source) if source.endswith(".json") else parse_scenario(text, source)


def load_any(name_or_path: str) -> Scenario:
    """A built-in scenario, a TOML file, or an rt-app JSON workload (a regular file of at most
    ``MAX_FILE_BYTES``, read as ``model.scenario_file`` reads any scenario file)."""
    path = Path(name_or_path)
    if path.suffix != ".json":
        return load_scenario(name_or_path)
    return parse_rtapp(read_file_text(path), str(path))


def read_file_text(path: Path) -> str:
    """The text of a scenario file or (``.json``) an rt-app workload, read as ``model.scenario_file``
    reads one: a regular file below its size limit, never blocking."""
    if path.suffix == ".json":
        return read_scenario_text(path, MAX_FILE_BYTES, "workload file")
    return read_scenario_text(path)
