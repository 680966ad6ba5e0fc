"""Every guided lesson (resources/lessons/*.steps.toml) run against the model: each claim a step makes
about what the model shows holds, as the step's own check states it (orderings and ratios between
settings, never a figure from the seeds); the lesson files say what they mean or are refused."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gui.lessons import (
    LESSON_DIR,
    SUFFIX,
    Check,
    LessonError,
    evaluate,
    has_lesson,
    load_lesson,
    parse_lesson,
    run_headless,
)
from model.scenario import builtin_names

LESSONS = sorted(p.name[: -len(SUFFIX)] for p in LESSON_DIR.glob(f"*{SUFFIX}"))


def test_every_story_has_a_guided_lesson() -> None:
    stories = builtin_names()  # the playground too
    assert stories and all(has_lesson(n) for n in stories), stories
    assert set(stories) <= set(LESSONS)


@pytest.mark.parametrize("story", LESSONS)
def test_every_claim_of_the_lesson_holds_in_the_model(story: str) -> None:
    lesson = load_lesson(story)
    assert lesson.story == story
    results = run_headless(lesson)
    assert len(results) == len(lesson.steps)
    checks = [
        (result.step.title, check.claim, ok, words) for result, cs in results for check, ok, words in cs
    ]
    assert len(checks) >= 3, "a lesson backs its claims with checks"
    failing = [c for c in checks if not c[2]]
    assert not failing, failing
    # A step that runs until an event and claims it happened stopped on it, not at its time limit.
    for result, _ in results:
        if result.step.until is not None:
            assert result.hit, result.step.title


def test_a_check_that_does_not_hold_is_reported() -> None:
    """The checks can fail: the 2007 lesson's first claim, turned round, does not hold."""
    lesson = load_lesson("cfs-yield-2007")
    result, checks = run_headless(replace(lesson, steps=lesson.steps[:1]))[0]
    ((check, ok, _),) = checks
    assert ok
    measured = dict(result.values)
    turned = replace(check, op="<")
    assert evaluate(turned, result, measured)[0] is False
    never = Check(claim="no yields", kind="no_yields")
    assert evaluate(never, result, measured)[0] is False  # the reporter yields under O(1)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"steps": []}, "at least one"),
        ({"steps": [{"title": "x", "runfor": 1}]}, "unknown key 'runfor'"),
        ({"steps": [{"until": "never"}]}, "until = 'never'"),
        ({"steps": [{"speed": "Warp"}]}, "speed = 'Warp'"),
        ({"steps": [{"run_for_s": -1}]}, "seconds >= 0"),
        ({"steps": [{"check": [{"kind": "compare", "op": "~", "claim": "c"}]}]}, "op '~'"),
        ({"steps": [{"check": [{"kind": "stopped"}]}]}, "claim = ..."),
        ({"steps": [{"check": [{"kind": "guess", "claim": "c"}]}]}, "kind 'guess'"),
    ],
)
def test_a_lesson_file_that_does_not_say_what_it_means_is_refused(data: dict, words: str) -> None:
    with pytest.raises(LessonError, match=r"step 1|lesson needs") as info:
        parse_lesson(data, "x.steps.toml")
    assert words in str(info.value)


def test_every_kind_of_until_has_its_rule_and_its_words() -> None:
    from gui.lesson_driver import UNTIL_WORDS
    from gui.lessons import UNTIL, stop_rule

    assert set(UNTIL) == set(UNTIL_WORDS)
    assert all(stop_rule(until) is not None for until in UNTIL)


def test_the_yield_checks_can_fail() -> None:
    """Step 2 of the 2007 lesson: the reporter's yield is picked again and the data thread's wakeups
    take the CPU; turned round (a yield that switched, the reporter's wakeups) they do not hold."""
    from model.snapshot import YieldRecord

    lesson = load_lesson("cfs-yield-2007")
    result, checks = run_headless(replace(lesson, steps=lesson.steps[:2]))[1]
    assert all(ok for _check, ok, _words in checks), checks
    again = Check(claim="picked again", kind="picked_again")
    wakes = Check(claim="wakes and runs", kind="wake_runs", value="iperf-data")
    assert evaluate(again, result, {})[0] and evaluate(wakes, result, {})[0]
    last = next(r for r in reversed(result.records) if isinstance(r, YieldRecord))
    switched = replace(result, records=(*result.records, replace(last, switched=True)))
    assert evaluate(again, switched, {})[0] is False
    assert evaluate(replace(wakes, value="iperf-reporter"), result, {})[0] is False  # it never sleeps


def test_a_deadline_gap_is_measured_in_requests_and_only_under_eevdf() -> None:
    from gui.lessons import deadline_gap
    from model.scenario import load_scenario
    from model.simulation import Simulation
    from model.snapshot import EevdfView

    for forfeit in (0, 1):
        settings = {"sched.policy": "eevdf", "sched.yield_forfeit": forfeit}
        sim = Simulation(load_scenario("yield-playground").with_overrides(settings))
        snap = sim.advance(1_000_000_000)
        gap = deadline_gap(snap, "hog", "deadline_gap:hog")
        rq = snap.runqueues[0]
        assert isinstance(rq, EevdfView)
        hog = next(e for e in rq.entries if e.tid == next(t.tid for t in snap.tasks if t.name == "hog"))
        assert gap == abs(hog.deadline_ns - rq.avg_vruntime_ns) / hog.slice_ns  # nice 0: a request is a slice
    cfs = Simulation(load_scenario("yield-playground")).advance(1_000_000)
    with pytest.raises(LessonError, match="no EEVDF run-queue entry"):
        deadline_gap(cfs, "hog", "deadline_gap:hog")
