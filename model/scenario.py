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
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from model import resource_root
from model.sched import POLICIES, TUNABLES
from model.script_steps import Script, parse_script
from model.snapshot import Value

RESOURCES = resource_root()  # resources/ in the source tree, package data when installed
SCENARIO_DIR = RESOURCES / "scenarios"


class ScenarioError(ValueError):
    """Bad scenario input; the message is one line naming the key and what is allowed."""


def _spec(
    default: Any,
    doc: str,
    lo: float | None = None,
    hi: float | None = None,
    choices: Any = None,
    parse: Any = None,
) -> Any:
    meta = {"doc": doc, "lo": lo, "hi": hi, "choices": choices, "parse": parse}
    return field(default=default, metadata=meta)


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
    irq_cpus: tuple[int, ...] = _spec((0,), "CPUs that take the NIC's interrupts")
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
    exit_rule: str = _spec(
        "time",
        "__qdisc_run exit: time (3.0-rc4: need_resched or the next jiffy), quota+jiffy (jamal's patch "
        "as posted: weight_p packets, need_resched or the next jiffy) or quota (3.1: weight_p packets "
        "or need_resched)",
        choices=("time", "quota+jiffy", "quota"),
    )
    weight_p: int = _spec(64, "the dequeue quota in packets (quota+jiffy and quota)", 1, 100_000)
    bands: int = _spec(3, "prio bands", 2, 16)
    priomap: tuple[int, ...] = _spec(
        (1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1), "priority -> band (16 entries)"
    )
    limit: int = _spec(1000, "pfifo limit per band (the device's tx_queue_len)", 1, 100_000)
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
    name: str = _spec("task", "task name")
    kind: str = _spec("hog", "behaviour", choices=TASK_KINDS)
    nice: int = _spec(0, "nice value", -20, 19)
    cpu: int = _spec(-1, "pin to this CPU (-1: not pinned)", -1, 63)
    count: int = _spec(1, "how many identical tasks", 1, 64)
    run_us: int = _spec(
        1_000, "CPU burst per loop (hog chunk, yielder work, sleeper burst, item cost)", 1, 10**8
    )
    sleep_us: int = _spec(10_000, "sleeper: sleep per loop", 0, 10**8)
    channel: str = _spec("ch", "producer/consumer: the shared channel name")
    sync: str = _spec("condvar", "producer/consumer: how the consumer waits", choices=SYNC_KINDS)
    slots: int = _spec(64, "producer/consumer: channel capacity", 1, 1_000_000)
    priority: int = _spec(0, "sender: skb->priority (the prio qdisc maps it to a band)", 0, 15)
    script: Script = _spec(  # noqa: RUF009 (a Script is frozen: one default shared by all is safe)
        Script(), "script: its steps, loop and delay_us (model.script_steps)", parse=parse_script
    )


@dataclass(frozen=True)
class Scenario:
    name: str = _spec("custom", "scenario name")
    title: str = _spec("", "one-line title")
    story: str = _spec("", "the story it retells (2007, 2009, 2011) or empty")
    description: str = _spec("", "what to watch for")
    duration_s: float = _spec(10.0, "simulated duration", 0.001, 3600.0)
    seed: int = _spec(1, "random seed", 0, 2**63 - 1)
    machine: MachineSpec = field(default_factory=MachineSpec)
    sched: SchedSpec = field(default_factory=SchedSpec)
    net: NetSpec = field(default_factory=NetSpec)
    iperf: IperfSpec = field(default_factory=IperfSpec)
    qdisc: QdiscSpec = field(default_factory=QdiscSpec)
    xmit: XmitSpec = field(default_factory=XmitSpec)
    tasks: tuple[TaskSpec, ...] = ()

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
                raise ScenarioError(f"unknown key '{key}'; allowed sections: {', '.join(SECTIONS)}")
            sections.setdefault(section, {})[name] = _parse_cli_value(raw)
        top: dict[str, Any] = {}
        for section, values in sections.items():
            checked = _validate(section_specs(section), values, section, "--set")
            if section == "scenario":
                top.update(checked)
            elif section == "sched":
                top[section] = self.sched.replaced(checked)
            else:
                top[section] = dataclasses.replace(getattr(self, section), **checked)
        return dataclasses.replace(self, **top)


SECTIONS: dict[str, type] = {
    "scenario": Scenario,
    "machine": MachineSpec,
    "sched": SchedSpec,
    "net": NetSpec,
    "iperf": IperfSpec,
    "qdisc": QdiscSpec,
    "xmit": XmitSpec,
}


def _parse_cli_value(raw: object) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw  # a bare word: a string


