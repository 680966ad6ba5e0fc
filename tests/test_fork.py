"""A copy of a run (``Simulation.fork``, ``model.fork``) is an independent twin: its future is the
original's, with or without a live setting applied to one of them, and running one leaves the other as
it was. Runs in both builds: compiled, a bound method is a builtin method that ``copy.deepcopy`` would
leave bound to the original (the walk below finds any object the twins share)."""

from __future__ import annotations

import copy
import dataclasses
import enum
import types
from typing import Any

import numpy as np
import pytest

from model.fork import SHARED_TUPLE_LEN, SHARED_TYPES, ForkError, fork_state, park
from model.scenario import builtin_names, load_scenario, parse_scenario
from model.sched import POLICIES
from model.simulation import SetTunable, Simulation

MS = 1_000_000
# How far each story runs before the copy and after it: the 2011 story is the slowest to simulate.
SPANS = {"qdisc-fairness-2011": (40 * MS, 90 * MS)}
DEFAULT_SPAN = (700 * MS, 1500 * MS)
TOGGLES = {
    "cfs-yield-2007": ("sched.compat_yield", 1),
    "bfs-saturated-2009": ("sched.compat_yield", 1),
    "qdisc-fairness-2011": ("qdisc.exit_rule", "quota"),
    "yield-playground": ("sched.compat_yield", 1),
}
_ATOMS = (type(None), bool, int, float, complex, str, bytes, range, type, types.ModuleType)


def reachable(root: Any) -> dict[int, Any]:
    """Every mutable object reachable from ``root``, by id, following what ``model.fork`` copies."""
    seen: dict[int, Any] = {}
    todo = [root]
    while todo:
        x = todo.pop()
        if isinstance(x, (*_ATOMS, enum.Enum)) or type(x) in SHARED_TYPES or id(x) in seen:
            continue
        if isinstance(x, types.BuiltinFunctionType) and isinstance(x.__self__, types.ModuleType | None):
            continue  # a module's function (compiled, it is a builtin): no state
        if isinstance(x, types.FunctionType):
            assert x.__closure__ is None and "<" not in x.__qualname__, f"a closure in the state: {x}"
            continue
        seen[id(x)] = x
        params = getattr(type(x), "__dataclass_params__", None)
        if params is not None and params.frozen:
            # Its fields, not the instance's __dict__ (from the Python sources): nobody can change that
            # dict, and twins share the instance when every field is a value.
            todo.extend(getattr(x, f.name) for f in dataclasses.fields(x))
        elif isinstance(x, list | tuple | set | frozenset):
            todo.extend(x)
        elif isinstance(x, dict):
            todo.extend(x.keys())
            todo.extend(x.values())
        elif isinstance(x, types.BuiltinMethodType | types.MethodWrapperType | types.MethodType):
            if not isinstance(x.__self__, types.ModuleType | None):
                todo.append(x.__self__)
        elif isinstance(x, types.MappingProxyType):
            todo.extend(x.values())
        elif isinstance(x, np.ndarray):
            assert not x.dtype.hasobject
            if not x.flags.writeable:  # read-only (a series' anchor): twins may share it
                del seen[id(x)]
        elif not hasattr(x, "__reduce_ex__") or isinstance(x, types.BuiltinFunctionType):
            continue
        else:
            reduced = x.__reduce_ex__(4)
            if not isinstance(reduced, str):
                todo.extend(a for a in reduced[1] if not isinstance(a, type))
                if len(reduced) > 2:
                    todo.append(reduced[2])
    return seen


def immutable(x: Any) -> bool:
    """Numbers, strings, tuples of them and frozen dataclasses: a twin may share these (nobody can change
    them; what they hold is walked, and reported if it is shared and mutable)."""
    params = getattr(type(x), "__dataclass_params__", None)
    if params is not None and params.frozen:
        return True
    return isinstance(x, _ATOMS) or (type(x) is tuple and all(immutable(v) for v in x))


def shared(a: Any, b: Any) -> list[str]:
    """What the two graphs have in common (empty for independent twins), as readable names."""
    theirs = reachable(b)
    out = []
    for key, obj in reachable(a).items():
        if key in theirs and not immutable(obj):
            out.append(f"{type(obj).__qualname__}: {obj!r}"[:160])
    return out


def state(sim: Simulation) -> tuple[Any, ...]:
    """Everything a run shows: its summary, a snapshot (arrays as lists) and its trace so far."""
    snap = sim.snapshot()
    return (
        sim.summary(),
        snap.t_ns,
        snap.cpus,
        snap.tasks,
        snap.runqueues,
        snap.qdisc,
        snap.toggles,
        snap.series.tolist(),
        snap.series_anchor.tolist(),
        tuple(sim.machine.trace.records),
    )


