"""The settings a class plays with, one click away: story, scheduler, yield mode, iperf build, qdisc, CPUs.

Each control edits one dotted scenario key. A key in ``LIVE_KEYS`` is sent as ``live_setting`` (applied
mid-run, like a sysctl); any other key as ``restart_setting`` (a new run with the same seed). A control
that does not apply to the current scenario is disabled, and its tooltip says why. ``set_scenario``
copies a scenario's values into the widgets without emitting anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from model.scenario import Scenario, ScenarioError, builtin_names, load_scenario
from model.sched import POLICIES
from model.simulation import LIVE_KEYS

FONT_PT = 13

POLICY_LABELS = {
    "o1": "O(1): Linux 2.6.22",
    "cfs-2.6.23": "CFS: Linux 2.6.23",
    "cfs-2.6.24": "CFS: Linux 2.6.24",
    "bfs": "BFS: 2009",
    "eevdf": "EEVDF: Linux 6.6+",
}
IPERF_LABELS = {
    "usleep0": "usleep(0): stock iperf 2.0.2",
    "sched_yield": "sched_yield(): the patched build",
    "fixed": "fixed: waits on a condition variable",
}
EXIT_RULE_LABELS = {
    "time": "time: need_resched or jiffy (3.0)",
    "quota+jiffy": "quota+jiffy: jamal's patch as posted",
    "quota": "quota: weight_p packets (3.1)",
}
MISSING_REASON = {
    "qdisc.exit_rule": "this scenario sends no packets through a qdisc",
    "qdisc.weight_p": "this scenario sends no packets through a qdisc",
    "net.udelay_us": "this scenario has no udelay() in its interrupt handler",
}
COMPAT_POLICIES = ("cfs-2.6.23", "cfs-2.6.24")


@dataclass
class _Control:
    key: str
    box: QWidget  # what gets enabled/disabled
    show: Callable[[Any], None]  # put a value into the widgets
    tip: str


def _scale_font(widget: QWidget, pt: int = FONT_PT, bold: bool = False) -> None:
    f = QFont(widget.font())
    f.setPointSize(pt)
    f.setBold(bold)
    widget.setFont(f)


def builtin_titles() -> dict[str, str]:
    """Every built-in scenario's name and title (a broken file is listed by its name)."""
    out: dict[str, str] = {}
    for name in builtin_names():
        try:
            out[name] = load_scenario(name).title or name
        except ScenarioError:
            out[name] = name
    return out


def has_qdisc(scenario: Scenario) -> bool:
    """The transmit path (and its prio qdisc) exists when some task is a packet sender."""
    return any(t.kind == "sender" for t in scenario.tasks)


def why_disabled(key: str, settings: dict[str, Any], qdisc: bool = False) -> str | None:
    """Why the control of ``key`` does not apply to a scenario with these settings (None: it does)."""
    if key not in settings or (key.startswith("qdisc.") and not qdisc):
        return MISSING_REASON.get(key, f"this scenario has no '{key}' setting")
    iperf_mode = settings.get("iperf.mode", "client") if settings.get("iperf.enabled") else None
    if key == "iperf.thread_rest" and iperf_mode != "client":
        return "thread_rest() is in the iperf client; this scenario runs no iperf client"
    if key == "net.udelay_us" and iperf_mode != "server":
        return "udelay() is in the receive interrupt handler; this scenario receives no traffic"
    policy = settings.get("sched.policy")
    if key == "sched.compat_yield" and policy not in COMPAT_POLICIES:
        return f"sched_compat_yield is a CFS sysctl (2.6.23 to 2.6.38); {policy} has no such switch"
    return None


