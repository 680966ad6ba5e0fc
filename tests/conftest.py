"""Test-wide settings. Qt must run offscreen, so the platform is chosen before anything imports Qt."""

import os

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
