"""The settings a class plays with, one click away: story, scheduler and its tunables, iperf build, network.

Each control edits one dotted scenario key and is built from the model's own declarations: the policy
radios and one control per scheduler tunable from the policy registry (``model.sched``), the ranges and
choices of the other keys from the scenario's key specs (``model.scenario.key_specs``). A key in
``LIVE_KEYS`` is sent as ``live_setting`` (applied mid-run, like a sysctl); any other key as
``restart_setting`` (a new run with the same seed). Settings flow down: ``set_scenario`` says which
controls apply to a scenario (a control that does not is disabled, its tooltip says why), and
``show_settings`` puts the effective settings of a snapshot into the widgets that show something else,
without emitting anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QPaintEvent, QResizeEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLayout,
    QRadioButton,
    QSpinBox,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QVBoxLayout,
    QWidget,
)

from gui.draw import theme
from gui.draw.handler_guard import guarded
from gui.panels.base import rescale_fonts, styled_font
from gui.panels.settings_group import SettingsGroup
from model.cpu_count import cpu_note
from model.scenario import KeySpec, Scenario, ScenarioError, builtin_names, key_specs, load_scenario
from model.sched import POLICIES, TUNABLES, Tunable, owners
from model.simulation import LIVE_KEYS

FONT_PT = 13

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


class StoryPicker(QComboBox):
    """The story picker: a box as narrow as the settings column, the title in it elided, and a list as
    wide as its longest title, so that every story reads whole where it is picked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)

    def field_width(self) -> int:
        """The width the box has for its title, beside the arrow."""
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        cc, field = QStyle.ComplexControl.CC_ComboBox, QStyle.SubControl.SC_ComboBoxEditField
        return self.style().subControlRect(cc, opt, field, self).width()

    def shown_text(self) -> str:
        """The title picked, as the box draws it: elided to its field."""
        return self.fontMetrics().elidedText(
            self.currentText(), Qt.TextElideMode.ElideRight, self.field_width()
        )

    @guarded
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QStylePainter(self)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        p.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt)
        opt.currentText = self.shown_text()
        p.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt)
        p.end()

    def showPopup(self) -> None:
        fm = self.view().fontMetrics()
        widest = max((fm.horizontalAdvance(self.itemText(i)) for i in range(self.count())), default=0)
        screen = self.screen()
        room = screen.availableGeometry().width() - 40 if screen is not None else widest + 48
        self.view().setMinimumWidth(max(min(widest + 48, room), self.width()))
        super().showPopup()


@dataclass
class _Control:
    key: str
    box: QWidget  # what gets enabled/disabled
    shows: Callable[[], Any]  # the value the widgets show now
    show: Callable[[Any], None]  # put a value into the widgets
    tip: str


LINE_PX = 205  # a control's text is broken into lines this wide (standard text size)
WORDS = "schedlab_words"  # a control's text before it was broken into lines


def _scale_font(widget: QWidget, pt: int = FONT_PT, bold: bool = False) -> None:
    styled_font(widget, pt, bold)


def wrapped(text: str, widget: QWidget, width: int = LINE_PX) -> str:
    """``text`` with line breaks between words so that no line is wider than ``width`` px in the
    widget's font (radio buttons and check boxes do not wrap by themselves). A setting and its value
    stay on one line: "sched_compat_yield = 1" is not broken at its spaces."""
    fm = widget.fontMetrics()
    lines: list[str] = []
    for paragraph in text.replace(" = ", "\u00a0=\u00a0").split("\n"):
        line = ""
        for word in paragraph.split(" "):
            trial = f"{line} {word}" if line else word
            if line and fm.horizontalAdvance(trial) > width:
                lines.append(line)
                line = word
            else:
                line = trial
        lines.append(line)
    return "\n".join(lines).replace("\u00a0", " ")  # held together while broken into lines


def builtin_titles() -> dict[str, str]:
    """Every built-in scenario's name and title (a broken file is listed by its name)."""
    out: dict[str, str] = {}
    for name in builtin_names():
        try:
            out[name] = load_scenario(name).title or name
        except ScenarioError:
            out[name] = name
    return out


def why_disabled(key: str, settings: Mapping[str, Any], qdisc: bool = False) -> str | None:
    """Why the control of ``key`` does not apply to a scenario with these settings (None: it does)."""
    if key not in settings or (key.startswith("qdisc.") and not qdisc):
        return MISSING_REASON.get(key, f"this scenario has no '{key}' setting")
    iperf_mode = settings.get("iperf.mode", "client") if settings.get("iperf.enabled") else None
    if key == "iperf.thread_rest" and iperf_mode != "client":
        return "thread_rest() is in the iperf client; this scenario runs no iperf client"
    if key == "net.udelay_us" and iperf_mode != "server":
        return "udelay() is in the receive interrupt handler; this scenario receives no traffic"
    section, _, name = key.partition(".")
    if section == "sched" and name in TUNABLES:
        policy = POLICIES[str(settings.get("sched.policy"))]
        if policy.tunable(name) is None:
            whose = ", ".join(info.label for info in owners(name))
            return (
                f"{TUNABLES[name].title} is a setting of {whose}; {policy.label} has none "
                "(the value is kept, and does nothing here)"
            )
    return None


