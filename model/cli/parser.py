"""The ``schedlab`` argument parser: every command and option, and the one-line usage errors.

``argparse`` prints usage and exits on bad input; here it raises ``UsageError`` instead, so that the
command line prints one line naming what is wrong and exits with status 2, like every other bad input.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from model.cli.tool_args import add_tool_commands


class UsageError(Exception):
    """Bad command-line input; the message is one line naming what is wrong and what is allowed."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="schedlab", description="Linux CPU and packet scheduling, made visible.")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("list", help="built-in scenarios, one line each")
    run = sub.add_parser("run", help="run a scenario headless and print its metrics")
    run.add_argument("scenario", help="built-in name or path to a .toml file")
    _add_common(run)
    run.add_argument(
        "--duration", type=float, metavar="S", help="simulated seconds (default: the scenario's)"
    )
    run.add_argument("--json", action="store_true", help="print one JSON object of metrics")
    run.add_argument("--csv", metavar="FILE", help="write the time series (per interval) to FILE")
    bench = sub.add_parser("bench", help="simulated seconds per wall second for every shipped scenario")
    bench.add_argument("--duration", type=float, default=None, metavar="S", help="simulated seconds per run")
    bench.add_argument(
        "--repeat", type=int, default=3, metavar="N", help="runs per row; the fastest is shown (default 3)"
    )
    gui = sub.add_parser("gui", help="open the explainer window")
    gui.add_argument("scenario", nargs="?", help="built-in name or path to a .toml file")
    export = sub.add_parser("export", help="render the window to PNG or SVG, headless")
    export.add_argument("scenario")
    export.add_argument("--out", required=True, metavar="FILE.png|FILE.svg")
    export.add_argument("--at", type=float, default=2.0, metavar="S", help="simulated time of the picture")
    export.add_argument("--size", default="1600x1000", metavar="WxH")
    _add_common(export)
    add_tool_commands(sub)
    return p


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a dotted key")
    p.add_argument("--seed", type=int, metavar="N", help="random seed (default: the scenario's)")
