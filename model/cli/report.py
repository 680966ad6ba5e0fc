"""The human-readable summary ``schedlab run`` prints without ``--json``."""

from __future__ import annotations

from typing import Any

from model.metrics import story_threads_first


def print_human(s: dict[str, Any]) -> None:
    print(f"{s['scenario']}  seed {s['seed']}  {s['duration_s']:.3f} s simulated in {s['sim']['wall_s']} s")
    if s["settings"].get("iperf.enabled") or "qdisc" in s:  # nothing on a network: no bandwidth to state
        print(f"  bandwidth        {s['bandwidth_mbps']:.1f} Mbit/s")
    print(f"  context switches {s['system_context_switches_per_s']:.0f}/s (system-wide)")
    for name in story_threads_first(s["threads"]):
        t = s["threads"][name]
        print(
            f"  {name:18s} cpu {t['share'] * 100:5.1f} %  yields {t['yields']:>10d}  switches {t['switches']}"
        )
    for i, c in enumerate(s["cpus"]):
        print(
            f"  cpu{i}  busy {c['busy'] * 100:5.1f} %  task {c['user'] * 100:5.1f} %  "
            f"hardirq {c['hardirq'] * 100:5.1f} %  softirq {c['softirq'] * 100:5.1f} %"
        )
    q = s.get("qdisc")
    if q:
        counts = " / ".join(f"{n:,}" for n in q["per_cpu_dequeued"])
        # Each reason's count and share of the exits, as jamal counted them ("~80% ... packet quota").
        reasons = ", ".join(
            f"{k} {v:,} ({100 * q['exit_shares'][k]:.1f} %)" for k, v in q["exit_reasons"].items() if v
        )
        shares = " / ".join(f"{100 * x:.1f}" for x in q["per_cpu_dequeue_shares"])
        print(f"  dequeued per CPU {counts}  ({shares} %, Jain {s['fairness_jain']:.3f})")
        print(f"  dequeuer tenures {q['runs']:,}: {reasons}")
        # The JSON's "enqueued" takes in the tail drops: every packet offered (dequeued + dropped + backlog).
        print(f"  qdisc            offered {q['enqueued']:,}  dequeued {q['dequeued']:,}  ", end="")
        print(f"dropped {q['dropped']:,}  backlog {q['backlog']:,}")
    rx = s.get("rx")
    if rx:
        missed = rx["rx_missed"]
        print(f"  NIC receive      {rx['interrupts']:,} interrupts, {missed:,} frames missed (ring full)")
