"""The qdisc panel's hover tips: for a point of the panel, the words for the part under it (a sender
CPU, a band, the locks, the device, the footer's counters) with the exact counts the drawing rounds or
leaves out, and "" where no part is. Which part is where comes from the panel's ``QdiscLayout``.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF

from gui.draw.qdisc_geometry import Box, QdiscLayout, busylock_line, cpu_role, stopped_rings_text
from model.snapshot import BandView, QdiscView


def _contains(box: Box, pos: QPointF) -> bool:
    return QRectF(*box).contains(pos)


def describe_qdisc_at(q: QdiscView, lay: QdiscLayout, pos: QPointF) -> str:
    """What the part of the panel at ``pos`` (logical pixels) shows, with exact counts."""
    for cpu, box in enumerate(lay.cpus):
        if _contains(box, pos):
            return cpu_tip(q, cpu)
    for band, box in zip(q.bands, lay.bands, strict=False):
        if _contains(box, pos):
            return band_tip(band)
    if _contains(lay.locks, pos):
        return locks_tip(q)
    if _contains(lay.device, pos):
        return device_tip(q)
    if lay.footer and (_contains(lay.counters, pos) or _contains(lay.reasons, pos)):
        return footer_tip(q)
    return ""


CONTEXT_WORDS = {
    "sender": "in its sender",
    "softirq": "in its NET_TX softirq",
    "ksoftirqd": "in its ksoftirqd",
}


def cpu_tip(q: QdiscView, cpu: int) -> str:
    """A sender CPU: its role now, what it dequeued and enqueued, where it dequeued (its sender's
    dev_queue_xmit or its NET_TX softirq) and why its dequeuer runs ended."""
    _role, headline, detail = cpu_role(q, cpu)
    lines = [f"cpu{cpu}: {headline}, {detail}"]
    where = ""
    if cpu < len(q.per_cpu_dequeued_by_context):
        parts = [f"{n} {CONTEXT_WORDS.get(k, k)}" for k, n in q.per_cpu_dequeued_by_context[cpu] if n]
        where = f" ({', '.join(parts)})" if parts else ""
    lines.append(f"{q.per_cpu_dequeued[cpu]} packets dequeued{where}, {q.per_cpu_enqueued[cpu]} enqueued")
    if cpu < len(q.per_cpu_exit_reasons):
        ends = [f"{k} {n}" for k, n in q.per_cpu_exit_reasons[cpu] if n]
        if ends:
            lines.append(f"its dequeuer runs ended: {', '.join(ends)}")
    return "\n".join(lines)


def band_tip(band: BandView) -> str:
    head = ", ".join(f"cpu{c}: {n}" for c, n in band.head_runs[:6] if c >= 0)
    return (
        f"band {band.band}: {band.backlog} of {band.limit} packets queued; {band.sent} sent, "
        f"{band.dropped} dropped" + (f"\nfrom the head: {head}" if head else "")
    )


def locks_tip(q: QdiscView) -> str:
    holder = f"cpu{q.dequeuer_cpu}" if q.dequeuer_cpu >= 0 else "nobody"
    busy = f"cpu{q.busylock_owner}" if q.busylock_owner >= 0 else "nobody"
    line = ", ".join(f"cpu{c}" for c in busylock_line(q)) or "nobody"
    return (
        f"RUNNING bit (the dequeuer role): {holder}\nroot lock: {holder}\n"
        f"busylock: held by {busy}; waiting: {line}"
    )


def device_tip(q: QdiscView) -> str:
    ring = f"TX ring {q.tx_ring_used} of {q.tx_ring_size} slots used" if q.tx_ring_size else "no TX ring"
    stopped = f"; stopped: {stopped_rings_text(q)}" if q.device_stopped else ""
    rings = "\n".join(
        f"ring {i} (cpu{i}'s packets): {used} used"
        + (", stopped" if i < len(q.ring_stopped) and q.ring_stopped[i] else "")
        for i, used in enumerate(q.ring_used)
    )
    name = "dummy device" if q.device == "dummy" else "10G NIC"
    return f"{name}: {ring}{stopped}" + (f"\n{rings}" if len(q.ring_used) > 1 else "")


def footer_tip(q: QdiscView) -> str:
    reasons = ", ".join(f"{k} {v}" for k, v in q.exit_reasons)
    return (
        f"{q.enqueued} offered: {q.dequeued} dequeued, {q.dropped} dropped, {q.backlog} queued; "
        f"{q.requeues} requeues; "
        f"{q.runs} dequeuer runs ended by: {reasons}\n"
        f"ksoftirqd woken {q.ksoftirqd_wakeups} times (softirqs left after __do_softirq's restarts)"
    )
