"""The arguments of ``schedlab compare``, ``trace`` and ``sweep`` (``model.cli.parser`` adds them)."""

from __future__ import annotations

import argparse
from typing import Any

from model.compare import SIDE_LABELS
from model.keyspec import shown
from model.presets import PRESETS


class Number(float):
    """A number from the command line that a refusal repeats as it was typed (``--at 1e9``, not
    ``1000000000.0``, which is how Python prints the float)."""

    text: str

    def __new__(cls, text: str) -> Number:
        try:
            number = super().__new__(cls, text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{shown(text)} is not a number") from None
        number.text = text.strip()
        return number

    def __reduce__(self) -> tuple[type[Number], tuple[str]]:
        return Number, (self.text,)  # as typed, to a sweep's worker processes too

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return self.text if spec in ("", "g") else float.__format__(self, spec)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a dotted key")
    p.add_argument("--duration", type=Number, metavar="S", help="simulated seconds (default: the scenario's)")
    p.add_argument("--progress", action="store_true", help="show progress on stderr even when not a terminal")


def add_tool_commands(sub: Any) -> None:
    cmp = sub.add_parser("compare", help="two to four runs of one scenario and seed, differing in settings")
    cmp.add_argument("scenario", nargs="?", help="built-in name or path (default: the preset's scenario)")
    for label in SIDE_LABELS:
        cmp.add_argument(
            f"--{label.lower()}",
            nargs="+",
            action="extend",  # --b K=V --b K2=V2 is one side with both, as --set repeats
            default=None,
            metavar="KEY=VALUE",
            help=f"settings of side {label}",
        )
    cmp.add_argument("--preset", choices=tuple(PRESETS), help="a classic pair: " + ", ".join(PRESETS))
    cmp.add_argument(
        "--seed", type=int, metavar="N", help="random seed of every side (default: the scenario's)"
    )
    cmp.add_argument("--json", action="store_true", help="print the sides' metrics and differences as JSON")
    cmp.add_argument("--out", metavar="FIG.svg|FIG.png", help="a figure of the sides over simulated time")
    _common(cmp)

    tr = sub.add_parser("trace", help="a Chrome trace-event JSON of a run, for Perfetto UI")
    tr.add_argument("scenario", help="built-in name or path to a .toml or rt-app .json file")
    tr.add_argument("--out", required=True, metavar="FILE.json")
    tr.add_argument(
        "--from", dest="t_from", type=Number, default=0.0, metavar="S", help="start (simulated s)"
    )
    tr.add_argument(
        "--to", dest="t_to", type=Number, default=None, metavar="S", help="end (default: the end)"
    )
    tr.add_argument("--seed", type=int, metavar="N", help="random seed (default: the scenario's)")
    tr.add_argument(
        "--sample-ms",
        type=Number,
        default=None,
        metavar="MS",
        help="counter sampling interval (default: a tick)",
    )
    tr.add_argument(
        "--max-mb",
        type=Number,
        default=256.0,
        metavar="MB",
        help="refuse a trace larger than this (default 256)",
    )
    _common(tr)

    sw = sub.add_parser("sweep", help="a metric over every combination of settings and seeds")
    sw.add_argument("scenario", help="built-in name or path to a .toml or rt-app .json file")
    sw.add_argument("--vary", action="append", required=True, metavar="KEY=V1,V2,...", help="a swept setting")
    sw.add_argument(
        "--seeds", default=None, metavar="A-B", help="seeds A to B (default: the scenario's seed)"
    )
    sw.add_argument("--metric", required=True, metavar="NAME", help="a dotted path into run --json")
    sw.add_argument("--out", metavar="FILE.csv", help="write one row per run to FILE.csv")
    sw.add_argument("--plot", metavar="FIG.svg|FIG.png", help="plot the metric against the first --vary")
    sw.add_argument("--jobs", type=int, default=None, metavar="N", help="parallel runs (default: the cores)")
    sw.add_argument("--executor", choices=("local", "dask"), default="local", help="where the runs go")
    sw.add_argument("--scheduler", metavar="ADDRESS", help="the Dask scheduler (with --executor dask)")
    _common(sw)
