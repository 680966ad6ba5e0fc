"""Geometry and wording of the qdisc panel, as pure functions (no Qt): testable without a display.

Where each part of the panel goes for a given size, where the RUNNING token rests and how it eases
between frames, how the runs of a band's FIFO map to pixels, and the plain words shown for each CPU.
"""

from __future__ import annotations

from dataclasses import dataclass

from model.snapshot import QdiscView

Box = tuple[float, float, float, float]  # x, y, width, height in pixels
TOKEN_EASE = 0.58  # fraction of the remaining distance the token travels per ~30 Hz frame (0.35 per 1/60 s)
MIN_BLOCK_PX = 7.0  # a packet block is never drawn narrower than this
TOKEN_R = 17.0  # the RUNNING token's radius, where the CPU boxes are tall enough (QdiscLayout.token_r)
TOKEN_INSET = 4.0  # its centre rests this far inside the dequeuer's box, on the box's right edge


def token_clear(token_r: float) -> float:
    """What a token of radius ``token_r`` reaches past its box's right edge (radius and outline, less
    the inset), and a margin: the least gap to the next column on the right, so that the coin never
    touches the next column's boxes or the locks' and bands' words."""
    return token_r + 3.0 - TOKEN_INSET + 4.0


def fmt_count(n: int) -> str:
    """12 → "12", 43_105 → "43.1 k", 21_853_354 → "21.9 M": counters that fit a bar label."""
    if abs(n) < 10_000:
        return str(n)
    if abs(n) < 10_000_000:
        return f"{n / 1e3:.1f} k" if abs(n) < 1_000_000 else f"{n / 1e6:.2f} M"
    return f"{n / 1e6:.1f} M"


def fmt_count_tight(n: int) -> str:
    """``fmt_count`` without the space before its unit ("43.1k"), for a narrow place."""
    return fmt_count(n).replace(" ", "")


def exit_rule_words(rule: str, weight_p: int) -> tuple[str, ...]:
    """The exit rule in force, in wordings from the longest to the shortest (a narrow panel's header)."""
    if rule == "time":
        return "3.0-rc4: until need_resched or the next jiffy", "3.0-rc4: need_resched or a jiffy"
    if rule == "quota+jiffy":
        return (
            f"jamal's patch: {weight_p} packets, need_resched or the next jiffy",
            f"jamal's patch: {weight_p} packets or a jiffy",
        )
    return f"3.1+: {weight_p}-packet quota (weight_p)", f"3.1+: {weight_p}-packet quota"


# A role's words in a narrow CPU box, where the long ones would be cut ("holds busy…"): its headline
# and its detail line.
ROLE_SHORT = {
    "DEQUEUER": "dequeuer",  # lower case is narrower: "DEQUEU…" beside the crown in a projector's box
    "holds busylock": "busylock",
    "enqueuing": "enqueues",
    "transmits everyone's packets": "sends for all",
    "holds the root lock": "has root lock",
    "waits for the root lock": "waits for root",
    "waits in the busylock line": "in busylock line",
    "runs its packet sender": "runs its sender",
}


def cpu_role(q: QdiscView, cpu: int) -> tuple[str, str, str]:
    """(role, headline, detail) of one sender CPU, in the words shown in its box."""
    if q.dequeuer_cpu == cpu:
        return "dequeuer", "DEQUEUER", "transmits everyone's packets"
    if q.root_lock_owner == cpu:
        return "root", "enqueuing", "holds the root lock"
    if q.busylock_owner == cpu:
        return "busylock", "holds busylock", "waits for the root lock"
    line = busylock_line(q)
    if cpu in line:
        return "spinning", f"spinning #{line.index(cpu) + 1}", "waits in the busylock line"
    return "sending", "sending", "runs its packet sender"


