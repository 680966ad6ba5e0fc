"""A progress bar on stderr for long commands (sweeps, traces, compares): only on a terminal, or when
asked for with ``--progress``, so that logs and pipes stay clean.

The bar redraws at most a few times a second, says what is being done, how far, and the wall time
left at the current pace; ``close`` (or leaving it as a context manager) ends its line, so that an
error or Ctrl-C does not print after a half-drawn bar. This module reads the wall clock, which the model
never does.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

REDRAW_S = 0.2
BAR_WIDTH = 28


class Progress:
    def __init__(self, label: str, total: float, unit: str = "", enabled: bool | None = None) -> None:
        self.label = label
        self.total = max(total, 1e-12)
        self.unit = unit
        self.stream: TextIO = sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self._start = time.monotonic()
        self._last = 0.0
        self._shown = False

    def update(self, done: float, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < REDRAW_S:
            return
        self._last = now
        frac = min(max(done / self.total, 0.0), 1.0)
        filled = round(frac * BAR_WIDTH)
        elapsed = now - self._start
        left = f"{elapsed * (1 - frac) / frac:5.1f} s left" if frac > 0 else "          "
        amount = f"{done:g}/{self.total:g}{self.unit}"
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {frac * 100:5.1f} % {amount} {left}")
        self.stream.flush()
        self._shown = True

    def close(self, complete: bool = True) -> None:
        """End the bar's line (at 100 % when the work is complete; as it stood when it was not)."""
        if self.enabled and self._shown:
            if complete:
                self.update(self.total, force=True)
            self.stream.write("\n")
            self.stream.flush()
            self._shown = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self.close(complete=kind is None)
