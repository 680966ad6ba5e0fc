"""The machine's trace: typed records (``model.snapshot``) in the order things happened.

With ``trace="recent"`` (the window's) only the recent records are kept, and ``drain`` hands them out
once; with ``"full"`` (tests, trace exports) every record stays and ``drain`` hands out the new ones;
with ``"off"`` (runs and benchmarks) the machine makes no records at all, so nothing on the hot path is
built or formatted for a trace nobody reads.
"""

from __future__ import annotations

import pickle
import zlib
from dataclasses import fields
from operator import attrgetter
from typing import Any, Final

from model.copyable import mypyc_attr
from model.snapshot import TRACE_RECORD_TYPES, TraceRecord, YieldOutcome, YieldRecord

TRACE_LIMIT: Final = 20_000  # recent trace records kept for snapshots when nobody drains them

# ---- packed records: a checkpoint's recent past in a few bytes each ----------------------------------
# A record is a Python object of some 150-300 bytes (its ints are objects too); a checkpoint keeps
# thousands. Packed, each becomes a tuple of its fields in one pickled, deflated blob: 3 to 4 bytes.
_RECORD_TYPES: Final = TRACE_RECORD_TYPES
_KIND: Final = {cls: i for i, cls in enumerate(_RECORD_TYPES)}
_GETTERS: Final = [attrgetter(*(f.name for f in fields(cls))) for cls in _RECORD_TYPES]
_YIELD: Final = _KIND[YieldRecord]
# A checkpoint packs its records in chunks of this many, and a chunk of records already drained (they
# never move again) is packed once and reused by every later checkpoint that keeps it: rungs a few
# milliseconds apart keep nearly the same 4096 records, and packing them anew was most of a rung's cost.
CHUNK: Final = 256


def pack_records(records: list[TraceRecord]) -> bytes:
    """``records`` as one blob that ``unpack_records`` turns back into equal records, in order. Each
    instant is stored as the step from the record before (a small int pickles in one or two bytes)."""
    rows: list[Any] = []
    last = 0
    for r in records:
        kind = _KIND[type(r)]
        values = _GETTERS[kind](r)
        t = values[0]
        if kind == _YIELD:
            values = (t, *values[1:3], values[3]._fields(), values[4])
        rows.append((kind, t - last, *values[1:]))
        last = t
    return zlib.compress(pickle.dumps(rows, protocol=5), 1)


def unpack_records(blob: bytes) -> list[TraceRecord]:
    out: list[TraceRecord] = []
    t = 0
    for row in pickle.loads(zlib.decompress(blob)):
        kind = row[0]
        t += row[1]
        if kind == _YIELD:
            _, _, cpu, tid, outcome, switched = row
            out.append(YieldRecord(t, cpu, tid, YieldOutcome(*outcome), switched))
        else:
            out.append(_RECORD_TYPES[kind](t, *row[2:]))
    return out


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # model.copyable: a run is copied
class TraceLog:
    """The records, in order. ``"recent"`` keeps the newest records already drained too (up to
    ``TRACE_LIMIT`` in all, the undrained ones first): a copy of the run (``model.fork``) that a window
    lands on hands them out again (``rehand``) to draw the run's recent past."""

    __slots__ = ("_chunks", "_dropped", "_read", "appended", "full", "packed", "records")

    def __init__(self, full: bool) -> None:
        self.records: list[TraceRecord] = []
        # Older records than ``records``, packed in chunks (a checkpoint's), until ``rehand``.
        self.packed: tuple[bytes, ...] = ()
        self.full = full
        self.appended = 0  # records ever added: a mark for ``insert``
        self._read = 0  # the records drained so far
        self._dropped = 0  # records trimmed off the front: records[i] is record number _dropped + i
        self._chunks: dict[int, bytes] = {}  # chunk k (records k*CHUNK onwards, all drained), packed

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
            cut = self._read + TRACE_LIMIT // 2
            self._read = 0
        else:  # the drained records go first, half the limit at a time
            cut = min(self._read, len(records) - TRACE_LIMIT // 2)
            self._read -= cut
        del records[:cut]
        self._dropped += cut

    def drain(self) -> tuple[TraceRecord, ...]:
        """The records added since the last drain, once."""
        out = tuple(self.records[self._read :])
        self._read = len(self.records)
        return out

    def parked(self, n: int) -> tuple[Any, ...]:
        """How a parked checkpoint keeps this trace (``model.fork.park``): the newest ``n`` records (or
        up to ``CHUNK`` more, from the start of the chunk that holds the oldest of them), packed, its
        recent past in a few bytes a record. A run made of it adds records after them, and ``rehand``
        unpacks them in front. Leaves the records as they are."""
        records = self.records
        if n <= 0:
            return resume_trace, (self.full, self.appended, ())
        older = bool(self.packed) and len(records) < n  # a run that went on from a checkpoint
        # Packed afresh, in one blob: that run's older past too, or a full trace (its drained records
        # can still move, ``insert``, so it keeps no chunks).
        if older or self.full:
            if older:
                records = self.packed_records() + records
            return resume_trace, (self.full, self.appended, (pack_records(records[-n:]),))
        return resume_trace, (self.full, self.appended, self._chunked(n))

    def _chunked(self, n: int) -> tuple[bytes, ...]:
        """The newest ``n`` records as packed chunks: whole chunks of drained records from the cache
        (packed on first use), the chunk cut by a trim and the newest records packed now."""
        records, base = self.records, self._dropped
        first = max(base + len(records) - n, base) // CHUNK
        drained = base + self._read  # record numbers below this are drained: they never move
        blobs: list[bytes] = []
        lo = max(first * CHUNK, base)
        k = first
        while (k + 1) * CHUNK <= drained:
            if lo == k * CHUNK:
                blob = self._chunks.get(k)
                if blob is None:
                    blob = self._chunks[k] = pack_records(records[lo - base : lo - base + CHUNK])
            else:  # its oldest records were trimmed: packed as they are, not kept
                blob = pack_records(records[lo - base : (k + 1) * CHUNK - base])
            blobs.append(blob)
            k += 1
            lo = k * CHUNK
        blobs.append(pack_records(records[lo - base :]))
        for old in [key for key in self._chunks if key < first]:  # no later checkpoint keeps them
            del self._chunks[old]
        return tuple(blobs)

    def clear(self) -> None:
        """Let every record go (the run is done with)."""
        self.records.clear()
        self.packed = ()
        self._read = 0
        self._dropped = 0
        self._chunks = {}

    def packed_records(self) -> list[TraceRecord]:
        return [record for blob in self.packed for record in unpack_records(blob)]

    def rehand(self) -> None:
        """The next drain hands out every record kept (packed ones unpacked), the drained ones again."""
        if self.packed:
            records = self.packed_records() + self.records
            self.records = records[-TRACE_LIMIT:] if not self.full else records
            self.packed = ()
        self._read = 0
        self._dropped = 0  # numbered afresh: nothing is drained, and no chunk is kept
        self._chunks = {}


def resume_trace(full: bool, appended: int, packed: tuple[bytes, ...]) -> TraceLog:
    """A parked trace (``TraceLog.parked``) made a run's again: nothing drained, the records packed."""
    trace = TraceLog(full)
    trace.appended = appended
    trace.packed = packed
    return trace
