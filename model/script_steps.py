"""The program of a scripted task (``kind = "script"``): typed steps, parsed from a scenario's TOML or
from an rt-app workload (``model.rtapp``), run by ``model.workloads.script``.

A script is a list of steps run ``loop`` times (-1: for ever) after an initial ``delay_us``. A step
computes (``run_us``: CPU time; ``runtime_us``: wall time), sleeps (``sleep_us``), waits for a
periodic timer (``timer_us``, rt-app's timer: its period counts from the timer's previous expiry, not
from now), calls ``sched_yield()``, takes or releases a mutex, signals, broadcasts or waits on a
condition variable, meets the other tasks at a barrier, or repeats a block of steps. In TOML::

    [[tasks]]
    name = "decoder"
    kind = "script"
    script.loop = -1
    script.steps = [{ run_us = 3000 }, { lock = "buf" }, { run_us = 200 }, { unlock = "buf" },
                    { timer_us = 16000 }]

Mutexes, condition variables, barriers and timers are named and shared by every scripted task that
names them (an rt-app timer whose name starts with ``unique`` belongs to one task instance).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from model.keyspec import shown

US = 1_000
MAX_STEPS = 10_000  # a script's steps in all, repeats included once
MAX_DEPTH = 8  # nested repeats
MAX_US = 100_000_000  # 100 s: one step's time
MAX_REPEAT = 1_000_000_000


@dataclass(frozen=True)
class Run:
    """CPU time: ``ns`` of the task's own execution (rt-app ``run``)."""

    ns: int


@dataclass(frozen=True)
class Runtime:
    """Wall time: work until ``ns`` have passed since the step began, preempted or not (rt-app
    ``runtime``)."""

    ns: int


@dataclass(frozen=True)
class Sleep:
    ns: int


@dataclass(frozen=True)
class Timer:
    """Sleep until the timer's next expiry: ``period_ns`` after its previous one (rt-app ``timer``).

    ``absolute``: a late task keeps the timer's schedule and runs its missed periods back to back; by
    default (relative) a late task restarts the timer from now.
    """

    ref: str
    period_ns: int
    absolute: bool = False


@dataclass(frozen=True)
class Yield:
    pass


@dataclass(frozen=True)
class Lock:
    mutex: str


@dataclass(frozen=True)
class Unlock:
    mutex: str


@dataclass(frozen=True)
class Signal:
    """``pthread_cond_signal``: wake the longest waiter, if any (a signal nobody waits for is lost)."""

    cond: str


@dataclass(frozen=True)
class Broadcast:
    cond: str


@dataclass(frozen=True)
class Wait:
    """``pthread_cond_wait(cond, mutex)``: release the mutex and block, then take the mutex again."""

    cond: str
    mutex: str = ""


@dataclass(frozen=True)
class Sync:
    """Signal ``cond``, then wait on it (rt-app ``sync``)."""

    cond: str
    mutex: str = ""


@dataclass(frozen=True)
class Barrier:
    """Wait until every task that names this barrier has reached it (rt-app ``barrier``)."""

    name: str


@dataclass(frozen=True)
class Repeat:
    """``steps`` run ``count`` times (an rt-app phase and its ``loop``)."""

    count: int
    steps: tuple[Step, ...]
    name: str = ""


Step = (
    Run
    | Runtime
    | Sleep
    | Timer
    | Yield
    | Lock
    | Unlock
    | Signal
    | Broadcast
    | Wait
    | Sync
    | Barrier
    | Repeat
)


@dataclass(frozen=True)
class Script:
    steps: tuple[Step, ...] = ()
    loop: int = -1  # how many times the steps run; -1: for ever
    delay_us: int = 0  # before the first step (rt-app ``delay``)


def walk(steps: tuple[Step, ...]) -> list[Step]:
    """Every step, repeats opened (each once)."""
    out: list[Step] = []
    for s in steps:
        out.append(s)
        if isinstance(s, Repeat):
            out += walk(s.steps)
    return out


def check_script(script: Script) -> None:
    """A script must let time pass, or its task would loop for ever at one instant."""
    if not script.steps:
        raise ValueError("script.steps is empty; a script needs at least one step")
    # A 0 µs sleep returns at once with high-resolution timers (machine.hrtimers): it does not count.
    timed = [
        s
        for s in walk(script.steps)
        if isinstance(s, Run | Runtime | Timer) or (isinstance(s, Sleep) and s.ns)
    ]
    if not timed:
        raise ValueError(
            "the script has no run_us, runtime_us, timer_us or non-zero sleep_us step: "
            "it would loop without time passing"
        )


# ---- TOML: a table per step, named by its one action key ---------------------------------------------

