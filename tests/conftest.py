"""Test-wide settings. Qt must run offscreen, so the platform is chosen before anything imports Qt."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
