"""Scenarios: frozen dataclasses loaded from TOML, with dotted-key overrides and clear errors.

A scenario file has sections ``[scenario]``, ``[machine]``, ``[sched]``, ``[net]``, ``[iperf]`` and
any number of ``[[tasks]]``. Every key is validated against the dataclass that declares it
(``model.scenario_sections``: type, range or choices, unit in the name); an unknown key is an error
that lists the allowed ones. The dotted keys (``sched.policy``) are what ``--set`` and the JSON
``settings`` use. ``[sched]`` holds the policy and every tunable a policy declares in the registry
(``model.sched``); ``key_specs`` lists every key with its default, range or choices and meaning, for
the window's controls.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from model import resource_root
from model.cpu_count import follow_cpus
from model.keyspec import KeySpec, ScenarioError, allowed_text, check_table, coerce, shown, shown_path
from model.keyspec import spec_field as _spec
from model.scenario_file import read_scenario_text
from model.scenario_sections import (
    NAME,
    IperfSpec,
    MachineSpec,
    NetSpec,
    QdiscSpec,
    SchedSpec,
    TaskSpec,
    XmitSpec,
)
from model.sched import TUNABLES
from model.snapshot import Value
from model.toml_shape import MAX_BARE_CHARS, ShapeError, check_shape

__all__ = [
    "KeySpec",
    "Scenario",
    "ScenarioError",
    "builtin_names",
    "key_specs",
    "load_scenario",
    "parse_scenario",
    "parse_set_value",
    "scenario_path",
    "section_specs",
]

RESOURCES = resource_root()  # resources/ in the source tree, package data when installed
SCENARIO_DIR = RESOURCES / "scenarios"
MAX_THREADS = 256  # tasks after `count` expansion, with iperf's threads
MAX_TASK_TABLES = 256
MAX_SET_CHARS = 8192  # a --set value; the longest key, scenario.description, allows 4000 characters
_WORD = re.compile(r"[A-Za-z_][\w-]*")  # letters first: no number, no TOML syntax


@dataclass(frozen=True)
class Scenario:
    name: str = _spec("custom", "scenario name", length=NAME)
    title: str = _spec("", "one-line title", length=(0, 200))
    story: str = _spec("", "the story it retells (2007, 2009, 2011) or empty", length=(0, 64))
    description: str = _spec("", "what to watch for", length=(0, 4000), multiline=True)
    duration_s: float = _spec(10.0, "simulated duration", 0.001, 3600.0)
    seed: int = _spec(1, "random seed", 0, 2**63 - 1)
    machine: MachineSpec = field(default_factory=MachineSpec)
    sched: SchedSpec = field(default_factory=SchedSpec)
    net: NetSpec = field(default_factory=NetSpec)
    iperf: IperfSpec = field(default_factory=IperfSpec)
    qdisc: QdiscSpec = field(default_factory=QdiscSpec)
    xmit: XmitSpec = field(default_factory=XmitSpec)
    tasks: tuple[TaskSpec, ...] = ()
    # The built-in scenario this one was loaded from (its name), else "": what finds its lesson. Not a
    # key: no file can set it, so a user's file never borrows a built-in story's lesson.
    builtin: str = ""

    @property
    def may_yield(self) -> bool:
        """Whether a task of this scenario may call sched_yield(): an iperf client (its reporter, in
        the sched_yield build), a yielder, or a task that waits with sched_yield()."""
        if self.iperf.enabled and self.iperf.mode == "client":
            return True
        return any(t.kind == "yielder" or t.sync == "sched_yield" for t in self.tasks)

    @property
    def has_qdisc(self) -> bool:
        """Whether the transmit path (and its qdisc) exists: some task is a packet sender."""
        return any(t.kind == "sender" for t in self.tasks)

    def settings(self) -> dict[str, Value]:
        """Every effective dotted key and its value (``[[tasks]]`` excluded)."""
        out: dict[str, Value] = {}
        for section, spec in SECTIONS.items():
            obj = self if section == "scenario" else getattr(self, section)
            for f in dataclasses.fields(spec):
                if f.metadata:
                    out[f"{section}.{f.name}"] = getattr(obj, f.name)
            if section == "sched":
                out.update((f"sched.{key}", value) for key, value in self.sched.tunables)
        return out

    def with_overrides(self, overrides: Mapping[str, object]) -> Scenario:
        """A copy with dotted keys replaced; string values are parsed like TOML values. A new
        ``machine.cpus`` moves what depends on the CPU count with it (``model.cpu_count``)."""
        sections: dict[str, dict[str, Any]] = {}
        for key, raw in overrides.items():
            section, _, name = key.partition(".")
            if section not in SECTIONS or not name:
                raise ScenarioError(f"unknown key {shown(key)}; allowed sections: {', '.join(SECTIONS)}")
            sections.setdefault(section, {})[name] = parse_set_value(key, raw)
        top: dict[str, Any] = {}
        for section, values in sections.items():
            checked = check_table(section_specs(section), values, section, "--set")
            if section == "scenario":
                top.update(checked)
            elif section == "sched":
                top[section] = self.sched.replaced(checked)
            else:
                top[section] = dataclasses.replace(getattr(self, section), **checked)
        out = dataclasses.replace(self, **top)
        if out.machine.cpus != self.machine.cpus:  # what depends on the count follows it
            net, iperf, tasks = follow_cpus(out, self.machine.cpus, given=overrides.keys())
            out = dataclasses.replace(out, net=net, iperf=iperf, tasks=tasks)
        check_consistent(out, "--set")
        return out


SECTIONS: dict[str, type] = {
    "scenario": Scenario,
    "machine": MachineSpec,
    "sched": SchedSpec,
    "net": NetSpec,
    "iperf": IperfSpec,
    "qdisc": QdiscSpec,
    "xmit": XmitSpec,
}


def parse_set_value(key: str, raw: object, source: str = "--set: ") -> Any:
    """A ``--set`` value as TOML reads it (``2``, ``[0, 3]``, ``true``), or a bare word as a string.

    ``source`` starts a refusal: where the value was typed (the window's boxes pass ``""``)."""
    if not isinstance(raw, str):
        return raw
    if len(raw) > MAX_SET_CHARS:
        raise ScenarioError(
            f"{source}{_key(key)} = a value of {len(raw):,} characters; at most {MAX_SET_CHARS:,}"
        )
    if len(raw) > MAX_BARE_CHARS and _WORD.fullmatch(raw):
        return raw  # a long word is never a TOML value: a string, as a short one is (below)
    text = f"v = {raw}"
    try:
        check_shape(text)
        return tomllib.loads(text)["v"]
    except ShapeError as exc:
        problem = exc.problem
    except tomllib.TOMLDecodeError:
        return raw  # a bare word: a string
    except ValueError:  # tomllib converts integers of up to 4300 digits only (the shape check stops 100)
        problem = "a number of too many digits"
    raise ScenarioError(f"{source}{_key(key)} = {shown(raw)}: {problem}{_allowed_for(key)}")


def _key(key: str) -> str:
    """A dotted key the user typed, as a message names it: as typed, unless long or odd."""
    return key if len(key) <= 80 and key.isprintable() else shown(key)


def section_specs(section: str) -> dict[str, KeySpec]:
    """The keys of one section by name: its dataclass fields, and for ``[sched]`` the registry's tunables."""
    out = _specs_of(SECTIONS[section], section)
    if section == "sched":
        for key, t in TUNABLES.items():
            allowed = t.allowed()
            if isinstance(allowed, range):
                out[key] = KeySpec(f"sched.{key}", t.default, t.help, allowed.start, allowed.stop - 1)
            else:
                out[key] = KeySpec(f"sched.{key}", t.default, t.help, choices=allowed)
    return out


def key_specs() -> dict[str, KeySpec]:
    """Every dotted key (``[[tasks]]`` excluded) and its spec."""
    return {spec.key: spec for section in SECTIONS for spec in section_specs(section).values()}


def task_specs() -> dict[str, KeySpec]:
    """The keys of one ``[[tasks]]`` entry."""
    return _specs_of(TaskSpec, "tasks")


def _specs_of(spec: type, section: str) -> dict[str, KeySpec]:
    """The keys of a table that is not a section (``[[tasks]]``)."""
    return {
        f.name: KeySpec(f"{section}.{f.name}", f.default, **f.metadata)
        for f in dataclasses.fields(spec)
        if f.metadata
    }


def option_value(option: str, value: object, key: str, lo: float | None = None) -> Any:
    """A command-line option's value checked against the key it stands for (``--duration`` is
    ``scenario.duration_s``; ``lo`` lowers the range, as ``--at 0`` is a time, not a duration); the
    message names the option."""
    spec = key_specs()[key]
    spec = dataclasses.replace(spec, key=option, lo=spec.lo if lo is None else lo)
    try:
        return coerce(spec, value, option)
    except ScenarioError as exc:
        raise ScenarioError(str(exc).replace(f"{option}: {option} = ", f"{option} ", 1)) from None


def parse_scenario(text: str, source: str = "<string>") -> Scenario:
    """Build a scenario from TOML text; ``source`` names the file in error messages."""
    data = _read_toml(text, source)
    unknown = [k for k in data if k not in SECTIONS and k != "tasks"]
    if unknown:
        allowed = ", ".join([*(f"[{s}]" for s in SECTIONS), "[[tasks]]"])
        raise ScenarioError(f"{source}: unknown section {shown(unknown[0])}; allowed: {allowed}")
    kwargs: dict[str, Any] = {}
    for section, spec in SECTIONS.items():
        values = data.get(section, {})
        if not isinstance(values, dict):
            raise ScenarioError(f"{source}: '{section}' must be a table ([{section}])")
        checked = check_table(section_specs(section), values, section, source)
        if section == "scenario":
            kwargs.update(checked)
        elif section == "sched":
            kwargs[section] = SchedSpec().replaced(checked)
        else:
            kwargs[section] = spec(**checked)
    tasks = data.get("tasks", [])
    if not isinstance(tasks, list) or not all(isinstance(t, dict) for t in tasks):
        raise ScenarioError(f"{source}: 'tasks' must be an array of tables ([[tasks]])")
    if len(tasks) > MAX_TASK_TABLES:
        raise ScenarioError(f"{source}: {len(tasks):,} [[tasks]] tables; at most {MAX_TASK_TABLES}")
    specs = task_specs()
    kwargs["tasks"] = tuple(TaskSpec(**check_table(specs, t, "tasks", source)) for t in tasks)
    scenario = Scenario(**kwargs)
    check_consistent(scenario, source)
    return scenario


def _read_toml(text: str, source: str) -> dict[str, Any]:
    try:
        check_shape(text)
        return tomllib.loads(text)
    except ShapeError as shape:  # each clause its own name: compiled, a name has one type
        raise ScenarioError(f"{source}: {shape}{_allowed_for(shape.key)}") from None
    except tomllib.TOMLDecodeError as malformed:
        raise ScenarioError(f"{source}: malformed TOML: {malformed}") from None
    except ValueError:  # tomllib converts integers of up to 4300 digits only; the shape check stops 100
        raise ScenarioError(f"{source}: malformed TOML: a number of too many digits") from None


def _allowed_for(key: str) -> str:
    """What a key allows, for a message about its value ("" where ``key`` is not a known key)."""
    section, _, name = key.partition(".")
    specs = task_specs() if section == "tasks" else section_specs(section) if section in SECTIONS else {}
    spec = specs.get(name)
    return f" (allowed: {allowed_text(spec)})" if spec is not None else ""


IPERF_THREADS = {"client": ("iperf-data", "iperf-reporter"), "server": ("iperf-server",)}


def check_consistent(sc: Scenario, where: str = "") -> None:
    """The rules that tie keys together: CPU numbers below ``machine.cpus``, priomap entries below
    ``qdisc.bands``, one name per thread after ``count`` expansion, and a bounded number of threads.
    ScenarioError names the keys; ``where`` (a file, ``--set``) starts the message."""
    at = f"{where}: " if where else ""
    cpus = sc.machine.cpus
    for cpu in sc.net.irq_cpus:
        if not 0 <= cpu < cpus:
            raise ScenarioError(f"{at}net.irq_cpus: CPU {shown(cpu)} does not exist; allowed 0..{cpus - 1}")
    _check_priomap(sc.qdisc, at)
    for t in sc.tasks:
        if t.cpu >= cpus:
            raise ScenarioError(
                f"{at}tasks.cpu = {t.cpu} (task {shown(t.name)}) is not allowed; allowed -1..{cpus - 1} "
                f"(machine.cpus = {cpus})"
            )
        first = max(t.cpu, 0)
        if t.kind == "sender" and first + t.count > cpus:
            raise ScenarioError(
                f"{at}tasks.count = {t.count} (task {shown(t.name)}): {t.count} senders from CPU {first} "
                f"need {first + t.count} CPUs; machine.cpus = {cpus}"
            )
    if sc.iperf.enabled and sc.has_qdisc:
        raise ScenarioError(
            f"{at}iperf.enabled = true with sender tasks: each drives the NIC; allowed one of them"
        )
    if sc.iperf.enabled and sc.iperf.cpu >= cpus:
        raise ScenarioError(f"{at}iperf.cpu = {sc.iperf.cpu}; allowed -1..{cpus - 1} (machine.cpus = {cpus})")
    _check_thread_names(sc, at)


def _check_priomap(q: QdiscSpec, at: str) -> None:
    for prio, band in enumerate(q.priomap):
        if not 0 <= band < q.bands:
            fitted = [min(max(b, 0), q.bands - 1) for b in q.priomap]
            raise ScenarioError(
                f"{at}qdisc.priomap[{prio}] = {shown(band)} is not a band of qdisc.bands = {q.bands}: every "
                f"entry must be 0..{q.bands - 1} (sch_prio.c prio_tune(), as tc refuses 'prio bands "
                f"{q.bands}' without a priomap); set qdisc.priomap too, e.g. {fitted}"
            )


def _check_thread_names(sc: Scenario, at: str) -> None:
    """Every thread has its own name: the summary, the JSON and the CSV list threads by name."""
    made_by: dict[str, str] = {}
    if sc.iperf.enabled:
        made_by.update((name, "iperf's own thread") for name in IPERF_THREADS[sc.iperf.mode])
    total = len(made_by) + sum(t.count for t in sc.tasks)
    if total > MAX_THREADS:
        raise ScenarioError(f"{at}tasks.count: {total:,} threads in all; at most {MAX_THREADS}")
    for t in sc.tasks:
        origin = f"[[tasks]] {shown(t.name)}" + (f" with count = {t.count}" if t.count > 1 else "")
        for i in range(t.count):
            name = t.name if t.count == 1 else f"{t.name}.{i}"
            if name in made_by:
                raise ScenarioError(
                    f"{at}tasks.name: {shown(name)} names two threads ({made_by[name]} and {origin}); "
                    f"every thread needs its own name (count = 2 names them NAME.0, NAME.1)"
                )
            made_by[name] = origin


def builtin_names() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))


