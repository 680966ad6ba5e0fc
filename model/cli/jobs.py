"""A sweep's runs and where they go: this process (``--jobs 1``), a pool of local processes
(``--jobs N``), or a Dask cluster (``--executor dask --scheduler ADDRESS``, the optional
``schedlab[dask]`` extra).

A ``Job`` is one combination of settings and one seed; ``run_job`` runs it from a ``Source`` (the
scenario, read once) and returns its metric. Every executor returns the values in job order, so the
results do not depend on which run finished first. Ctrl-C stops the pool (its workers ignore SIGINT,
so they print nothing) or cancels the cluster's pending runs, and goes on up as KeyboardInterrupt. A
worker killed from outside ends the sweep with one line.
"""

from __future__ import annotations

import importlib
import multiprocessing
import signal
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import partial
from typing import Any

from model.cli.progress import Progress
from model.cli.runs import build_scenario, run_once
from model.metrics import metric_at
from model.rtapp import parse_any
from model.scenario import Scenario, ScenarioError

CONNECT_TIMEOUT_S = 10


@dataclass(frozen=True)
class Source:
    """The scenario every job builds: a built-in name, or a file's text read once (workers of a Dask
    cluster need not see the file)."""

    name: str
    text: str | None
    sets: tuple[str, ...]
    duration: float | None

    def build(self, extra: Sequence[tuple[str, str]]) -> Scenario:
        sets = [*self.sets, *(f"{k}={v}" for k, v in extra)]
        if self.text is None:
            return build_scenario(self.name, sets, self.duration)
        return build_scenario(self.name, sets, self.duration, parse_any(self.text, self.name))


@dataclass(frozen=True)
class Job:
    index: int
    settings: tuple[tuple[str, str], ...]
    seed: int | None


def run_job(source: Source, metric: str, job: Job) -> tuple[int, float | None]:
    """One run of the sweep; the job's index and the metric's value (a top-level function: workers
    of a process pool or of a Dask cluster import it by name)."""
    sim, _ = run_once(source.build(job.settings), job.seed)
    return job.index, metric_at(sim.summary(), metric)


def run_jobs(
    source: Source,
    metric: str,
    jobs: Sequence[Job],
    workers: int,
    executor: str,
    scheduler: str | None,
    bar: Progress,
) -> list[float | None]:
    work = partial(run_job, source, metric)
    if executor == "dask":
        if not scheduler:
            raise ScenarioError("--executor dask needs --scheduler ADDRESS (e.g. tcp://127.0.0.1:8786)")
        return _on_dask(work, jobs, scheduler, bar)
    if scheduler:
        raise ScenarioError("--scheduler goes with --executor dask")
    values: list[float | None] = [None] * len(jobs)
    if workers == 1 or len(jobs) == 1:
        for n, job in enumerate(jobs, start=1):
            index, value = work(job)
            values[index] = value
            bar.update(n)
        return values
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    # concurrent.futures, not multiprocessing.Pool: a worker that dies (the OOM killer, a kill -9) breaks
    # this pool and says so, where a Pool started another worker and waited for the lost run forever.
    pool = ProcessPoolExecutor(min(workers, len(jobs)), mp_context=ctx, initializer=_ignore_sigint)
    try:
        futures = [pool.submit(work, job) for job in jobs]
        for n, future in enumerate(as_completed(futures), start=1):
            index, value = future.result()
            values[index] = value
            bar.update(n)
    except BrokenProcessPool:
        raise ScenarioError(
            "a worker process of the sweep ended before its run did (killed, or out of memory?); "
            "no result is written; run it again, perhaps with fewer --jobs"
        ) from None
    finally:
        _stop(pool)  # on Ctrl-C or an error: no run goes on after the command
    return values


def _stop(pool: ProcessPoolExecutor) -> None:
    """The pool's workers ended now, runs and all (``shutdown`` alone lets the running ones finish)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())  # the executor's own record
    for process in workers:
        process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _on_dask(work: Any, jobs: Sequence[Job], scheduler: str, bar: Progress) -> list[float | None]:
    try:  # an optional extra, untyped: used through Any
        distributed: Any = importlib.import_module("distributed")
    except ImportError:
        raise ScenarioError("--executor dask needs the dask extra: pip install 'schedlab[dask]'") from None
    try:
        client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ScenarioError(f"--scheduler {scheduler}: cannot connect: {exc}") from None
    values: list[float | None] = [None] * len(jobs)
    futures = client.map(work, list(jobs), pure=False)
    try:
        for n, future in enumerate(distributed.as_completed(futures), start=1):
            index, value = future.result()
            values[index] = value
            bar.update(n)
    finally:
        client.cancel(futures)
        client.close()
    return values
