"""The ``schedlab`` command: the headless front end of the model, and the door to the window.

``list``, ``run``, ``bench``, ``compare``, ``trace`` and ``sweep`` run here and never import Qt.
``gui`` (also: no command at all) and ``export`` draw the window, so they are handed to ``gui.app``,
imported only when one of them runs.
This package is the only part of the model that writes files or reads the wall clock; the rest of
the model never imports it (import-linter checks both). Bad input ends with one line on stderr naming
what is wrong and what is allowed, and exit status 2. Ctrl-C ends any command quietly with status 130
(its partial output files removed, see ``model.cli.atomic``), and a closed pipe (``| head``) ends it
quietly too, with the status a shell gives a command that SIGPIPE ended (141).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence

from model.cli.bench import cmd_bench
from model.cli.compare import cmd_compare
from model.cli.parser import UsageError, build_parser
from model.cli.runs import build_scenario, cmd_list, cmd_run
from model.cli.sweep import cmd_sweep
from model.cli.trace import cmd_trace
from model.scenario import ScenarioError

__all__ = ["EXIT_USAGE", "UsageError", "build_scenario", "main"]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command ended by Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE
HEADLESS: dict[str, Callable[[argparse.Namespace], int]] = {
    "list": lambda args: cmd_list(),
    "run": cmd_run,
    "bench": cmd_bench,
    "compare": cmd_compare,
    "trace": cmd_trace,
    "sweep": cmd_sweep,
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
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE


def _silence_stdout() -> None:
    """The reader of stdout went away: point stdout at /dev/null, so that Python's own flush at exit
    does not print a second BrokenPipeError."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is not a file descriptor (a test's capture): nothing to do
        pass