VERBS = (
    "run_us",
    "runtime_us",
    "sleep_us",
    "timer_us",
    "yield",
    "lock",
    "unlock",
    "signal",
    "broadcast",
    "wait",
    "sync",
    "barrier",
    "repeat",
)
EXTRA = {
    "timer_us": ("timer", "absolute"),
    "wait": ("mutex",),
    "sync": ("mutex",),
    "repeat": ("steps", "name"),
}


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise ValueError(f"{what} = {shown(value)}; allowed {lo}..{hi}")
    return value


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > 200 or not value.isprintable():
        raise ValueError(f"{what} = {shown(value)}; allowed: a name (1..200 printable characters)")
    return value


def parse_steps(value: Any, where: str = "script.steps", depth: int = 0) -> tuple[Step, ...]:
    if depth > MAX_DEPTH:
        raise ValueError(f"{where}: repeats nested deeper than {MAX_DEPTH}")
    if not isinstance(value, list | tuple) or len(value) > MAX_STEPS:
        raise ValueError(f"{where} must be a list of at most {MAX_STEPS} step tables")
    return tuple(parse_step(item, f"{where}[{i}]", depth) for i, item in enumerate(value))


def parse_step(item: Any, where: str, depth: int = 0) -> Step:
    if not isinstance(item, Mapping):
        raise ValueError(f"{where}: a step is a table such as {{ run_us = 1000 }}")
    verbs = [k for k in item if k in VERBS]
    if len(verbs) != 1:
        raise ValueError(f"{where}: a step names one action; allowed: {', '.join(VERBS)}")
    verb = verbs[0]
    extra = [k for k in item if k != verb and k not in EXTRA.get(verb, ())]
    if extra:
        allowed = ", ".join(EXTRA.get(verb, ())) or "nothing else"
        raise ValueError(f"{where}: unknown key {shown(extra[0])} beside {verb}; allowed: {allowed}")
    v = item[verb]
    what = f"{where}.{verb}"
    if verb == "run_us":
        return Run(_int(v, what, 1, MAX_US) * US)
    if verb == "runtime_us":
        return Runtime(_int(v, what, 1, MAX_US) * US)
    if verb == "sleep_us":
        return Sleep(_int(v, what, 0, MAX_US) * US)
    if verb == "timer_us":
        absolute = item.get("absolute", False)
        if not isinstance(absolute, bool):
            raise ValueError(f"{where}.absolute = {shown(absolute)}; allowed: true or false")
        ref = _name(item.get("timer", "timer"), f"{where}.timer")
        return Timer(ref, _int(v, what, 1, MAX_US) * US, absolute)
    if verb == "yield":
        if v is not True:
            raise ValueError(f"{what} = {shown(v)}; allowed: true")
        return Yield()
    if verb == "repeat":
        steps = parse_steps(item.get("steps", []), f"{where}.steps", depth + 1)
        if not steps:
            raise ValueError(f"{where}.steps: a repeat needs steps")
        name = item.get("name", "")
        if not isinstance(name, str):
            raise ValueError(f"{where}.name = {shown(name)}; allowed: a string")
        return Repeat(_int(v, what, 1, MAX_REPEAT), steps, name)
    name = _name(v, what)
    if verb in ("wait", "sync"):
        mutex = item.get("mutex", "")
        if mutex != "":
            mutex = _name(mutex, f"{where}.mutex")
        return Wait(name, mutex) if verb == "wait" else Sync(name, mutex)
    simple: dict[str, type[Lock] | type[Unlock] | type[Signal] | type[Broadcast] | type[Barrier]] = {
        "lock": Lock,
        "unlock": Unlock,
        "signal": Signal,
        "broadcast": Broadcast,
        "barrier": Barrier,
    }
    return simple[verb](name)


def parse_script(value: Any) -> Script:
    """``script`` of a ``[[tasks]]`` entry: a table with ``steps`` (and ``loop``, ``delay_us``)."""
    if isinstance(value, Script):
        return value
    if not isinstance(value, Mapping):
        raise ValueError("a table: script.steps = [...], optionally script.loop and script.delay_us")
    unknown = [k for k in value if k not in ("steps", "loop", "delay_us")]
    if unknown:
        raise ValueError(f"unknown key {shown('script.' + str(unknown[0]))}; allowed: steps, loop, delay_us")
    loop = _int(value.get("loop", -1), "script.loop", -1, MAX_REPEAT)
    if loop == 0:
        raise ValueError("script.loop = 0; allowed -1 (for ever) or 1..")
    script = Script(
        parse_steps(value.get("steps", [])),
        loop,
        _int(value.get("delay_us", 0), "script.delay_us", 0, MAX_US),
    )
    check_script(script)
    return script
