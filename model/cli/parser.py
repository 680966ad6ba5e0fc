"""The ``schedlab`` argument parser: every command and option, and the one-line usage errors.

``argparse`` prints usage and exits on bad input; here it raises ``UsageError`` instead, so that the
command line prints one line naming what is wrong and exits with status 2, like every other bad input.
``argparse`` also takes ``--at -inf`` for an option without its value (only ``-1`` and ``-1.5`` look
like numbers to it); ``joined_numbers`` writes such a value as ``--at=-inf`` first, so that the
range check, not the parser, answers.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Sequence
from typing import NoReturn

from model.cli.tool_args import Number, add_tool_commands

NUMBER_OPTIONS = (
    "--at",
    "--duration",
    "--seed",
    "--repeat",
    "--from",
    "--to",
    "--sample-ms",
    "--max-mb",
    "--jobs",
)


class UsageError(Exception):
    """Bad command-line input; the message is one line naming what is wrong and what is allowed."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def joined_numbers(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--at -inf`` (any number option followed by a negative number) as ``--at=-inf``."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return out + list(argv[i:])
        if arg in NUMBER_OPTIONS and i + 1 < len(argv) and _negative_number(argv[i + 1]):
            out.append(f"{arg}={argv[i + 1]}")
            i += 2
            continue
        out.append(arg)
        i += 1
    return out


def _negative_number(text: str) -> bool:
    if not text.startswith("-") or len(text) > 100:
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


@functools.cache  # parsing does not change a parser; building one takes longer than most commands' checks
def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="schedlab", description="Linux CPU and packet scheduling, made visible.")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("list", help="built-in scenarios, one line each")
    run = sub.add_parser("run", help="run a scenario headless and print its metrics")
    run.add_argument("scenario", help="built-in name or path to a .toml file")
    _add_common(run)
    run.add_argument(
        "--duration", type=Number, metavar="S", help="simulated seconds (default: the scenario's)"
    )
    run.add_argument("--json", action="store_true", help="print one JSON object of metrics")
    run.add_argument("--csv", metavar="FILE", help="write the time series (per interval) to FILE")
    bench = sub.add_parser("bench", help="simulated seconds per wall second for every shipped scenario")
    bench.add_argument("--duration", type=Number, default=None, metavar="S", help="simulated seconds per run")
    bench.add_argument(
        "--repeat", type=int, default=3, metavar="N", help="runs per row; the fastest is shown (default 3)"
    )
    bench.add_argument(
        "--only", default="", metavar="TEXT", help="only the rows whose label contains TEXT, e.g. 'o1 fixed'"
    )
    gui = sub.add_parser("gui", help="open the explainer window")
    gui.add_argument("scenario", nargs="?", help="built-in name or path to a .toml file")
    export = sub.add_parser("export", help="render the window or a panel to PNG, SVG or PDF, headless")
    export.add_argument("scenario")
    export.add_argument("--out", required=True, metavar="FILE.png|FILE.svg|FILE.pdf")
    export.add_argument("--at", type=Number, default=2.0, metavar="S", help="simulated time of the picture")
    export.add_argument(
        "--size",
        default=None,
        metavar="WxH",
        help="the figure's size: the window's (default 1600x1000), or with --panel the panel's "
        "(default: as large as it is in that window)",
    )
    export.add_argument(
        "--panel",
        default="window",
        metavar="NAME",
        help="window (default), cpu-lanes, run-queue, qdisc, headline-numbers, graphs, explainer or controls",
    )
    export.add_argument("--scale", type=Number, default=None, metavar="X", help="PNG pixels per screen pixel")
    export.add_argument("--dpi", type=Number, default=None, metavar="N", help="PNG resolution (96 is 1x)")
    export.add_argument("--caption", action="store_true", help="the scenario, settings, seed and time below")
    _add_common(export)
    video = sub.add_parser("video", help="render a run to MP4 or GIF frame by frame, headless")
    video.add_argument("scenario")
    video.add_argument("--out", required=True, metavar="FILE.mp4|FILE.gif")
    video.add_argument(
        "--from", dest="t_from", type=Number, default=0.0, metavar="S", help="start (simulated s)"
    )
    video.add_argument(
        "--to", dest="t_to", type=Number, default=None, metavar="S", help="end (default: the end)"
    )
    video.add_argument(
        "--speed",
        type=Number,
        default=0.01,
        metavar="X",
        help="simulated s per video s (default 0.01, Normal)",
    )
    video.add_argument("--fps", type=int, default=30, metavar="N", help="frames per second (default 30)")
    video.add_argument("--size", default="1280x720", metavar="WxH")
    video.add_argument("--progress", action="store_true", help="show progress even when not a terminal")
    _add_common(video)
    add_tool_commands(sub)
    return p


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a dotted key")
    p.add_argument("--seed", type=int, metavar="N", help="random seed (default: the scenario's)")
