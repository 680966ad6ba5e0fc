"""Scenarios: frozen dataclasses loaded from TOML, with dotted-key overrides and clear errors.

A scenario file has sections ``[scenario]``, ``[machine]``, ``[sched]``, ``[net]``, ``[iperf]`` and
any number of ``[[tasks]]``. Every key is validated against the dataclass that declares it (type,
range or choices, unit in the name); an unknown key is an error that lists the allowed ones. The
dotted keys (``sched.policy``) are what ``--set`` and the JSON ``settings`` use. ``[sched]`` holds the
policy and every tunable a policy declares in the registry (``model.sched``); ``key_specs`` lists every
key with its default, range or choices and meaning, for the window's controls.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from model import resource_root
from model.keyspec import KeySpec, ScenarioError, allowed_text, check_table, coerce, shown, shown_path
from model.keyspec import spec_field as _spec
from model.net.qdiscs import QDISCS
from model.scenario_file import read_scenario_text
from model.sched import POLICIES, TUNABLES
from model.script_steps import Script, parse_script
from model.snapshot import Value
from model.toml_shape import ShapeError, check_shape

__all__ = [
    "KeySpec",
    "Scenario",
    "ScenarioError",
    "builtin_names",
    "key_specs",
    "load_scenario",
    "parse_scenario",
    "scenario_path",
    "section_specs",
]

RESOURCES = resource_root()  # resources/ in the source tree, package data when installed
SCENARIO_DIR = RESOURCES / "scenarios"
NAME = (1, 64)  # characters of a name (a scenario's, a task's, a channel's)
MAX_THREADS = 256  # tasks after `count` expansion, with iperf's threads
MAX_TASK_TABLES = 256
MAX_SET_CHARS = 8192  # a --set value; the longest key, scenario.description, allows 4000 characters


@dataclass(frozen=True)
class MachineSpec:
    cpus: int = _spec(1, "number of CPUs", 1, 64)
    hz: int = _spec(250, "scheduler tick rate (CONFIG_HZ)", choices=(100, 250, 300, 1000))
    context_switch_ns: int = _spec(5_000, "CPU cost of one context switch", 0, 1_000_000)
    syscall_ns: int = _spec(3_000, "CPU cost of one sched_yield() that does not switch", 0, 1_000_000)
    hrtimers: bool = _spec(
        True,
        "high-resolution timers (CONFIG_HIGH_RES_TIMERS, x86 from 2.6.21): a sleep ends when due and "
        "usleep(0) returns at once; false: sleeps end on a tick",
    )


def _default_tunables() -> tuple[tuple[str, int], ...]:
    return tuple((key, t.default) for key, t in TUNABLES.items())


@dataclass(frozen=True)
class SchedSpec:
    policy: str = _spec("cfs-2.6.23", "CPU scheduler", choices=tuple(POLICIES))
    # Every registered tunable (model.sched.TUNABLES), whatever the policy: one that is not the policy's
    # is kept (a restart under another policy uses it) and does nothing.
    tunables: tuple[tuple[str, int], ...] = field(default_factory=_default_tunables)

    def tunable(self, key: str) -> int:
        return dict(self.tunables)[key]

    def replaced(self, values: Mapping[str, Any]) -> SchedSpec:
        """A copy with ``policy`` and tunables (by key) replaced; the values are validated already."""
        tunables = dict(self.tunables)
        tunables.update((k, int(v)) for k, v in values.items() if k != "policy")
        return SchedSpec(str(values.get("policy", self.policy)), tuple(tunables.items()))


@dataclass(frozen=True)
class NetSpec:
    link_mbps: int = _spec(100, "link rate", 1, 100_000)
    sndbuf_bytes: int = _spec(65_536, "TCP socket send buffer", 8_192, 16_777_216)
    tx_irq_frames: int = _spec(16, "frames per TX-completion interrupt (interrupt mitigation)", 1, 256)
    tx_irq_ns: int = _spec(10_000, "hard interrupt cost per TX-completion interrupt", 0, 10_000_000)
    ack_softirq_ns_per_frame: int = _spec(
        3_000, "softirq cost of returning ACKs per data frame", 0, 1_000_000
    )
    irq_cpus: tuple[int, ...] = _spec(
        (0,),
        "CPUs that take the NIC's interrupts",
        length=(1, 64),
        items="CPU numbers, each below machine.cpus",
    )
    device: str = _spec(
        "nic", "transmit device: a NIC with a TX ring, or dummy (consumes at once)", choices=("nic", "dummy")
    )
    udelay_us: int = _spec(0, "extra busy-wait in the NIC's hard interrupt handler", 0, 100_000)
    irq_base_ns: int = _spec(2_000, "hard interrupt cost without the extra delay", 0, 1_000_000)
    rx_ring: int = _spec(256, "RX ring descriptors (E1000_DEFAULT_RXD)", 8, 4096)
    napi_weight: int = _spec(64, "NAPI weight: frames per poll", 1, 1024)
    netdev_budget: int = _spec(300, "frames per net_rx_action", 1, 10_000)
    rx_pkt_ns: int = _spec(1_200, "NET_RX softirq cost per received frame", 1, 1_000_000)
    itr_per_s: int = _spec(4_000, "interrupt throttle rate (e1000 InterruptThrottleRate)", 100, 100_000)
    rwnd_bytes: int = _spec(174_760, "receiver's advertised TCP window", 2_896, 16_777_216)


@dataclass(frozen=True)
class QdiscSpec:
    kind: str = _spec(
        "prio",
        "the root qdisc: prio (sch_prio.c: bands, priomap and limit per band) or pfifo_fast (sch_generic.c, "
        "the kernel's default: 3 fixed bands, the fixed priomap, one limit for all bands)",
        choices=tuple(QDISCS),
    )
    exit_rule: str = _spec(
        "time",
        "__qdisc_run exit: time (3.0-rc4: need_resched or the next jiffy), quota+jiffy (jamal's patch "
        "as posted: weight_p packets, need_resched or the next jiffy) or quota (3.1: weight_p packets "
        "or need_resched)",
        choices=("time", "quota+jiffy", "quota"),
    )
    weight_p: int = _spec(64, "the dequeue quota in packets (quota+jiffy and quota)", 1, 100_000)
    bands: int = _spec(3, "prio bands (pfifo_fast: 3, fixed)", 2, 16)
    priomap: tuple[int, ...] = _spec(
        (1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1),
        "priority -> band (16 entries; pfifo_fast: fixed)",
        length=(16, 16),
        items="band numbers, each below qdisc.bands",
    )
    limit: int = _spec(
        1000, "the device's tx_queue_len: prio's limit per band, pfifo_fast's for all bands", 1, 100_000
    )
    per_packet: bool = _spec(
        False, "reference mode: every step of every packet is an event (no closed form between change points)"
    )


@dataclass(frozen=True)
class XmitSpec:
    packet_bytes: int = _spec(1500, "IP packet size of the senders' UDP datagrams", 64, 9000)
    user_ns: int = _spec(
        1_000, "a sender's CPU per packet in sendto() before dev_queue_xmit (syscall, skb, copy, UDP/IP)",
        1, 10_000_000,
    )  # fmt: skip
    user_jitter: float = _spec(0.0, "relative spread of each packet's user_ns (seeded RNG)", 0.0, 1.0)
    enq_ns: int = _spec(150, "enqueue under the root lock (prio classify + pfifo)", 1, 1_000_000)
    deq_ns: int = _spec(150, "dequeue_skb() under the root lock", 1, 1_000_000)
    drv_ns: int = _spec(
        600, "NIC: dev_hard_start_xmit() + ixgbe_xmit_frame(), root lock released", 1, 1_000_000
    )
    dummy_ns: int = _spec(250, "dummy device: dev_hard_start_xmit() + dummy_xmit() (kfree_skb)", 1, 1_000_000)
    lock_ns: int = _spec(80, "a spinlock's cache line moving to another CPU", 0, 1_000_000)
    tx_action_ns: int = _spec(150, "one net_tx_action() pass: the output queue and the trylock", 1, 1_000_000)
    ttwu_ns: int = _spec(
        1_000, "try_to_wake_up() of a sleeping sender, charged to the CPU that frees its skb", 0, 1_000_000
    )
    irq_ns: int = _spec(1_500, "NIC: a TX vector's hard interrupt (napi_schedule)", 0, 1_000_000)
    clean_ns: int = _spec(150, "NIC: ixgbe_clean_tx_irq() per packet, in NAPI", 0, 1_000_000)
    jitter: float = _spec(
        0.05, "relative spread of the NIC's interrupt throttle interval (seeded RNG)", 0.0, 0.5
    )
    sndbuf_bytes: int = _spec(
        124_928, "a sender's socket send buffer, sk_sndbuf (3.0 x86-64 wmem_default)", 4_608, 16_777_216
    )
    tx_ring: int = _spec(512, "NIC: descriptors per TX ring (IXGBE_DEFAULT_TXD; 2 per packet)", 64, 65_536)
    tx_stop_free: int = _spec(20, "NIC: a ring stops below this many free descriptors (DESC_NEEDED)", 1, 1024)
    tx_wake_free: int = _spec(
        40, "NIC: a clean wakes a stopped ring at this many free descriptors (TX_WAKE_THRESHOLD)", 1, 4096
    )
    tx_queues: str = _spec(
        "per_cpu",
        "NIC: per_cpu (3.0 ixgbe_select_queue: the sending CPU's ring) or single (one TX ring)",
        choices=("per_cpu", "single"),
    )
    spinlock: str = _spec(
        "ticket", "root lock and busylock: ticket (x86 FIFO, 2.6.25+) or tas (unfair test-and-set)",
        choices=("ticket", "tas"),
    )  # fmt: skip
    softirq_restart: int = _spec(
        10, "__do_softirq passes before ksoftirqd takes the rest (MAX_SOFTIRQ_RESTART)", 1, 1_000
    )
    orphan: str = _spec(
        "xmit",
        "when sock_wfree gives a sender its socket memory back: xmit (3.0 skb_orphan_try, by the "
        "dequeuer) or completion (after the NIC's TX clean, as from 3.5)",
        choices=("xmit", "completion"),
    )


@dataclass(frozen=True)
class IperfSpec:
    enabled: bool = _spec(False, "run iperf (2.0.2's client or 2.0.4's server)")
    mode: str = _spec(
        "client", "client: send through the TCP send path; server: receive", choices=("client", "server")
    )
    recv_ns_per_kb: int = _spec(250, "server: CPU per KB read from the socket", 0, 1_000_000)
    thread_rest: str = _spec(
        "sched_yield",
        "thread_rest() build (the server: fixed is Ingo's reporter, 10 ms sleeps; the others 2.0.4's)",
        choices=("usleep0", "sched_yield", "fixed"),
    )
    loop_ns: int = _spec(
        500_000, "CPU per pass of the data loop: gettimeofday + 8 KB write()", 1_000, 100_000_000
    )
    write_bytes: int = _spec(8_192, "bytes per write() (-l)", 1, 1_048_576)
    report_entry_ns: int = _spec(2_000, "reporter CPU per ring entry (reporter_handle_packet)", 0, 1_000_000)
    reporter_pass_ns: int = _spec(1_000, "reporter CPU per pass over the report list", 1, 1_000_000)
    signal_ns: int = _spec(500, "CPU of one Condition_Signal + ring check", 1, 1_000_000)
    ring_slots: int = _spec(700, "NUM_REPORT_STRUCTS (one slot stays empty)", 2, 100_000)
    nice: int = _spec(0, "nice value of both iperf threads", -20, 19)
    cpu: int = _spec(-1, "pin both threads to this CPU (-1: not pinned)", -1, 63)


TASK_KINDS = ("hog", "yielder", "sleeper", "producer", "consumer", "sender", "script")
SYNC_KINDS = ("condvar", "sched_yield", "usleep0")


@dataclass(frozen=True)
class TaskSpec:
    name: str = _spec("task", "task name", length=NAME)
    kind: str = _spec("hog", "behaviour", choices=TASK_KINDS)
    nice: int = _spec(0, "nice value", -20, 19)
    cpu: int = _spec(-1, "pin to this CPU (-1: not pinned)", -1, 63)
    count: int = _spec(1, "how many identical tasks", 1, 64)
    run_us: int = _spec(
        1_000, "CPU burst per loop (hog chunk, yielder work, sleeper burst, item cost)", 1, 10**8
    )
    sleep_us: int = _spec(10_000, "sleeper: sleep per loop", 0, 10**8)
    channel: str = _spec("ch", "producer/consumer: the shared channel name", length=NAME)
    sync: str = _spec("condvar", "producer/consumer: how the consumer waits", choices=SYNC_KINDS)
    slots: int = _spec(64, "producer/consumer: channel capacity", 1, 1_000_000)
    priority: int = _spec(0, "sender: skb->priority (the prio qdisc maps it to a band)", 0, 15)
    script: Script = _spec(  # noqa: RUF009 (a Script is frozen: one default shared by all is safe)
        Script(), "script: its steps, loop and delay_us (model.script_steps)", parse=parse_script
    )


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
        """A copy with dotted keys replaced; string values are parsed like TOML values."""
        sections: dict[str, dict[str, Any]] = {}
        for key, raw in overrides.items():
            section, _, name = key.partition(".")
            if section not in SECTIONS or not name:
                raise ScenarioError(f"unknown key {shown(key)}; allowed sections: {', '.join(SECTIONS)}")
            sections.setdefault(section, {})[name] = _parse_cli_value(key, raw)
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


def _parse_cli_value(key: str, raw: object) -> Any:
    """A ``--set`` value as TOML reads it (``2``, ``[0, 3]``, ``true``), or a bare word as a string."""
    if not isinstance(raw, str):
        return raw
    if len(raw) > MAX_SET_CHARS:
        raise ScenarioError(
            f"--set: {_key(key)} = a value of {len(raw):,} characters; at most {MAX_SET_CHARS:,}"
        )
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
    raise ScenarioError(f"--set: {_key(key)} = {shown(raw)}: {problem}{_allowed_for(key)}")


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
    if sc.iperf.enabled and any(t.kind == "sender" for t in sc.tasks):
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
