"""The ``schedlab`` command: the headless front end of the model, and the door to the window.

``list``, ``run``, ``bench``, ``compare``, ``trace`` and ``sweep`` run here and never import Qt.
``gui`` (also: no command at all) and ``export`` draw the window, so they are handed to ``gui.app``,
imported only when one of them runs.
This package is the only part of the model that writes files or reads the wall clock; the rest of
the model never imports it (import-linter checks both).

How a command ends: bad input, a bad output path or a failed write prints one line on stderr naming
what is wrong and what is allowed (control characters escaped, long values elided) and exits with
status 2; Ctrl-C exits with 130 and a closed pipe (``run --json | head -1``) with 141, both without a
word, as programs that those signals stop do (partial output files removed, see ``model.cli.outputs``).
The commands' modules load inside ``main``, so that even a Ctrl-C while they load ends that way.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Sequence

from model.cli.parser import UsageError, build_parser, joined_numbers
from model.keyspec import ScenarioError, one_line

__all__ = ["EXIT_BROKEN_PIPE", "EXIT_INTERRUPTED", "EXIT_USAGE", "UsageError", "main"]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE
HEADLESS = {  # command: its module in model.cli and the function that runs it
    "list": ("runs", "cmd_list"),
    "run": ("runs", "cmd_run"),
    "bench": ("bench", "cmd_bench"),
    "compare": ("compare", "cmd_compare"),
    "trace": ("trace", "cmd_trace"),
    "sweep": ("sweep", "cmd_sweep"),
}


def _command(name: str | None) -> Callable[[argparse.Namespace], int]:
    if name not in HEADLESS:
        return _window_command
    module, function = HEADLESS[name]
    run: Callable[..., int] = getattr(importlib.import_module(f"model.cli.{module}"), function)
    return (lambda args: run()) if name == "list" else run


def _window_command(args: argparse.Namespace) -> int:
    # The model never imports the GUI: import-linter forbids it in every import statement. This is the
    # one place where the model names it, as a string at run time, because `schedlab gui` and
    # `schedlab export` are the window's commands behind the one `schedlab` program. Only those
    # commands load Qt; `list`, `run` and `bench` never do.
    app = importlib.import_module("gui.app")
    run_window: Callable[[argparse.Namespace], int] = app.main
    return run_window(args)


def main(argv: Sequence[str] | None = None) -> int:
    argv = joined_numbers(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        code = _command(args.command)(args)
        sys.stdout.flush()  # a closed pipe or a full disk shows now, not as noise at exit
        return code
    except (UsageError, ScenarioError) as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        if not _stdout_failed():
            raise
        _silence_stdout()
        return fail(f"cannot write the output: {exc.strerror or exc}")


def fail(message: str) -> int:
    """Print the one line of a failed command; its exit status."""
    with contextlib.suppress(OSError):  # stderr itself gone: nothing left to tell
        print(f"schedlab: error: {one_line(message)}", file=sys.stderr, flush=True)
    return EXIT_USAGE


def _stdout_failed() -> bool:
    """Whether standard output is what failed (what it holds still cannot be written)."""
    try:
        sys.stdout.flush()
    except OSError:
        return True
    return False


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that nothing tries to write to it again at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a file (a test's capture): nothing to do
        pass
