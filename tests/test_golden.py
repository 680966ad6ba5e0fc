"""Stored summaries of every built-in scenario: a refactor that changes an outcome is seen here.

Each file in ``tests/golden/`` is what ``schedlab run SCENARIO --json`` prints for one configuration,
without the wall-clock fields. When a change of outcome is intended, regenerate them all with

    .venv/bin/pytest tests/test_golden.py --update-golden

and say in the commit which figures moved and why. The comparison is exact: the model is
deterministic, and its compiled and pure builds give the same bytes.

A scenario named in ``STORED_DURATION_S`` is stored at that shorter duration, not its own: the 2011
story's faithful 3.0 transmit path steps every packet's lock hand-offs and interrupts (about half a
million packets per wall second compiled, about twelve times fewer from the pure sources: its 10 s
take 12-15 s compiled and minutes pure). Its first half second
already drives every part of that path (in the stored files: thousands of dequeuer runs, over ten
thousand TX interrupts, dozens of ring stops and sender sleeps, ksoftirqd once to a few times), so a
changed outcome shows there as well. Each stored file's ``duration_s`` says which duration ran.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model.scenario import builtin_names, load_scenario
from model.sched import POLICIES
from model.sched.base import NSEC_PER_SEC
from model.simulation import Simulation

GOLDEN_DIR = Path(__file__).parent / "golden"
# Known crashes, kept visible: a strict xfail fails the suite once the crash is fixed.
KNOWN_CRASHES: dict[str, str] = {}
STORED_DURATION_S: dict[str, float] = {"qdisc-fairness-2011": 0.5}


def configurations() -> list[tuple[str, str, dict[str, object]]]:
    """(file stem, scenario, overrides): every built-in scenario as shipped and under every policy."""
    out: list[tuple[str, str, dict[str, object]]] = []
    for name in builtin_names():
        base: dict[str, object] = {}
        if name in STORED_DURATION_S:
            base["scenario.duration_s"] = STORED_DURATION_S[name]
        out.append((name, name, base))
        shipped = load_scenario(name).sched.policy
        out += [(f"{name}--{p}", name, {**base, "sched.policy": p}) for p in POLICIES if p != shipped]
    return out


def _params() -> list[object]:
    return [
        pytest.param(
            *c,
            id=c[0],
            marks=[pytest.mark.xfail(raises=AssertionError, strict=True, reason=KNOWN_CRASHES[c[0]])]
            if c[0] in KNOWN_CRASHES
            else [],
        )
        for c in configurations()
    ]


def summary_text(name: str, overrides: dict[str, object]) -> str:
    scenario = load_scenario(name).with_overrides(overrides)
    sim = Simulation(scenario, trace="off")
    sim.advance(round(scenario.duration_s * NSEC_PER_SEC))
    return json.dumps(sim.summary(), indent=1, sort_keys=True) + "\n"


@pytest.mark.parametrize(("stem", "name", "overrides"), _params())
def test_summary_matches_the_stored_one(
    stem: str, name: str, overrides: dict[str, object], request: pytest.FixtureRequest
) -> None:
    path = GOLDEN_DIR / f"{stem}.json"
    got = summary_text(name, overrides)
    if request.config.getoption("--update-golden"):
        GOLDEN_DIR.mkdir(exist_ok=True)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(got, encoding="utf-8")
        tmp.replace(path)
        return
    assert path.is_file(), f"no stored summary {path.name}: run pytest tests/test_golden.py --update-golden"
    want = path.read_text(encoding="utf-8")
    if got != want:
        changed = _changed_keys(json.loads(want), json.loads(got))
        pytest.fail(f"{stem}: the run's outcome changed at {', '.join(changed[:12])}")


def test_no_stale_golden_files() -> None:
    """Every stored file belongs to a configuration that still exists."""
    stems = {c[0] for c in configurations() if c[0] not in KNOWN_CRASHES}
    stale = sorted(p.stem for p in GOLDEN_DIR.glob("*.json") if p.stem not in stems)
    assert not stale, f"stored summaries with no configuration: {stale}"


def _changed_keys(a: object, b: object, where: str = "") -> list[str]:
    """The dotted paths at which two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(set(a) | set(b))
        return [k for key in keys for k in _changed_keys(a.get(key), b.get(key), f"{where}.{key}".strip("."))]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = enumerate(zip(a, b, strict=True))
        return [k for i, (x, y) in pairs for k in _changed_keys(x, y, f"{where}[{i}]")]
    return [] if a == b else [where or "(top)"]
