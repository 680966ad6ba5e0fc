"""What ``schedlab run --json`` reports of a run's machine, qdisc and receiving NIC: each thread's and
each CPU's time, the qdisc's counters and its fairness, the receive path's losses. Shares and rates
are ``model.metrics``'; ``Simulation.summary`` puts the sections together with the run's settings.
"""

from __future__ import annotations

from typing import Any

from model.machine import Machine
from model.metrics import jain_index, rate_per_s, seconds, share
from model.net.qdisc import Qdisc
from model.net.rx import NicRx
from model.net.txpath import TxPath


def machine_summary(m: Machine, duration_ns: int) -> dict[str, Any]:
    """Each thread's CPU time, share, yields and switches; each CPU's busy, user and interrupt shares."""
    threads = {
        t.name: {
            "cpu_s": seconds(t.exec_ns),
            "share": share(t.exec_ns, duration_ns),
            "yields": t.yields,
            "switches": t.switches,
        }
        for t in m.tasks
    }
    cpus = []
    for c in m.cpus:
        hard, soft = m.irq_ns(c)
        cpus.append(
            {
                "busy": share(c.task_ns + hard + soft, duration_ns),
                "user": share(c.task_ns, duration_ns),
                "hardirq": share(hard, duration_ns),
                "softirq": share(soft, duration_ns),
            }
        )
    return {
        "threads": threads,
        "cpus": cpus,
        # Every switch on every CPU, to and from idle included (vmstat's "cs" column).
        "system_context_switches_per_s": rate_per_s(sum(c.switches for c in m.cpus), duration_ns),
    }


def qdisc_summary(tx: TxPath, q: Qdisc) -> dict[str, Any]:
    """The qdisc's counters, the dequeue loop's runs and exits per CPU, and Jain's index of them."""
    st = q.stats()
    counts = tx.c.per_cpu_dequeued
    total = sum(counts)
    exits = sum(tx.c.exit_reasons.values())
    return {
        "qdisc": {
            "enqueued": st.enqueued,
            "dequeued": st.dequeued,
            "dropped": st.dropped,
            "requeues": tx.c.requeues,
            "empty_runs": tx.c.empty_runs,
            "tx_action_trylock_failed": tx.c.tx_action_trylock_failed,
            "ksoftirqd_wakeups": tx.c.ksoftirqd_wakeups,
            "ring_stops": tx.c.ring_stops,
            "ring_wakes": tx.c.ring_wakes,
            "sender_sleeps": tx.c.sender_sleeps,
            "interrupts": tx.c.interrupts,
            "backlog": st.backlog,
            "bands": [{"sent": b.sent, "dropped": b.dropped, "backlog": b.backlog} for b in st.bands],
            "per_cpu_dequeued": list(tx.c.per_cpu_dequeued),
            # Each CPU's share of the dequeues (the window's cpuN figures; compare's rows).
            "per_cpu_dequeue_shares": [round(n / max(total, 1), 4) for n in counts],
            "per_cpu_runs": list(tx.c.per_cpu_runs),
            "runs": tx.c.runs,
            "exit_reasons": dict(tx.c.exit_reasons),
            # Each reason's share of all __qdisc_run exits (jamal counted why the loop stopped).
            "exit_shares": {k: round(v / max(exits, 1), 4) for k, v in tx.c.exit_reasons.items()},
            # Per CPU: why its runs ended, and how many packets it dequeued in each context (its
            # sender's dev_queue_xmit, its NET_TX softirq, its ksoftirqd); a run still going is in
            # per_cpu_dequeued but not yet here.
            "per_cpu_exit_reasons": [dict(d) for d in tx.c.per_cpu_exits],
            "per_cpu_dequeued_by_context": [dict(d) for d in tx.c.per_cpu_context_dequeued],
            "max_min": round(max(counts) / max(min(counts), 1), 2),
        },
        "fairness_jain": jain_index(tx.c.per_cpu_dequeued),
    }


def rx_summary(nic: NicRx) -> dict[str, Any]:
    """The receiving NIC's interrupts and losses, and its TCP sender's losses and window."""
    return {
        "rx": {
            "interrupts": nic.interrupts,
            "rx_missed": nic.rx_missed,
            "time_squeeze": nic.time_squeeze,
            "sender_losses": nic.sender.losses,
            "sender_cwnd": round(nic.sender.cwnd, 1),
        }
    }
