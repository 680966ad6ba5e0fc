"""Scheduler policies, one module each behind ``SchedPolicy`` (``base.py``), and their registry.

Each module declares its ``PolicyInfo`` (``registry.py``); ``POLICIES`` collects them, in the order the
window and the bench list them, and ``TUNABLES`` every tunable they declare, once by key.
"""

from __future__ import annotations

from model.sched import bfs, cfs_2623, cfs_2624, eevdf, o1
from model.sched.base import SchedPolicy
from model.sched.registry import PolicyInfo, Tunable


def _collect() -> tuple[dict[str, PolicyInfo], dict[str, Tunable]]:
    policies: dict[str, PolicyInfo] = {}
    tunables: dict[str, Tunable] = {}
    for info in (o1.INFO, cfs_2623.INFO, cfs_2624.INFO, bfs.INFO, eevdf.INFO):
        if info.name in policies:
            raise ValueError(f"two policies are called {info.name!r}")
        policies[info.name] = info
        for t in info.tunables:
            if tunables.setdefault(t.key, t) != t:
                raise ValueError(f"sched.{t.key} is declared twice, differently")
    return policies, tunables


POLICIES, TUNABLES = _collect()


def owners(key: str) -> list[PolicyInfo]:
    """The policies that have the tunable ``key``."""
    return [info for info in POLICIES.values() if info.tunable(key) is not None]


def make_policy(name: str, ncpus: int, hz: int) -> SchedPolicy:
    """Build the policy called ``name`` for a machine of ``ncpus`` CPUs ticking at ``hz``."""
    return POLICIES[name].factory(ncpus, hz)


__all__ = ["POLICIES", "TUNABLES", "PolicyInfo", "SchedPolicy", "Tunable", "make_policy", "owners"]
