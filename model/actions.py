"""What a task's program can do: the actions a program hands the machine, one at a time.

A program is an iterator of actions: the machine executes each action in simulated time and asks the
program for the next one (``next(program)``) when it completes; ``StopIteration`` ends the task. The
built-in workloads write theirs as ``ProgramState`` classes, small state machines whose state is plain
attributes, so that a run can be copied (``model.fork``: a generator's frame cannot be); a generator
(``def program(task): yield Compute(50_000); ...``) is a program too, for a machine nobody copies.
Instant actions (``Signal``) and blocking ones (``Wait``, ``Nanosleep``) map onto the kernel's
semantics as the docstrings say.

The actions a program makes at every step are plain classes, not dataclasses: compiled with mypyc, a
dataclass still builds through a Python-level ``__init__``, where a plain class builds natively.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from model.copyable import mypyc_attr

if TYPE_CHECKING:
    from model.task import Task


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Compute:
    """Run on the CPU for ``ns`` of the task's own time (preemptible; interrupts stretch it)."""

    __slots__ = ("ns",)

    def __init__(self, ns: int) -> None:
        self.ns = ns

    def __repr__(self) -> str:
        return f"Compute(ns={self.ns!r})"


class SchedYield:
    """``sched_yield()``: the policy's ``yield_task`` then ``schedule()``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "SchedYield()"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Nanosleep:
    """``nanosleep(ns)``: with high-resolution timers the sleep ends at now + ns and ``usleep(0)``
    returns at once; without them it ends at the first tick at or after now + ns, and ``usleep(0)``
    sleeps until the next tick (``Machine._nanosleep``, the machine's ``hrtimers``)."""

    __slots__ = ("ns",)

    def __init__(self, ns: int) -> None:
        self.ns = ns

    def __repr__(self) -> str:
        return f"Nanosleep(ns={self.ns!r})"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Watchable:
    """Shared state that spinning tasks poll (a report ring, a flag). ``changed()`` tells the machine."""

    __slots__ = ("on_change",)

    def __init__(self) -> None:
        self.on_change: Callable[[Watchable], None] | None = None

    def changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Spin:
    """A polling loop: each iteration checks ``until()`` (``iter_ns`` of CPU) and, with
    ``yield_each``, calls ``sched_yield()``; it ends at the first check that finds ``until()`` true.

    The machine collapses the loop: iterations that cannot change the outcome cost no events
    (see ``SchedPolicy.yield_noop_budget_ns``), and the yields are counted in closed form.
    """

    __slots__ = ("iter_ns", "until", "watch", "yield_each", "yield_first")

    def __init__(
        self,
        until: Callable[[], bool],
        watch: Watchable,
        iter_ns: int,
        yield_each: bool = True,
        yield_first: bool = False,  # the loop yields before its first check
    ) -> None:
        self.until = until
        self.watch = watch
        self.iter_ns = iter_ns
        self.yield_each = yield_each
        self.yield_first = yield_first

    def __repr__(self) -> str:
        return (
            f"Spin(until={self.until!r}, watch={self.watch!r}, iter_ns={self.iter_ns!r}, "
            f"yield_each={self.yield_each!r}, yield_first={self.yield_first!r})"
        )


@dataclass(eq=False)
class WaitQueue:
    """A kernel wait queue (a socket's, a device's): tasks blocked on it until woken."""

    name: str
    tasks: list[Task] = field(default_factory=list)


class CondVar(WaitQueue):
    """A POSIX condition variable, a wait queue of its own: ``Signal`` wakes the longest waiter and is
    lost if nobody waits."""


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Wait:
    """``pthread_cond_wait``: block until signalled."""

    __slots__ = ("cond",)

    def __init__(self, cond: CondVar) -> None:
        self.cond = cond

    def __repr__(self) -> str:
        return f"Wait(cond={self.cond!r})"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Signal:
    """``pthread_cond_signal``: wake the longest waiter, if any (instant)."""

    __slots__ = ("cond",)

    def __init__(self, cond: CondVar) -> None:
        self.cond = cond

    def __repr__(self) -> str:
        return f"Signal(cond={self.cond!r})"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class Block:
    """Block on ``waitq`` until something calls ``Machine.wake_all(waitq)``."""

    __slots__ = ("waitq",)

    def __init__(self, waitq: WaitQueue) -> None:
        self.waitq = waitq

    def __repr__(self) -> str:
        return f"Block(waitq={self.waitq!r})"


@dataclass(slots=True)
class Driven:
    """Hand the task's loop to a driver that runs it in closed form (the transmit path's send loop).

    The machine calls ``attach(cpu)`` whenever the task gets a CPU and ``detach(cpu)`` whenever it
    loses it (preemption, or sleeping through ``Machine.block_driven``). A driver whose loop has
    sections the kernel runs with preemption off (``dev_queue_xmit`` with bottom halves disabled)
    passes ``preemptible``: while it returns False the machine leaves ``need_resched`` set, calls
    ``resched(cpu)`` to tell the driver, and the driver calls ``Machine.preempt_point`` once it is
    back at a point where the kernel reschedules (the return from a system call).
    """

    attach: Callable[[int], None]
    detach: Callable[[int], None]
    preemptible: Callable[[int], bool] | None = None
    resched: Callable[[int], None] | None = None


Action = Compute | SchedYield | Nanosleep | Spin | Wait | Signal | Block | Driven
Program = Iterator[Action]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class ProgramState:
    """A program as a state machine: ``__next__`` runs the task's code up to its next action and returns
    it, keeping where it stopped in plain attributes (a phase), as a generator keeps it in its frame.
    Each makes its actions once, when it can, and returns them again: the machine never changes an
    action, and a loop that runs ten thousand times a simulated second then allocates nothing."""

    def __iter__(self) -> ProgramState:
        return self

    def __next__(self) -> Action:
        raise NotImplementedError
