"""Run one function over many items, in this process, in worker processes or on a Dask cluster, and get the
outcomes back in input order. A task's exception comes back as text, with the warnings the task logged."""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Generator, Iterator, Sequence

SCHEDULERS = ("local", "dask")


@dataclass(frozen=True)
class Outcome:
    """What one task returned, or its error as "TypeName: message"; `logs` are the (logger, level, message)
    records it logged at WARNING or above, in the process `pid`."""

    value: Any = None
    error: str | None = None
    logs: tuple[tuple[str, int, str], ...] = ()
    pid: int = 0

    def replay_logs(self) -> None:
        """Log the task's warnings here if it ran in another process (in this one they were logged already)."""
        if self.pid != os.getpid():
            for name, level, message in self.logs:
                logging.getLogger(name).log(level, message)


class _Capture(logging.Handler):
    """Collects the records that the current thread logs."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.thread = threading.get_ident()
        self.records: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread:
            self.records.append((record.name, record.levelno, record.getMessage()))


def run_task(fn: Callable[[Any], Any], item: Any) -> Outcome:
    """fn(item) as an Outcome: exceptions become text (they may not survive pickling), warnings are kept."""
    capture = _Capture()
    root = logging.getLogger()
    root.addHandler(capture)
    try:
        value, error = fn(item), None
    except Exception as err:
        value, error = None, f"{type(err).__name__}: {err}"
    finally:
        root.removeHandler(capture)
    return Outcome(value, error, tuple(capture.records), os.getpid())


def _outcome(future) -> Outcome:
    """The outcome of a future; a failure of the machinery itself (a killed worker) becomes an error outcome."""
    try:
        return future.result()
    except Exception as err:
        return Outcome(error=f"{type(err).__name__}: {err}", pid=os.getpid())


def map_ordered(
    fn: Callable[[Any], Any],
    items: Sequence[Any],
    workers: int = 1,
    scheduler: str = "local",
    address: str | None = None,
) -> Generator[Outcome, None, None]:
    """Outcomes of fn(item), in the order of `items`. Scheduler "local": this process when workers is 1, else
    a pool of `workers` spawned processes; "dask": the Dask scheduler at `address`, or a LocalCluster of
    `workers` processes. `fn` must be picklable for either pool. Closing the iterator cancels what has not
    started (use contextlib.closing)."""
    if scheduler not in SCHEDULERS:
        raise ValueError(f"unknown scheduler {scheduler!r}; choose from {', '.join(SCHEDULERS)}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if scheduler == "dask":
        yield from _dask(fn, items, workers, address)
    elif workers == 1:
        for item in items:
            yield run_task(fn, item)
    else:
        yield from _processes(fn, items, workers)


def _processes(fn, items, workers: int) -> Iterator[Outcome]:
    # spawn, not fork: a forked copy of a process that has started torch or tqdm threads can deadlock
    pool = ProcessPoolExecutor(min(workers, max(len(items), 1)), mp_context=multiprocessing.get_context("spawn"))
    try:
        futures = [pool.submit(run_task, fn, item) for item in items]
        for future in futures:
            yield _outcome(future)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _dask(fn, items, workers: int, address: str | None) -> Iterator[Outcome]:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise RuntimeError("the dask scheduler needs Dask: pip install 'causalgraph[dask]'") from None
    with ExitStack() as stack:
        chatty = logging.getLogger("distributed")  # logs every connection at INFO
        stack.callback(chatty.setLevel, chatty.level)
        chatty.setLevel(max(chatty.getEffectiveLevel(), logging.WARNING))
        if address:
            client = stack.enter_context(Client(address))
        else:
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                    silence_logs=logging.WARNING,
                )
            )
            client = stack.enter_context(Client(cluster))
        futures = client.map(partial(run_task, fn), list(items), pure=False)
        try:
            for future in futures:
                yield _outcome(future)
        finally:
            client.cancel(futures)
