"""The machine's trace: typed records (``model.snapshot``) in the order things happened.

With ``trace="recent"`` (the window's) only the recent records are kept, and ``drain`` hands them out
once; with ``"full"`` (tests, trace exports) every record stays and ``drain`` hands out the new ones;
with ``"off"`` (runs and benchmarks) the machine makes no records at all, so nothing on the hot path is
built or formatted for a trace nobody reads.
"""

from __future__ import annotations

from typing import Final

from model.copyable import mypyc_attr
from model.snapshot import TraceRecord

TRACE_LIMIT: Final = 20_000  # recent trace records kept for snapshots when nobody drains them


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class TraceLog:
    """The records, in order. ``"recent"`` keeps the newest records already drained too (up to
    ``TRACE_LIMIT`` in all, the undrained ones first): a copy of the run (``model.fork``) that a window
    lands on hands them out again (``rehand``) to draw the run's recent past."""

    __slots__ = ("_read", "appended", "full", "records")

    def __init__(self, full: bool) -> None:
        self.records: list[TraceRecord] = []
        self.full = full
        self.appended = 0  # records ever added: a mark for ``insert``
        self._read = 0  # the records drained so far

    def add(self, record: TraceRecord) -> None:
        records = self.records
        records.append(record)
        self.appended += 1
        if not self.full and len(records) > TRACE_LIMIT:
            self._trim()

    def insert(self, mark: int, record: TraceRecord) -> None:
        """Add ``record`` where the trace stood when ``appended`` was ``mark``: a record that is complete
        only after the ones it precedes (a yield, whose ``switched`` the switch after it decides). A
        recent trace puts it no earlier than the first record not yet drained."""
        records = self.records
        at = max(len(records) - (self.appended - mark), 0)
        records.insert(at if self.full else max(at, self._read), record)
        self.appended += 1
        if not self.full and len(records) > TRACE_LIMIT:
            self._trim()

    def _trim(self) -> None:
        records = self.records
        if len(records) - self._read > TRACE_LIMIT:  # nobody drains: the oldest half of the limit goes
            del records[: self._read + TRACE_LIMIT // 2]
            self._read = 0
        else:  # the drained records go first, half the limit at a time
            cut = min(self._read, len(records) - TRACE_LIMIT // 2)
            del records[:cut]
            self._read -= cut

    def drain(self) -> tuple[TraceRecord, ...]:
        """The records added since the last drain, once."""
        out = tuple(self.records[self._read :])
        self._read = len(self.records)
        return out

    def keep_newest(self, n: int) -> None:
        """Forget all but the newest ``n`` records (a checkpoint's trace: enough to draw its recent past)."""
        cut = max(len(self.records) - n, 0)
        del self.records[:cut]
        self._read = max(self._read - cut, 0)

    def rehand(self) -> None:
        """The next drain hands out every record kept, the drained ones again."""
        self._read = 0