def fresh(name: str, to_ns: int = 0) -> Simulation:
    """A run of story ``name``, run to ``to_ns``."""
    sim = Simulation(load_scenario(name), sample_ns=5 * MS)
    sim.run_to(to_ns)
    return sim


@pytest.fixture(scope="module", params=builtin_names())
def story(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_twins_share_no_mutable_object(story: str) -> None:
    fork_at, _end = SPANS.get(story, DEFAULT_SPAN)
    sim = fresh(story, fork_at)
    twin = sim.fork()
    assert shared(sim, twin) == []
    assert twin.machine.q._heap, "the twin has its pending events"


def test_the_walk_finds_what_deepcopy_shares(story: str) -> None:
    """The check above can fail: ``copy.deepcopy`` of a compiled run shares its handlers."""
    sim = fresh(story, MS)
    # The machine's pending events' handlers: (t, prio, seq, handler, arg).
    handlers = [e[3] for e in sim.machine.q._heap if e[3].__self__ is sim.machine]
    assert handlers
    if isinstance(handlers[0], types.BuiltinMethodType):  # the compiled build: deepcopy shares them
        assert shared(handlers, copy.deepcopy(handlers))
    assert shared(handlers, fork_state(handlers)) == []


def test_a_twin_runs_as_the_original_would(story: str) -> None:
    fork_at, end = SPANS.get(story, DEFAULT_SPAN)
    straight = fresh(story, end)
    sim = fresh(story, fork_at)
    before = state(sim)
    twin = sim.fork()
    assert state(twin) == before
    twin.run_to(end)  # the twin first: the original must not move
    assert state(sim) == before
    sim.run_to((fork_at + end) // 2)  # the original in other steps than the twin's
    sim.run_to(end)
    assert state(twin) == state(straight)
    assert state(sim) == state(straight)


def test_a_setting_on_one_twin_leaves_the_other_alone(story: str) -> None:
    fork_at, end = SPANS.get(story, DEFAULT_SPAN)
    key, value = TOGGLES[story]
    toggled = fresh(story, fork_at)
    toggled.apply(SetTunable(key, value))
    toggled.run_to(end)
    plain = fresh(story, end)
    sim = fresh(story, fork_at)
    twin = sim.fork()
    twin.apply(SetTunable(key, value))
    twin.run_to(end)
    sim.run_to(end)
    assert state(twin) == state(toggled)
    assert state(sim) == state(plain)
    assert state(toggled) != state(plain), "the setting changes the run: else this test proves nothing"


def test_a_twin_of_a_twin(story: str) -> None:
    fork_at, end = SPANS.get(story, DEFAULT_SPAN)
    straight = fresh(story, end)
    sim = fresh(story, fork_at // 2)
    first = sim.fork()
    first.run_to(fork_at)
    second = first.fork()
    del sim, first
    second.run_to(end)
    assert state(second) == state(straight)


def test_a_closure_in_the_state_is_refused() -> None:
    counter = [0]
    with pytest.raises(ForkError, match="lambda or closure"):
        fork_state({"probe": lambda: counter[0]})


def test_a_generator_program_is_refused() -> None:
    def program() -> Any:
        yield 1

    with pytest.raises(ForkError, match="generator"):
        fork_state([program()])


# ---- parked checkpoints (``Simulation.checkpoint``, ``model.fork.park``) ------------------------------


def test_runs_resumed_from_a_checkpoint_share_no_mutable_object(story: str) -> None:
    fork_at, _end = SPANS.get(story, DEFAULT_SPAN)
    sim = fresh(story, fork_at)
    parked = sim.checkpoint(100)
    one, two = Simulation.resume(parked), Simulation.resume(parked)
    assert shared(sim, one) == [] and shared(one, two) == []
    assert one.machine.q._heap, "the resumed run has its pending events"


def test_a_checkpoint_shares_the_number_tables_and_the_series_rows(story: str) -> None:
    """What nobody changes is referred to, not pickled: every long table of numbers in the state (the
    2011 story's jitter draws), the rows sampled so far and the anchor."""
    fork_at, _end = SPANS.get(story, DEFAULT_SPAN)
    sim = fresh(story, fork_at)
    parked = sim.checkpoint(100)
    by_id = {id(x) for x in parked.shared}
    tables = [
        x
        for x in reachable(sim).values()
        if type(x) is tuple and len(x) >= SHARED_TUPLE_LEN and all(type(v) in (int, float) for v in x)
    ]
    assert all(id(t) in by_id for t in tables)
    if story == "qdisc-fairness-2011":
        assert len(tables) >= 2, "the senders' and the interrupts' jitter tables"
    rows = Simulation.resume(parked).series
    assert rows.rows == sim.series.rows > 0
    assert np.shares_memory(rows.view(), sim.series.view()), "the rows are the live run's, not a copy"
    assert parked.size < 200_000


def test_a_checkpoint_that_keeps_the_newest_rows_copies_them_and_pins_no_array(story: str) -> None:
    """``checkpoint(n, keep_rows)``: the newest rows, equal to the run's, in arrays of the resumed run's
    own (the parked state refers to no array of rows, so a kept checkpoint frees what the live series lets
    go); the rows left out are counted as dropped, and the run samples on as the original does."""
    fork_at, end = SPANS.get(story, DEFAULT_SPAN)
    sim = fresh(story, fork_at)
    keep = 7
    assert sim.series.rows > keep
    parked = sim.checkpoint(100, keep_rows=keep)
    assert not any(isinstance(x, np.ndarray) and x.ndim > 1 for x in parked.shared)
    twin = Simulation.resume(parked)
    assert twin.series.view().tolist() == sim.series.view()[-keep:].tolist()
    assert not np.shares_memory(twin.series.view(), sim.series.view())
    assert twin.series.dropped == sim.series.dropped + sim.series.rows - keep
    assert twin.series.anchor.tolist() == sim.series.anchor.tolist()
    twin.run_to(end)
    sim.run_to(end)
    assert twin.series.view().tolist() == sim.series.view()[-twin.series.rows :].tolist()


def test_a_resumed_run_runs_as_the_original_would_and_parking_leaves_the_original_alone(story: str) -> None:
    fork_at, end = SPANS.get(story, DEFAULT_SPAN)
    straight = fresh(story, end)
    sim = fresh(story, fork_at)
    before = state(sim)
    parked = sim.checkpoint(100)
    assert state(sim) == before, "parking changed the run"
    one = Simulation.resume(parked)
    assert state(one)[:-1] == before[:-1], "all but the trace, which the checkpoint keeps packed"
    one.run_to(end)  # the resumed run first: the original must not move
    assert state(sim) == before
    sim.run_to(end)
    two = Simulation.resume(parked)
    two.run_to((fork_at + end) // 2)
    two.run_to(end)
    assert state(one)[:-1] == state(two)[:-1] == state(straight)[:-1] == state(sim)[:-1]


def test_a_setting_on_a_resumed_run_leaves_the_next_one_alone(story: str) -> None:
    fork_at, end = SPANS.get(story, DEFAULT_SPAN)
    key, value = TOGGLES[story]
    sim = fresh(story, fork_at)
    parked = sim.checkpoint(100)
    toggled = Simulation.resume(parked)
    toggled.apply(SetTunable(key, value))
    toggled.run_to(end)
    plain = Simulation.resume(parked)
    plain.run_to(end)
    sim.run_to(end)
    assert state(plain)[:-1] == state(sim)[:-1]
    assert state(toggled)[:-1] != state(plain)[:-1], "the setting changes the run"


def test_parking_a_closure_is_refused() -> None:
    counter = [0]
    with pytest.raises(ForkError, match="cannot be parked"):
        park({"probe": lambda: counter[0]})


SCRIPTED = """
[scenario]
duration_s = 1.0
[sched]
policy = "{policy}"
[[tasks]]
name = "video"
kind = "script"
script.steps = [{{run_us = 3000}}, {{timer_us = 16000, timer = "unique"}}]
[[tasks]]
name = "pair"
kind = "script"
count = 2
script.steps = [
  {{repeat = 3, steps = [{{lock = "m"}}, {{run_us = 500}}, {{unlock = "m"}}, {{sleep_us = 2000}}]}},
  {{repeat = 1, steps = [{{run_us = 100}}, {{barrier = "b"}}, {{yield = true}}]}},
]
"""


@pytest.mark.parametrize("policy", list(POLICIES))
def test_a_scripted_workload_parks_and_resumes_under_every_policy(policy: str) -> None:
    """A user's scenario (mutexes, barriers, timers: state the built-in stories do not have) parks too."""
    scenario = parse_scenario(SCRIPTED.format(policy=policy))
    sim = Simulation(scenario, sample_ns=5 * MS)
    sim.run_to(333 * MS)
    resumed = Simulation.resume(sim.checkpoint(100))
    assert shared(sim, resumed) == []
    sim.run_to(900 * MS)
    resumed.run_to(900 * MS)
    assert state(resumed)[:-1] == state(sim)[:-1]
