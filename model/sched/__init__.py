"""Scheduler policies, one module each behind ``SchedPolicy`` (``base.py``), found through ``POLICIES``."""

from __future__ import annotations

from importlib import import_module

from model.sched.base import SchedPolicy

# policy name (as on the command line) -> "module:Class"
POLICIES: dict[str, str] = {
    "o1": "model.sched.o1:O1Policy",
    "cfs-2.6.23": "model.sched.cfs_2623:Cfs2623Policy",
    "cfs-2.6.24": "model.sched.cfs_2624:Cfs2624Policy",
    "bfs": "model.sched.bfs:BfsPolicy",
    "eevdf": "model.sched.eevdf:EevdfPolicy",
}


def make_policy(name: str, ncpus: int, hz: int) -> SchedPolicy:
    """Build the policy called ``name`` for a machine of ``ncpus`` CPUs ticking at ``hz``."""
    module_name, class_name = POLICIES[name].split(":")
    cls = getattr(import_module(module_name), class_name)
    policy: SchedPolicy = cls(ncpus=ncpus, hz=hz)
    return policy