def ring_fill(q: QdiscView) -> list[tuple[float, bool]]:
    """Each TX ring's (fraction of descriptors in use, stopped): one per ring of 3.0 ixgbe's per-CPU
    rings, or the device as one ring when the view has no per-ring detail."""
    if q.ring_used:
        per_ring = q.tx_ring_size / len(q.ring_used)
        stopped = q.ring_stopped or (False,) * len(q.ring_used)
        return [(min(used / per_ring, 1.0), s) for used, s in zip(q.ring_used, stopped, strict=True)]
    return [(min(q.tx_ring_used / q.tx_ring_size, 1.0) if q.tx_ring_size else 0.0, q.device_stopped)]


def stopped_rings_text(q: QdiscView) -> str:
    """Which TX rings are stopped, in a few words ("ring 1 full", "rings 1, 2 full"); "" for none."""
    if not q.ring_stopped:
        return "ring full" if q.device_stopped else ""
    full = [str(i) for i, s in enumerate(q.ring_stopped) if s]
    if not full:
        return ""
    return f"ring{'s' if len(full) > 1 else ''} {', '.join(full)} full"


def busylock_line(q: QdiscView) -> list[int]:
    """The CPUs waiting for busylock, in arrival order, without the one that holds it."""
    return [cpu for cpu in q.busylock_waiters if cpu != q.busylock_owner]


def fifo_blocks(head_runs: tuple[tuple[int, int], ...], backlog: int, ppb: int) -> list[tuple[int, int]]:
    """The FIFO from its head as runs ``(cpu, packets)`` at the drawn resolution: in blocks of ``ppb``
    packets, each block takes the CPU that sent most of it, and equal neighbours merge. Packets past
    the listed runs (the view lists only the first runs) come last, as CPU -1: "not itemised"."""
    out: list[list[int]] = []

    def push(cpu: int, n: int) -> None:
        if out and out[-1][0] == cpu:
            out[-1][1] += n
        else:
            out.append([cpu, n])

    block: dict[int, int] = {}
    listed = 0
    for cpu, count in head_runs:
        count = min(count, backlog - listed)
        listed += count
        if block:  # top up the partial block first
            take = min(count, ppb - sum(block.values()))
            block[cpu] = block.get(cpu, 0) + take
            count -= take
            if sum(block.values()) == ppb:
                push(max(block, key=block.__getitem__), ppb)
                block = {}
        if count >= ppb:
            push(cpu, count // ppb * ppb)
        if count % ppb:
            block = {cpu: count % ppb}
    if block:
        push(max(block, key=block.__getitem__), sum(block.values()))
    if backlog > listed:
        push(-1, backlog - listed)
    return [(cpu, n) for cpu, n in out]


def packets_per_block(limit: int, bar_px: float) -> int:
    """How many packets one drawn block stands for, so that a block is at least ``MIN_BLOCK_PX`` wide."""
    per_px = max(limit, 1) / max(bar_px, 1.0)
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000):
        if step / per_px >= MIN_BLOCK_PX:
            return step
    return 10_000


def fifo_runs(
    head_runs: tuple[tuple[int, int], ...], limit: int, x_head: float, width: float
) -> list[tuple[int, int, float, float]]:
    """Pixel spans ``(cpu, count, x_left, x_right)`` of the runs, head at ``x_head`` growing leftwards."""
    spans = []
    right = x_head
    scale = width / max(limit, 1)
    for cpu, count in head_runs:
        left = max(right - count * scale, x_head - width)
        spans.append((cpu, count, left, right))
        right = left
        if right <= x_head - width:
            break
    return spans


@dataclass(frozen=True, slots=True)
class QdiscLayout:
    """Rectangles ``(x, y, w, h)`` of every part of the panel, for a widget of the given size."""

    header: Box
    cpus: tuple[Box, ...]
    locks: Box
    bands: tuple[Box, ...]
    device: Box
    counters: Box
    reasons: Box
    token_park: tuple[float, float]
    footer: bool  # room for the tc counters and exit reasons below the picture
    locks_row: bool = False  # narrow: the RUNNING bit and the locks side by side in a strip on top
    token_r: float = TOKEN_R  # the RUNNING token's radius: smaller on short CPU boxes


NARROW_BELOW_PX = 660  # a narrower panel puts the locks in a strip above the CPUs and bands
LOCKS_ROW_H = 52.0
MIN_CPU_BOX_H = 24.0


