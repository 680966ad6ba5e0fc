"""The event queue: total order, and the only owner of the clock, which never goes backwards."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from model.events import PRIO_IRQ, PRIO_TASK, EventQueue

MODEL = Path(__file__).resolve().parent.parent / "model"


def test_same_instant_events_run_by_priority_then_insertion() -> None:
    q, seen = EventQueue(), []
    q.push(10, PRIO_TASK, seen.append, "task-1")
    q.push(10, PRIO_IRQ, seen.append, "irq")
    q.push(10, PRIO_TASK, seen.append, "task-2")
    q.push(5, PRIO_TASK, seen.append, "early")
    assert q.run_until(10)
    assert seen == ["early", "irq", "task-1", "task-2"]
    assert (q.now_ns, q.dispatched) == (10, 4)


def test_pushing_into_the_past_or_running_backwards_fails() -> None:
    q = EventQueue()
    q.run_until(100)
    with pytest.raises(AssertionError, match="in the past"):
        q.push(99, PRIO_TASK, lambda _: None)
    with pytest.raises(AssertionError, match="in the past"):
        q.run_until(50)
    assert q.now_ns == 100


def test_jump_to_is_checked() -> None:
    q = EventQueue()
    q.push(400, PRIO_TASK, lambda _: q.jump_to(450))  # a handler jumps within the run in progress
    q.push(500, PRIO_TASK, lambda _: None)
    assert q.run_until(1_000, max_events=1) is False
    assert q.now_ns == 450
    with pytest.raises(AssertionError, match="in the past"):
        q.jump_to(449)
    with pytest.raises(AssertionError, match="skips the event due at 500"):
        q.jump_to(501)
    q.jump_to(500)  # up to a pending event is allowed: it is still dispatched at its time
    q.run_until(1_000)
    with pytest.raises(AssertionError, match="passes the end of the run"):
        q.jump_to(1_001)
    assert q.now_ns == 1_000


def test_dispatch_inline_only_where_the_event_would_come_next() -> None:
    # A handler that carries on at a later instant itself instead of pushing an event there: the same
    # order and count as the event it replaces, or a refusal (it then pushes it).
    q, seen = EventQueue(), []

    def chain(at: list[int]) -> None:
        seen.append(q.now_ns)
        for t in at:
            if not q.dispatch_inline(t):
                q.push(t, PRIO_TASK, chain, [])
                return
            seen.append(q.now_ns)

    q.push(300, PRIO_IRQ, seen.append, "irq")
    q.push(100, PRIO_TASK, chain, [150, 200, 300, 400])
    assert q.run_until(1_000)
    assert seen == [100, 150, 200, "irq", 300]  # 300: an event due then goes first, so it is pushed
    assert q.dispatched == 5  # 100, 150, 200, the irq, 300
    q.push(1_100, PRIO_TASK, chain, [1_200, 2_500])
    q.run_until(2_000)
    assert seen[-2:] == [1_100, 1_200] and q.now_ns == 2_000  # 2_500: past the run's end, pushed
    assert q.run_until(3_000) and seen[-1] == 2_500
    q.push(3_100, PRIO_TASK, chain, [3_200])
    assert q.run_until(4_000, max_events=1) is False  # the budget of one event is spent: pushed
    assert q.now_ns == 3_100 and q.next_time() == 3_200
    with pytest.raises(AssertionError, match="in the past"):
        q.dispatch_inline(3_000)


def test_only_the_event_queue_moves_the_clock() -> None:
    writers = []
    for path in sorted(MODEL.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Attribute) and leaf.attr == "now_ns":
                        writers.append(f"{path.relative_to(MODEL)}:{leaf.lineno}")
    assert writers and all(w.startswith("events.py:") for w in writers), writers
