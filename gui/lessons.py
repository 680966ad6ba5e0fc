"""Guided lessons: each story's steps, stored as data beside its prose (``lessons/<story>.steps.toml``).

A step may set settings (live ones at once, others by restarting the run with the same seed), choose
a playback speed, run for or to a simulated time or until an event (a yield lands, the dequeuer role
changes hands), then pause; it highlights panels, graphs or settings, and narrates (with the seed
mails' quotes). What a step claims about what the model shows is written beside it as checks on
measurements, each a figure of ``model.metrics.interval_figures`` over the step (from where its
settings took effect to where it paused), or a fact of its trace (where the yields landed, whether
the yield it stopped at kept the CPU, whether a task's wakeups ran it at once, why dequeuers
stopped). Checks compare measurements with each other (orderings, ratios between settings),
never with a figure from the seeds: ``run_headless`` executes a lesson against the model, without a
window, and evaluates every check (tests/test_lessons.py; ``python -m gui.lessons`` prints them).
This module holds no Qt; the window's driver is ``gui.lesson_driver``.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from model import resource_root
from model.metrics import IntervalFigures, interval_figures
from model.scenario import Scenario, load_scenario
from model.sched.base import calc_delta_fair, nice_to_weight
from model.simulation import LIVE_KEYS, SetTunable, Simulation
from model.snapshot import EevdfView, Snapshot, SwitchRecord, TaskView, TraceRecord, WakeRecord, YieldRecord
from model.stops import DequeuerChanges, StopRule, YieldLands

LESSON_DIR = resource_root() / "lessons"
SUFFIX = ".steps.toml"
UNTIL = ("yield", "yield_moved", "dequeuer_change")
SPEEDS = ("Slow", "Normal", "Fast")
OPS = ("<", ">", "<=", ">=", "within")
CHECK_KINDS = (
    "compare",
    "landing",
    "no_yields",
    "picked_again",
    "wake_runs",
    "stopped",
    "exit_reason_top",
    "exit_reason_never",
    "top_cpus",
)
NS_PER_S = 1_000_000_000


class LessonError(ValueError):
    """A lesson file that does not say what it means: one line naming the step and the key."""


@dataclass(frozen=True, slots=True)
class Check:
    claim: str  # the sentence of the narration it backs
    kind: str  # one of CHECK_KINDS
    left: str = ""  # compare: a measurement name
    op: str = ""  # compare: one of OPS
    right: str = ""  # compare: a measurement name
    factor: float = 1.0  # compare: left op right × factor ("within": |left/right - 1| <= factor)
    value: str = ""  # landing, exit reasons: the expected code; top_cpus: CPUs, comma-separated;
    # wake_runs: the task's name


@dataclass(frozen=True, slots=True)
class Step:
    title: str
    narrate: str  # Markdown
    settings: Mapping[str, Any] = field(default_factory=dict)  # dotted keys
    speed: str | None = None
    run_for_ns: int | None = None
    run_to_ns: int | None = None
    until: str | None = None  # one of UNTIL
    until_limit_ns: int = 2 * NS_PER_S
    highlight: tuple[
        str, ...
    ] = ()  # "lanes", "runqueue", "qdisc", "graphs", "headline", "graph:NAME", "setting:KEY"
    measure: tuple[tuple[str, str], ...] = ()  # (name, figure)
    checks: tuple[Check, ...] = ()

    @property
    def restarts(self) -> bool:
        """Whether entering the step starts the run again (it changes a setting that is not live)."""
        return any(key not in LIVE_KEYS for key in self.settings)

    @property
    def runs(self) -> bool:
        return self.run_for_ns is not None or self.run_to_ns is not None or self.until is not None


@dataclass(frozen=True, slots=True)
class Lesson:
    story: str
    title: str
    steps: tuple[Step, ...]


def lesson_path(story: str) -> Path:
    return LESSON_DIR / f"{story}{SUFFIX}"


def has_lesson(story: str) -> bool:
    return lesson_path(story).is_file()


def load_lesson(story: str) -> Lesson:
    path = lesson_path(story)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LessonError(f"{path.name}: {exc}") from None
    return parse_lesson(data, path.name)


def _seconds(raw: object, where: str) -> int:
    if not isinstance(raw, int | float) or raw < 0:
        raise LessonError(f"{where}: expected seconds >= 0, got {raw!r}")
    return round(float(raw) * NS_PER_S)


def _check(raw: Mapping[str, Any], where: str) -> Check:
    known = {f for f in Check.__dataclass_fields__}
    unknown = set(raw) - known
    if unknown:
        raise LessonError(
            f"{where}: unknown check key {sorted(unknown)[0]!r}; allowed: {', '.join(sorted(known))}"
        )
    if not raw.get("claim") or not raw.get("kind"):
        raise LessonError(
            f"{where}: every check says which claim it backs and its kind (claim = ..., kind = ...)"
        )
    check = Check(**raw)
    if check.kind not in CHECK_KINDS:
        raise LessonError(f"{where}: kind {check.kind!r}; allowed: {', '.join(CHECK_KINDS)}")
    if check.kind == "compare" and check.op not in OPS:
        raise LessonError(f"{where}: op {check.op!r}; allowed: {', '.join(OPS)}")
    return check


STEP_KEYS = (
    "title",
    "narrate",
    "set",
    "speed",
    "run_for_s",
    "run_to_s",
    "until",
    "until_limit_s",
    "highlight",
    "measure",
    "check",
)


def parse_lesson(data: Mapping[str, Any], source: str = "<lesson>") -> Lesson:
    head = data.get("lesson", {})
    steps = []
    for i, raw in enumerate(data.get("steps", []), start=1):
        where = f"{source}: step {i}"
        unknown = [k for k in raw if k not in STEP_KEYS]
        if unknown:
            raise LessonError(f"{where}: unknown key {unknown[0]!r}; allowed: {', '.join(STEP_KEYS)}")
        if raw.get("until") is not None and raw["until"] not in UNTIL:
            raise LessonError(f"{where}: until = {raw['until']!r}; allowed: {', '.join(UNTIL)}")
        if raw.get("speed") is not None and raw["speed"] not in SPEEDS:
            raise LessonError(f"{where}: speed = {raw['speed']!r}; allowed: {', '.join(SPEEDS)}")
        measure = tuple((str(k), str(v)) for k, v in raw.get("measure", {}).items())
        steps.append(
            Step(
                title=str(raw.get("title", f"Step {i}")),
                narrate=str(raw.get("narrate", "")),
                settings=dict(raw.get("set", {})),
                speed=raw.get("speed"),
                run_for_ns=_seconds(raw["run_for_s"], where) if "run_for_s" in raw else None,
                run_to_ns=_seconds(raw["run_to_s"], where) if "run_to_s" in raw else None,
                until=raw.get("until"),
                until_limit_ns=_seconds(raw.get("until_limit_s", 2.0), where),
                highlight=tuple(raw.get("highlight", ())),
                measure=measure,
                checks=tuple(
                    _check(c, f"{where} check {k}") for k, c in enumerate(raw.get("check", []), start=1)
                ),
            )
        )
    if not steps:
        raise LessonError(f"{source}: a lesson needs at least one [[steps]]")
    return Lesson(str(head.get("story", "")), str(head.get("title", "")), tuple(steps))


def stop_rule(until: str | None, tids: Mapping[str, int] | None = None) -> StopRule | None:
    if until == "yield":
        return YieldLands()
    if until == "yield_moved":
        return YieldLands(moved=True)
    if until == "dequeuer_change":
        return DequeuerChanges()
    return None


def scenario_for(base: Scenario, current: Scenario, step: Step) -> Scenario:
    """The scenario a restarting step runs: the current one with its settings (a CPU count through
    ``model.cpu_count``, as the CPUs control does)."""
    settings = dict(step.settings)
    cpus = settings.pop("machine.cpus", None)
    scenario = current.with_overrides(settings) if settings else current
    if cpus is not None:
        keep = {
            k: v
            for k, v in scenario.settings().items()
            if not k.startswith(("machine.cpus", "net.irq_cpus", "iperf.cpu", "scenario."))
        }
        scenario = base.with_overrides({**keep, "machine.cpus": cpus})
    return scenario


# ---- measurements over a step --------------------------------------------------------------------


def figure(name: str, figs: IntervalFigures, snapshot: Snapshot, records: Sequence[TraceRecord]) -> float:
    """One measured figure: ``bandwidth_mbps``, ``jain``, ``share:TASK`` (one task of that name's share
    of a CPU), ``dequeued:CPU`` (its share of the dequeues), ``hardirq:CPU``, ``busy:CPU``,
    ``switches_per_s``, ``yields:TASK`` (yields the step's trace recorded); under EEVDF, at the step's
    end, ``deadline_gap:TASK`` (how far its deadline lies from V, either way, in requests: one is a fresh
    request's length, its slice scaled by its weight)."""
    kind, _, arg = name.partition(":")
    if kind == "bandwidth_mbps":
        return figs.bandwidth_mbps
    if kind == "switches_per_s":
        return figs.switches_per_s
    if kind == "jain":
        if figs.fairness_jain is None:
            raise LessonError(f"figure {name!r}: this run has no transmit path")
        return figs.fairness_jain
    if kind == "share":
        for task, share in zip(snapshot.tasks, figs.task_share, strict=True):
            if task.name == arg:
                return share
        raise LessonError(f"figure {name!r}: no task named {arg!r}")
    if kind == "dequeued":
        total = sum(figs.dequeued) or 1
        return figs.dequeued[int(arg)] / total
    if kind in ("hardirq", "busy"):
        return (figs.cpu_hardirq if kind == "hardirq" else figs.cpu_busy)[int(arg)]
    if kind == "yields":
        tids = {t.tid for t in snapshot.tasks if t.name == arg}
        return float(sum(1 for r in records if isinstance(r, YieldRecord) and r.tid in tids))
    if kind == "deadline_gap":
        return deadline_gap(snapshot, arg, name)
    raise LessonError(f"unknown figure {name!r}")


def deadline_gap(snapshot: Snapshot, task_name: str, figure_name: str) -> float:
    """How far task ``task_name``'s EEVDF deadline lies from V, either way, in requests of its own."""
    tids = {t.tid: t.nice for t in snapshot.tasks if t.name == task_name}
    for rq in snapshot.runqueues:
        if not isinstance(rq, EevdfView):
            continue
        for e in rq.entries:
            if e.tid in tids:
                request = calc_delta_fair(e.slice_ns, nice_to_weight(tids[e.tid]))
                return abs(e.deadline_ns - rq.avg_vruntime_ns) / request
    raise LessonError(f"figure {figure_name!r}: no EEVDF run-queue entry of {task_name!r} at the step's end")


@dataclass
class StepResult:
    step: Step
    figures: IntervalFigures | None
    hit: bool
    records: tuple[TraceRecord, ...]
    exit_reasons: dict[str, int]
    tasks: tuple[TaskView, ...] = ()
    values: dict[str, float] = field(default_factory=dict)


def evaluate(check: Check, result: StepResult, measured: Mapping[str, float]) -> tuple[bool, str]:
    """Whether ``check`` holds for the step's ``result`` (and the lesson's measurements so far), and the
    numbers it looked at, in words."""
    if check.kind == "compare":
        left, right = measured[check.left], measured[check.right] * check.factor
        if check.op == "within":
            ok = abs(measured[check.left] / measured[check.right] - 1) <= check.factor
        else:
            ok = {"<": left < right, ">": left > right, "<=": left <= right, ">=": left >= right}[check.op]
        words = f"{check.left} = {measured[check.left]:.4g} {check.op} {check.factor:g} × {check.right}"
        return ok, f"{words} = {right:.4g}"
    if check.kind == "landing":
        seen = {r.outcome.landing for r in result.records if isinstance(r, YieldRecord)}
        return check.value in seen, f"yield landings seen: {sorted(seen)}"
    if check.kind == "picked_again":  # the yield the step stopped at: its task kept the CPU
        last = next((r for r in reversed(result.records) if isinstance(r, YieldRecord)), None)
        return last is not None and not last.switched, f"last yield: {last}"
    if check.kind == "wake_runs":  # every wakeup of task ``value`` switches to it at that instant
        tids = {t.tid for t in result.tasks if t.name == check.value}
        wakes = [r.t_ns for r in result.records if isinstance(r, WakeRecord) and r.tid in tids]
        runs = {r.t_ns for r in result.records if isinstance(r, SwitchRecord) and r.tid in tids}
        return bool(wakes) and all(t in runs for t in wakes), f"{len(wakes)} wakeups, at {wakes[:5]}"
    if check.kind == "no_yields":
        n = sum(1 for r in result.records if isinstance(r, YieldRecord))
        return n == 0, f"{n} yields"
    if check.kind == "stopped":
        return result.hit, "the event happened" if result.hit else "the event did not happen before the limit"
    reasons = result.exit_reasons
    if check.kind == "exit_reason_top":
        top = max(reasons, key=lambda k: reasons[k]) if reasons else ""
        return top == check.value, f"exit reasons: {reasons}"
    if check.kind == "exit_reason_never":
        return reasons.get(check.value, 0) == 0, f"exit reasons: {reasons}"
    if check.kind == "top_cpus":
        assert result.figures is not None
        want = {int(c) for c in check.value.split(",")}
        order = np.argsort(result.figures.dequeued)[::-1][: len(want)]
        return {int(c) for c in order} == want, f"dequeued per CPU: {result.figures.dequeued}"
    raise LessonError(f"unknown check kind {check.kind!r}")


def exit_reason_counts(snapshot: Snapshot) -> dict[str, int]:
    return dict(snapshot.qdisc.exit_reasons) if snapshot.qdisc is not None else {}


def run_headless(
    lesson: Lesson, sample_ns: int = 5_000_000
) -> list[tuple[StepResult, list[tuple[Check, bool, str]]]]:
    """Execute every step of ``lesson`` in order against the model (no window, as fast as it runs) and
    evaluate its checks. Returns each step's result with (check, holds, what it looked at)."""
    base = load_scenario(lesson.story)
    scenario = base
    sim = Simulation(scenario, sample_ns=sample_ns, trace="full")
    measured: dict[str, float] = {}
    out = []
    for step in lesson.steps:
        if step.restarts:
            scenario = scenario_for(base, scenario, step)
            sim = Simulation(scenario, sample_ns=sample_ns, trace="full")
        for key, value in step.settings.items():
            if key in LIVE_KEYS and not step.restarts:
                sim.apply(SetTunable(key, value))
        sim.series.mark(sim.now_ns)
        start_row = sim.series.anchor
        start_records = len(sim.machine.trace.records)
        start_reasons = exit_reason_counts(sim.snapshot())
        hit = False
        if step.run_to_ns is not None:
            sim.run_to(max(step.run_to_ns, sim.now_ns))
        elif step.run_for_ns is not None:
            sim.run_to(sim.now_ns + step.run_for_ns)
        rule = stop_rule(step.until)
        if rule is not None:
            rule.begin(sim)
            hit = sim.run_to(sim.now_ns + step.until_limit_ns, rule)
        sim.series.sample(sim.now_ns)
        snap = sim.snapshot()
        figs = interval_figures(snap.series_layout, start_row, snap.series[-1])
        records = tuple(sim.machine.trace.records[start_records:])
        reasons = {k: v - start_reasons.get(k, 0) for k, v in exit_reason_counts(snap).items()}
        result = StepResult(step, figs, hit, records, reasons, snap.tasks)
        for name, fig in step.measure:
            if figs is None:
                raise LessonError(f"step {step.title!r}: measures {name!r} but runs for no time")
            measured[name] = result.values[name] = figure(fig, figs, snap, records)
        out.append((result, [(c, *evaluate(c, result, measured)) for c in step.checks]))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m gui.lessons [STORY...]``: run each lesson headless and print every claim and check."""
    stories = list(argv if argv is not None else sys.argv[1:]) or sorted(
        p.name[: -len(SUFFIX)] for p in LESSON_DIR.glob(f"*{SUFFIX}")
    )
    failed = 0
    for story in stories:
        lesson = load_lesson(story)
        print(f"{story}: {lesson.title}")
        for result, checks in run_headless(lesson):
            print(f"  {result.step.title}")
            for name, value in result.values.items():
                print(f"    {name} = {value:.4g}")
            for check, ok, words in checks:
                failed += not ok
                print(f"    [{'ok' if ok else 'FAILS'}] {check.claim}  ({words})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