def qdisc_layout(width: float, height: float, ncpus: int, nbands: int) -> QdiscLayout:
    pad, header_h = 8.0, 26.0
    narrow = width < NARROW_BELOW_PX
    compact = width < 860
    footer = height >= 400
    footer_h = max(22.0 * (nbands + 2), height * 0.28) if footer else 0.0
    top, bottom = header_h + pad, height - footer_h - pad
    if narrow:
        locks: Box = (pad, top, width - 2 * pad, LOCKS_ROW_H)
        top += LOCKS_ROW_H + pad
    body_h = max(bottom - top, 40.0)
    cpu_w = width * (0.36 if narrow else 0.28 if compact else 0.27)
    gap = min(10.0, body_h / max(ncpus, 1) * 0.15)
    # Many CPUs in a short panel: their boxes in two columns, so that each keeps a line of text.
    cols = 2 if ncpus > 4 and (body_h - gap * (ncpus - 1)) / ncpus < MIN_CPU_BOX_H else 1
    per_col = -(-ncpus // cols)
    cpu_h = (body_h - gap * (per_col - 1)) / max(per_col, 1)
    # The token no taller than its box and the gaps around it, so that it covers no other CPU's box;
    # the columns far enough apart that it clears the next one.
    token_r = min(TOKEN_R, max(cpu_h / 2 + gap / 2 + 2, 8.0))
    clear = token_clear(token_r)
    col_gap = max(gap, clear)
    box_w = (cpu_w - col_gap * (cols - 1)) / cols
    cpus = tuple(
        (pad + (i // per_col) * (box_w + col_gap), top + (i % per_col) * (cpu_h + gap), box_w, cpu_h)
        for i in range(ncpus)
    )
    if narrow:
        bands_x = pad + cpu_w + max(width * 0.03, clear)
        device_w = max(58.0, width * 0.13)
        device: Box = (width - pad - device_w, top, device_w, body_h)
        bands_w = device[0] - width * 0.05 - bands_x
        park = (locks[0] + locks[2] / 3 - 22.0, locks[1] + LOCKS_ROW_H / 2 + 6)
    else:
        locks = (
            pad + cpu_w + max(width * 0.025, clear),
            top,
            width * (0.13 if compact else 0.12),
            body_h,
        )
        bands_x = locks[0] + locks[2] + width * 0.025
        bands_w = width * (0.745 if compact else 0.73) - bands_x
        device = (
            width * (0.875 if compact else 0.85),
            top,
            width * (0.125 if compact else 0.15) - pad,
            body_h,
        )
        park = (locks[0] + locks[2] - 22.0, locks[1] + 38.0)  # inside the RUNNING slot, right of "free"
    row_h = body_h / max(nbands, 1)
    bands = tuple((bands_x, top + i * row_h, bands_w, row_h) for i in range(nbands))
    counters = (pad, height - footer_h, width * 0.58, footer_h - pad)
    reasons = (width * 0.62, height - footer_h, width * 0.38 - pad, footer_h - pad)
    return QdiscLayout(
        (pad, 0.0, width - 2 * pad, header_h),
        cpus,
        locks,
        bands,
        device,
        counters,
        reasons,
        park,
        footer,
        narrow,
        token_r,
    )


def token_target(layout: QdiscLayout, dequeuer_cpu: int) -> tuple[float, float]:
    """Where the RUNNING token rests: on the dequeuer's box (right edge), or parked when nobody holds it."""
    if 0 <= dequeuer_cpu < len(layout.cpus):
        x, y, w, h = layout.cpus[dequeuer_cpu]
        return (x + w - TOKEN_INSET, y + h / 2)
    return layout.token_park


def ease_toward(current: tuple[float, float], target: tuple[float, float], k: float) -> tuple[float, float]:
    """One animation frame: move ``k`` of the way; snap when under half a pixel away."""
    dx, dy = target[0] - current[0], target[1] - current[1]
    if dx * dx + dy * dy < 0.25:
        return target
    return (current[0] + dx * k, current[1] + dy * k)