class ControlsPanel(QWidget):
    live_setting = Signal(str, object)
    restart_setting = Signal(str, object)
    story_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        _scale_font(self)
        self._controls: dict[str, _Control] = {}
        self.radios: dict[str, dict[str, QRadioButton]] = {}
        self._titles = builtin_titles()
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        column.addWidget(self._story_box())
        column.addWidget(self._sched_box())
        column.addWidget(self._iperf_box())
        column.addWidget(self._net_box())
        column.addStretch(1)

    # ---- building ---------------------------------------------------------------------------

    def _group(self, title: str) -> tuple[QGroupBox, QVBoxLayout]:
        box = QGroupBox(title)
        _scale_font(box, FONT_PT + 1, bold=True)
        layout = QVBoxLayout(box)
        layout.setSpacing(2)
        return box, layout

    def _story_box(self) -> QWidget:
        box, layout = self._group("Story")
        self.story_combo = QComboBox()
        _scale_font(self.story_combo)
        self.story_combo.setMinimumContentsLength(18)
        self.story_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        for name, title in self._titles.items():
            self.story_combo.addItem(title, name)
            self.story_combo.setItemData(self.story_combo.count() - 1, title, Qt.ItemDataRole.ToolTipRole)
        self.story_combo.activated.connect(self._on_story)
        layout.addWidget(self.story_combo)
        return box

    def _radio_control(self, layout: QVBoxLayout, key: str, labels: dict[str, str], tip: str) -> QWidget:
        holder = QWidget()
        inner = QVBoxLayout(holder)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.setSpacing(0)
        group = QButtonGroup(holder)
        radios: dict[str, QRadioButton] = {}
        for value, label in labels.items():
            r = QRadioButton(label)
            _scale_font(r)
            r.clicked.connect(lambda _=False, v=value: self._changed(key, v))
            group.addButton(r)
            inner.addWidget(r)
            radios[value] = r
        self.radios[key] = radios

        def show(value: Any) -> None:
            for v, r in radios.items():
                r.setChecked(v == value)

        layout.addWidget(holder)
        self._controls[key] = _Control(key, holder, show, tip)
        return holder

    def _spin_control(self, form: QFormLayout, key: str, label: str, lo: int, hi: int, tip: str) -> QSpinBox:
        spin = QSpinBox()
        _scale_font(spin)
        spin.setRange(lo, hi)
        spin.setKeyboardTracking(False)  # typing "12" is one change, not two
        spin.valueChanged.connect(lambda v: self._changed(key, int(v)))
        form.addRow(label, spin)
        self._controls[key] = _Control(key, spin, lambda v: spin.setValue(int(v)), tip)
        return spin

    def _sched_box(self) -> QWidget:
        box, layout = self._group("CPU scheduler")
        labels = {p: POLICY_LABELS.get(p, p) for p in POLICIES}
        self._radio_control(layout, "sched.policy", labels, "the kernel's CPU scheduler")
        self.compat_check = QCheckBox("sched_compat_yield = 1\n(a yield goes to the back)")
        _scale_font(self.compat_check)
        self.compat_check.clicked.connect(lambda on: self._changed("sched.compat_yield", int(on)))
        layout.addWidget(self.compat_check)
        self._controls["sched.compat_yield"] = _Control(
            "sched.compat_yield",
            self.compat_check,
            lambda v: self.compat_check.setChecked(bool(v)),
            "echo 1 > /proc/sys/kernel/sched_compat_yield: sched_yield() moves the task behind all others",
        )
        form = QFormLayout()
        layout.addLayout(form)
        self.cpus_spin = self._spin_control(form, "machine.cpus", "CPUs", 1, 16, "number of CPUs")
        return box

    def _iperf_box(self) -> QWidget:
        box, layout = self._group("iperf build: thread_rest()")
        self._radio_control(
            layout, "iperf.thread_rest", IPERF_LABELS, "how iperf's threads wait for each other"
        )
        return box

    def _net_box(self) -> QWidget:
        box, layout = self._group("Network")
        self._radio_control(layout, "qdisc.exit_rule", EXIT_RULE_LABELS, "when a dequeuer gives up the qdisc")
        form = QFormLayout()
        layout.addLayout(form)
        self.weight_spin = self._spin_control(
            form, "qdisc.weight_p", "weight_p (packets)", 1, 4096, "packets per dequeuer turn"
        )
        self.udelay_spin = self._spin_control(
            form, "net.udelay_us", "udelay (µs)", 0, 100_000, "extra busy-wait in the NIC interrupt handler"
        )
        return box

    # ---- input and output -------------------------------------------------------------------

    def _on_story(self, index: int) -> None:
        name = self.story_combo.itemData(index)
        if name:
            self.story_chosen.emit(str(name))

    def _changed(self, key: str, value: Any) -> None:
        if key in LIVE_KEYS:
            self.live_setting.emit(key, value)
        else:
            self.restart_setting.emit(key, value)

    def set_scenario(self, scenario: Scenario, tunables: dict[str, Any] | None = None) -> None:
        """Show ``scenario`` (with the live ``tunables`` on top) without emitting anything."""
        settings: dict[str, Any] = dict(scenario.settings())
        settings.update(tunables or {})
        self._show_story(scenario)
        qdisc = has_qdisc(scenario)
        for key, ctl in self._controls.items():
            reason = why_disabled(key, settings, qdisc)
            for w in [ctl.box, *ctl.box.findChildren(QWidget)]:
                w.blockSignals(True)
            if key in settings:
                ctl.show(settings[key])
            for w in [ctl.box, *ctl.box.findChildren(QWidget)]:
                w.blockSignals(False)
            ctl.box.setEnabled(reason is None)
            mode = "applies at once" if key in LIVE_KEYS else "restarts the run, same seed"
            ctl.box.setToolTip(f"{ctl.tip} ({mode})" if reason is None else f"Not available: {reason}")

    def _show_story(self, scenario: Scenario) -> None:
        combo = self.story_combo
        combo.blockSignals(True)
        index = combo.findData(scenario.name) if scenario.name in self._titles else -1
        if index < 0:  # a scenario opened from a file: one extra entry, replaced by the next file
            last = combo.count() - 1
            if last >= 0 and combo.itemData(last) == "":
                combo.removeItem(last)
            combo.addItem(f"file: {scenario.title or scenario.name}", "")
            index = combo.count() - 1
        combo.setCurrentIndex(index)
        combo.blockSignals(False)

    def is_enabled(self, key: str) -> bool:
        return self._controls[key].box.isEnabled()

    def tooltip(self, key: str) -> str:
        return self._controls[key].box.toolTip()
