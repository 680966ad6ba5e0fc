"""The status line: the key settings of the run now, in a few words, from the policy registry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QWidget

from gui.panels.controls import IPERF_LABELS
from model.sched import POLICIES

FONT_PT = 12


def status_text(settings: Mapping[str, Any], seed: int, qdisc: bool = False, yields: bool = True) -> str:
    """Scheduler and its tunables (those about yields only where something yields), iperf build,
    qdisc rule, udelay, CPUs, seed."""
    policy = str(settings.get("sched.policy", ""))
    info = POLICIES.get(policy)
    parts = [f"Scheduler: {info.label if info else policy}"]
    for t in info.tunables if info else ():
        if yields or not t.about_yield:
            parts.append(t.status_words(int(settings.get(f"sched.{t.key}", t.default))))
    if settings.get("iperf.enabled") and settings.get("iperf.mode", "client") == "client":
        rest = str(settings.get("iperf.thread_rest", ""))
        parts.append(f"iperf: {IPERF_LABELS.get(rest, rest).split(':')[0]}")
    if qdisc:
        parts.append(
            f"qdisc exit rule: {settings['qdisc.exit_rule']}, weight_p {settings.get('qdisc.weight_p')}"
        )
    if settings.get("net.udelay_us"):
        parts.append(f"udelay {settings['net.udelay_us']} µs")
    cpus = settings.get("machine.cpus", 1)
    parts.append(f"{cpus} CPU" + ("s" if cpus != 1 else ""))
    parts.append(f"seed {seed}")
    return "   ·   ".join(parts)


class StatusLine(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        f = QFont(self.font())
        f.setPointSize(FONT_PT)
        self.setFont(f)

    def show_settings(self, settings: Mapping[str, Any], seed: int, qdisc: bool, yields: bool) -> None:
        self.setText(status_text(settings, seed, qdisc, yields))