class ControlsPanel(QWidget):
    live_setting = Signal(str, object)
    restart_setting = Signal(str, object)
    story_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        _scale_font(self)
        self._controls: dict[str, _Control] = {}
        self.radios: dict[str, dict[Any, QRadioButton]] = {}
        self.checks: dict[str, QCheckBox] = {}
        self.spins: dict[str, QSpinBox] = {}
        self._specs = key_specs()
        self._titles = builtin_titles()
        self._scenario: Scenario | None = None
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 4)
        # The panel's least width is its words broken at the standard line width (minimumSizeHint), not
        # whatever width they are broken at now: they follow the column (resizeEvent).
        column.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        column.addWidget(self._story_box())
        column.addWidget(self._sched_box())
        column.addWidget(self._iperf_box())
        column.addWidget(self._net_box())
        column.addStretch(1)
        self._line_px = self._base_line_px()
        self._least_w = super().minimumSizeHint().width()

    # ---- building ---------------------------------------------------------------------------

    def _group(self, title: str) -> tuple[SettingsGroup, QVBoxLayout]:
        box = SettingsGroup(title)
        _scale_font(box, FONT_PT + 1, bold=True)
        layout = QVBoxLayout(box)
        layout.setSpacing(2)
        return box, layout

    def _story_box(self) -> QWidget:
        box, layout = self._group("Story")
        self.story_combo = StoryPicker()
        _scale_font(self.story_combo)
        self.story_combo.setMinimumContentsLength(18)
        self.story_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        for name, title in self._titles.items():
            self.story_combo.addItem(title, name)
            self.story_combo.setItemData(self.story_combo.count() - 1, title, Qt.ItemDataRole.ToolTipRole)
        self.story_combo.activated.connect(self._on_story)
        layout.addWidget(self.story_combo)
        return box

    def _radio_control(self, layout: QVBoxLayout, key: str, labels: Mapping[Any, str], tip: str) -> None:
        holder = QWidget()
        inner = QVBoxLayout(holder)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.setSpacing(0)
        group = QButtonGroup(holder)
        radios: dict[Any, QRadioButton] = {}
        for value, label in labels.items():
            r = QRadioButton()
            _scale_font(r)
            r.setProperty(WORDS, label)
            r.setText(wrapped(label, r))
            r.clicked.connect(lambda _=False, v=value: self._changed(key, v))
            group.addButton(r)
            inner.addWidget(r)
            radios[value] = r
        self.radios[key] = radios

        def shows() -> Any:
            return next((v for v, r in radios.items() if r.isChecked()), None)

        def show(value: Any) -> None:
            for v, r in radios.items():
                r.setChecked(v == value)

        layout.addWidget(holder)
        self._controls[key] = _Control(key, holder, shows, show, tip)

    def _check_control(self, layout: QVBoxLayout, key: str, label: str, tip: str) -> None:
        check = QCheckBox()
        _scale_font(check)
        check.setProperty(WORDS, label)
        check.setText(wrapped(label, check))
        check.clicked.connect(lambda on: self._changed(key, int(on)))
        layout.addWidget(check)
        self.checks[key] = check
        self._controls[key] = _Control(
            key, check, lambda: int(check.isChecked()), lambda v: check.setChecked(bool(v)), tip
        )

    def _spin_control(self, form: QFormLayout, key: str, label: str, tip: str) -> None:
        spec: KeySpec = self._specs[key]
        spin = QSpinBox()
        _scale_font(spin)
        assert spec.lo is not None and spec.hi is not None, f"{key} has no range"
        spin.setRange(int(spec.lo), int(spec.hi))  # the model's own range
        spin.setKeyboardTracking(False)  # typing "12" is one change, not two
        spin.valueChanged.connect(lambda v: self._changed(key, int(v)))
        row_label = QLabel(label)
        _scale_font(row_label)
        row_label.setWordWrap(True)
        form.addRow(row_label, spin)
        self.spins[key] = spin
        self._controls[key] = _Control(key, spin, spin.value, lambda v: spin.setValue(int(v)), tip)

    def _tunable_control(self, layout: QVBoxLayout, t: Tunable) -> None:
        """A scheduler tunable as its registry entry declares it."""
        key = f"sched.{t.key}"
        if t.control == "check":
            self._check_control(layout, key, dict(t.choices)[1], t.help)
        elif t.control == "radios":
            title = QLabel(t.title)
            _scale_font(title)
            layout.addWidget(title)
            self._radio_control(layout, key, dict(t.choices), t.help)
        else:
            form = QFormLayout()
            layout.addLayout(form)
            self._spin_control(form, key, t.title, t.help)

    def _sched_box(self) -> QWidget:
        box, layout = self._group("CPU scheduler")
        labels = {name: info.label for name, info in POLICIES.items()}
        self._radio_control(layout, "sched.policy", labels, "the kernel's CPU scheduler")
        for tunable in TUNABLES.values():
            self._tunable_control(layout, tunable)
        form = QFormLayout()
        layout.addLayout(form)
        self._spin_control(form, "machine.cpus", "CPUs", "number of CPUs")
        self.cpus_spin = self.spins["machine.cpus"]
        return box

    def _iperf_box(self) -> QWidget:
        box, layout = self._group("iperf build: thread_rest()")
        choices = self._specs["iperf.thread_rest"].choices or ()
        labels = {value: IPERF_LABELS.get(value, value) for value in choices}
        self._radio_control(layout, "iperf.thread_rest", labels, "how iperf's threads wait for each other")
        return box

    def _net_box(self) -> QWidget:
        box, layout = self._group("Network")
        choices = self._specs["qdisc.exit_rule"].choices or ()
        labels = {value: EXIT_RULE_LABELS.get(value, value) for value in choices}
        self._radio_control(layout, "qdisc.exit_rule", labels, "when a dequeuer gives up the qdisc")
        form = QFormLayout()
        layout.addLayout(form)
        self._spin_control(form, "qdisc.weight_p", "weight_p (packets)", "packets per dequeuer turn")
        self._spin_control(
            form, "net.udelay_us", "udelay (µs)", "extra busy-wait in the NIC interrupt handler"
        )
        self.weight_spin, self.udelay_spin = self.spins["qdisc.weight_p"], self.spins["net.udelay_us"]
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

    def set_scenario(self, scenario: Scenario) -> None:
        """A new run of ``scenario``: show its story and which controls apply to it (its settings follow
        with its first snapshot, ``show_settings``)."""
        self._scenario = scenario
        self._show_story(scenario)
        settings = scenario.settings()
        qdisc = scenario.has_qdisc
        for key, ctl in self._controls.items():
            reason = why_disabled(key, settings, qdisc)
            ctl.box.setEnabled(reason is None)
            mode = "applies at once" if key in LIVE_KEYS else "restarts the run, same seed"
            note = cpu_note(scenario) if key == "machine.cpus" else ""
            tip = f"{ctl.tip} ({mode})" + (f"; with it: {note}" if note else "")
            ctl.box.setToolTip(tip if reason is None else f"Not available: {reason}")
        self.show_settings(settings)

    def show_settings(self, settings: Mapping[str, Any]) -> None:
        """Show the effective settings: a widget that shows something else is set, without emitting."""
        for key, ctl in self._controls.items():
            if key not in settings or ctl.shows() == settings[key]:
                continue
            widgets = [ctl.box, *ctl.box.findChildren(QWidget)]
            for w in widgets:
                w.blockSignals(True)
            ctl.show(settings[key])
            for w in widgets:
                w.blockSignals(False)

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

    def apply_theme(self) -> None:
        """Break the controls' words into lines again for the text size now."""
        rescale_fonts(self)
        self._wrap_at(self._base_line_px())
        self._least_w = super().minimumSizeHint().width()
        self._follow_width(self.width())

    @staticmethod
    def _base_line_px() -> int:
        return round(LINE_PX * theme.current().font_factor)

    def _wrap_at(self, line_px: int) -> None:
        self._line_px = line_px
        for w in self.findChildren(QWidget):
            words = w.property(WORDS)
            if isinstance(words, str) and isinstance(w, QRadioButton | QCheckBox):
                w.setText(wrapped(words, w, line_px))

    def _follow_width(self, width: int) -> None:
        """Break the words to the width the panel has (its column may be wider than the least)."""
        base = self._base_line_px()
        line = max(base, width - (self._least_w - base))
        if abs(line - self._line_px) >= 4:
            self._wrap_at(line)

    def minimumSizeHint(self) -> QSize:  # Qt override
        return QSize(self._least_w, super().minimumSizeHint().height())

    @guarded
    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self._follow_width(event.size().width())

    def box_of(self, key: str) -> QWidget | None:
        """The widget of the control for ``key`` (a lesson highlights it)."""
        ctl = self._controls.get(key)
        return ctl.box if ctl is not None else None

    def is_enabled(self, key: str) -> bool:
        return self._controls[key].box.isEnabled()

    def tooltip(self, key: str) -> str:
        return self._controls[key].box.toolTip()

    def shown(self, key: str) -> Any:
        """The value the control of ``key`` shows."""
        return self._controls[key].shows()
