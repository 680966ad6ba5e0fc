"""The explainer window's entry point (the window itself lands with the GUI panels)."""

from __future__ import annotations

import argparse


def main(args: argparse.Namespace) -> int:
    from gui.cli import _parser

    _parser().print_help()
    return 0