def scenario_path(name_or_path: str) -> tuple[Path, str]:
    """The file behind a SCENARIO argument and its built-in name ("" for a user's file).

    A built-in name is just that; anything else is a path, read as given (``run /tmp/x`` never reads
    ``/tmp/x.toml``). A path that is a built-in's own file counts as that built-in."""
    builtins = builtin_names()
    if name_or_path in builtins:
        return SCENARIO_DIR / f"{name_or_path}.toml", name_or_path
    path = Path(name_or_path)
    looks_like_path = os.sep in name_or_path or path.suffix == ".toml" or os.path.lexists(path)
    if not looks_like_path:
        names = ", ".join(builtins)
        hint = (
            f" (a file {shown_path(f'{path}.toml')} is here: name it with .toml)"
            if os.path.isfile(f"{path}.toml")
            else ""
        )
        raise ScenarioError(f"unknown scenario {shown(name_or_path)}{hint}; built-in scenarios: {names}")
    builtin = SCENARIO_DIR / path.name
    if path.suffix == ".toml" and path.stem in builtins and _same_file(path, builtin):
        return path, path.stem
    return path, ""


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def load_scenario(name_or_path: str) -> Scenario:
    """A built-in scenario by name, or a TOML file by path (a regular file below the size limit)."""
    path, builtin = scenario_path(name_or_path)
    if not builtin and not os.path.lexists(path) and os.path.isfile(f"{path}.toml"):
        raise ScenarioError(
            f"scenario file {shown_path(name_or_path)} does not exist "
            f"(did you mean {shown_path(f'{path}.toml')}?)"
        )
    text = read_scenario_text(path)
    scenario = parse_scenario(text, str(path))
    return dataclasses.replace(scenario, builtin=builtin) if builtin else scenario
