"""Test-wide settings. Qt must run offscreen, so the platform is chosen before anything imports Qt."""

import os
import sys

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_configure(config):  # type: ignore[no-untyped-def]
    config.addinivalue_line(
        "markers",
        "handler_errors: the test makes a guarded Qt event handler fail on purpose (tests/qt_guard.py)",
    )


def pytest_addoption(parser):  # type: ignore[no-untyped-def]
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite tests/golden/*.json from the model's current outcomes (see tests/test_golden.py)",
    )


def _modal_refused(*args, **_kwargs):  # type: ignore[no-untyped-def]
    """A modal dialog nobody answers would hold the test until its timeout: fail at once, saying
    which dialog it was. A test that expects one patches ``exec`` (or the static call) itself."""
    texts = [
        a.windowTitle() + ": " + getattr(a, "text", lambda: "")() for a in args if hasattr(a, "windowTitle")
    ]
    texts += [str(a) for a in args if isinstance(a, str)]
    raise AssertionError("a modal dialog opened that the test does not answer: " + " | ".join(texts))


@pytest.fixture(autouse=True)
def no_unanswered_modal(monkeypatch: pytest.MonkeyPatch) -> None:
    """GUI tests only (Qt already imported by the test module): every way schedlab opens a modal
    dialog fails the test instead of waiting for a click that never comes."""
    if "PySide6.QtWidgets" not in sys.modules:
        return
    from PySide6.QtWidgets import QDialog, QMenu, QMessageBox

    for cls, name in (
        (QDialog, "exec"),
        (QMessageBox, "exec"),
        (QMenu, "exec"),
        (QMessageBox, "warning"),
        (QMessageBox, "question"),
        (QMessageBox, "critical"),
        (QMessageBox, "information"),
    ):
        monkeypatch.setattr(cls, name, _modal_refused)