@dataclass(frozen=True)
class KeySpec:
    """One dotted key: its default, what is allowed, and what it means."""

    key: str
    default: Any
    doc: str
    lo: int | float | None = None  # int where the key is an int: a compiled float field would make 1 into 1.0
    hi: int | float | None = None
    choices: tuple[Any, ...] | None = None
    parse: Any = None  # a value with a structure of its own (a task's script): parsed and checked by this

    @property
    def type(self) -> type:
        return type(self.default)


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


def _allowed(spec: KeySpec) -> str:
    if spec.choices is not None:
        return "one of " + ", ".join(str(c) for c in spec.choices)
    if spec.lo is not None:
        return f"{spec.lo}..{spec.hi}"
    if spec.key == "qdisc.priomap":
        return "16 band numbers, each below qdisc.bands"
    return {bool: "true or false", str: "a string", int: "an integer"}.get(spec.type, "a list of CPU numbers")


def _validate(
    specs: dict[str, KeySpec], values: Mapping[str, Any], section: str, where: str
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in values.items():
        key = f"{section}.{name}"
        f = specs.get(name)
        if f is None:
            raise ScenarioError(
                f"{where}: unknown key '{key}'; allowed keys in [{section}]: {', '.join(specs)}"
            )
        out[name] = _coerce(f, value, key, where)
    return out


def _specs_of(spec: type, section: str) -> dict[str, KeySpec]:
    """The keys of a table that is not a section (``[[tasks]]``)."""
    return {
        f.name: KeySpec(f"{section}.{f.name}", f.default, **f.metadata)
        for f in dataclasses.fields(spec)
        if f.metadata
    }


def _coerce(f: KeySpec, value: Any, key: str, where: str) -> Any:
    if f.parse is not None:
        try:
            return f.parse(value)
        except ValueError as exc:
            raise ScenarioError(f"{where}: {key}: {exc}") from None
    want = f.type
    bad = f"{where}: {key} = {value!r} is not allowed; allowed: {_allowed(f)}"
    if want is bool:
        if not isinstance(value, bool):
            raise ScenarioError(bad)
    elif want is tuple:
        if isinstance(value, int) and not isinstance(value, bool):
            value = [value]
        if not isinstance(value, list | tuple) or not all(type(v) is int and 0 <= v < 64 for v in value):
            raise ScenarioError(bad)
        value = tuple(value)
    elif want is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ScenarioError(bad)
        value = float(value)
    elif want is int:
        if type(value) is float and value.is_integer():
            value = int(value)
        if type(value) is not int:
            raise ScenarioError(bad)
    elif not isinstance(value, str):
        raise ScenarioError(bad)
    if f.choices is not None and value not in f.choices:
        raise ScenarioError(bad)
    if f.lo is not None and f.hi is not None and not (f.lo <= value <= f.hi):
        raise ScenarioError(bad)
    return value


def parse_scenario(text: str, source: str = "<string>") -> Scenario:
    """Build a scenario from TOML text; ``source`` names the file in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{source}: malformed TOML: {exc}") from None
    unknown = [k for k in data if k not in SECTIONS and k != "tasks"]
    if unknown:
        allowed = ", ".join([*(f"[{s}]" for s in SECTIONS), "[[tasks]]"])
        raise ScenarioError(f"{source}: unknown section '{unknown[0]}'; allowed: {allowed}")
    kwargs: dict[str, Any] = {}
    for section, spec in SECTIONS.items():
        values = data.get(section, {})
        if not isinstance(values, dict):
            raise ScenarioError(f"{source}: '{section}' must be a table ([{section}])")
        checked = _validate(section_specs(section), values, section, source)
        if section == "scenario":
            kwargs.update(checked)
        elif section == "sched":
            kwargs[section] = SchedSpec().replaced(checked)
        else:
            kwargs[section] = spec(**checked)
    tasks = data.get("tasks", [])
    if not isinstance(tasks, list) or not all(isinstance(t, dict) for t in tasks):
        raise ScenarioError(f"{source}: 'tasks' must be an array of tables ([[tasks]])")
    kwargs["tasks"] = tuple(
        TaskSpec(**_validate(_specs_of(TaskSpec, "tasks"), t, "tasks", source)) for t in tasks
    )
    return Scenario(**kwargs)


def builtin_names() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))


def load_scenario(name_or_path: str) -> Scenario:
    """A built-in scenario by name, or a TOML file by path."""
    path = Path(name_or_path)
    if path.suffix != ".toml" or not path.exists():
        builtin = SCENARIO_DIR / f"{name_or_path}.toml"
        if not builtin.exists():
            if path.suffix == ".toml":
                raise ScenarioError(f"scenario file '{name_or_path}' does not exist")
            names = ", ".join(builtin_names())
            raise ScenarioError(f"unknown scenario '{name_or_path}'; built-in scenarios: {names}")
        path = builtin
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"cannot read scenario '{path}': {exc}") from None
    return parse_scenario(text, str(path))
