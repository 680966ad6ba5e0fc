"""The machine's trace: typed records (``model.snapshot``) in the order things happened.

With ``trace="recent"`` (the window's) only the recent records are kept, and ``drain`` hands them out
once; with ``"full"`` (tests, trace exports) every record stays and ``drain`` hands out the new ones;
with ``"off"`` (runs and benchmarks) the machine makes no records at all, so nothing on the hot path is
built or formatted for a trace nobody reads.
"""

from __future__ import annotations

from typing import Final

from model.snapshot import TraceRecord

TRACE_LIMIT: Final = 20_000  # recent trace records kept for snapshots when nobody drains them


class TraceLog:
    __slots__ = ("_read", "appended", "full", "records")

    def __init__(self, full: bool) -> None:
        self.records: list[TraceRecord] = []
        self.full = full
        self.appended = 0  # records ever added: a mark for ``insert``
        self._read = 0  # with a full trace, the records drained so far

    def add(self, record: TraceRecord) -> None:
        records = self.records
        records.append(record)
        self.appended += 1
        if not self.full and len(records) > TRACE_LIMIT:
            del records[: TRACE_LIMIT // 2]

    def insert(self, mark: int, record: TraceRecord) -> None:
        """Add ``record`` where the trace stood when ``appended`` was ``mark``: a record that is complete
        only after the ones it precedes (a yield, whose ``switched`` the switch after it decides)."""
        records = self.records
        records.insert(max(len(records) - (self.appended - mark), 0), record)
        self.appended += 1
        if not self.full and len(records) > TRACE_LIMIT:
            del records[: TRACE_LIMIT // 2]

    def drain(self) -> tuple[TraceRecord, ...]:
        """The records added since the last drain, once."""
        if self.full:
            out = tuple(self.records[self._read :])
            self._read = len(self.records)
            return out
        out = tuple(self.records)
        self.records.clear()
        return out
