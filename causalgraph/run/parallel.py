"""Run one function over many items, in this process, in worker processes or on a Dask cluster, and get the
outcomes back in input order. A task's exception comes back as the exception object itself (pickled from a
worker), with its traceback as text and the warnings the task logged."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import threading
import time
import traceback
from collections import deque
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Generator, Iterator, Sequence

from ..data.records import escaped

# Characters of unread documents from which a run is worth two worker processes: each loads spaCy and the encoder
# (about 8 s), and reading runs at about 20,000 characters a second on one core (measured when it was set; not recorded
# since).
PARALLEL_CHARS = 200_000

SCHEDULERS = ("local", "dask")
DASK_CONNECT_TIMEOUT = 20.0  # seconds to reach the scheduler at a --dask-address and hear from it


class DaskUnavailable(RuntimeError):
    """No Dask installed, or no Dask scheduler answering at the address given."""


class WorkerDied(RuntimeError):
    """The worker process answering an item died (killed, out of memory) before it sent the outcome."""


@dataclass(frozen=True)
class Outcome:
    """What one task returned, or the exception it raised (`error`, with its traceback as text in `trace`);
    `logs` are the (logger, level, message) records it logged at WARNING or above, in the process `pid`."""

    value: Any = None
    error: Exception | None = None
    trace: str = ""
    logs: tuple[tuple[str, int, str], ...] = ()
    pid: int = 0

    @property
    def failure(self) -> str | None:
        """The error as "TypeName: message"; None when the task succeeded."""
        return None if self.error is None else f"{type(self.error).__name__}: {self.error}"

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


def portable(err: Exception) -> Exception:
    """The exception itself where it survives pickling as its own type, else a RuntimeError that says what
    it was (an exception that cannot travel between processes)."""
    try:
        copy = pickle.loads(pickle.dumps(err))
    except Exception:
        copy = None
    return err if type(copy) is type(err) else RuntimeError(f"{type(err).__name__}: {err}")


def run_task(fn: Callable[[Any], Any], item: Any) -> Outcome:
    """fn(item) as an Outcome: an exception is kept (as one that pickles) with its traceback, warnings too."""
    capture = _Capture()
    root = logging.getLogger()
    root.addHandler(capture)
    try:
        value, error, trace = fn(item), None, ""
    except Exception as err:
        value, error, trace = None, portable(err), traceback.format_exc()
    finally:
        root.removeHandler(capture)
    return Outcome(value, error, trace, tuple(capture.records), os.getpid())


def _outcome(future) -> Outcome:
    """The outcome of a future; a failure of the machinery itself (a killed worker) becomes an error outcome."""
    try:
        return future.result()
    except Exception as err:
        return Outcome(error=portable(err), trace=traceback.format_exc(), pid=os.getpid())


def map_ordered(
    fn: Callable[[Any], Any],
    items: Sequence[Any],
    workers: int = 1,
    scheduler: str = "local",
    address: str | None = None,
) -> Generator[Outcome, None, None]:
    """Outcomes of fn(item), in the order of `items`. Scheduler "local": this process when workers is 1, else
    a pool of `workers` spawned processes (no more than there are items), which die with this process; a
    worker that dies fails only its own item. "dask": the Dask scheduler at `address` (RuntimeError, in one
    line, when none answers there within DASK_CONNECT_TIMEOUT), or a LocalCluster of `workers` processes (no
    more than there are items). `fn` must be picklable for either pool. Closing the iterator stops what has
    not finished (use contextlib.closing)."""
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


def _set_parent_death_signal() -> None:
    """In a worker: ask the kernel (Linux) to kill this process when the process that started it dies, however
    it dies (SIGKILL included); elsewhere a thread watches for the parent's death instead."""
    parent = os.getppid()
    try:
        import ctypes

        if ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL) != 0:  # 1: PR_SET_PDEATHSIG
            raise OSError
    except (OSError, AttributeError):  # not Linux
        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent:  # the parent died before the signal was set
        os._exit(1)


def _worker(fn: Callable[[Any], Any], connection) -> None:
    """A worker process: run_task(fn, item) for each (index, item) received, until None or the pipe closes."""
    _set_parent_death_signal()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it ends the workers
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        index, item = task
        outcome = run_task(fn, item)
        try:
            connection.send((index, outcome))
        except (EOFError, OSError):
            return
        except Exception as err:  # a value that does not pickle
            connection.send((index, Outcome(error=portable(err), trace=traceback.format_exc(), logs=outcome.logs,
                                            pid=outcome.pid)))


def _death(exitcode: int | None) -> str:
    """How a worker process ended, in words."""
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


class _Worker:
    """One spawned worker process, the pipe to it, and the index of the item it is working on (None: idle)."""

    def __init__(self, context, fn: Callable[[Any], Any]):
        self.connection, theirs = context.Pipe()
        # spawn, not fork: a forked copy of a process that has started torch or tqdm threads can deadlock
        self.process = context.Process(target=_worker, args=(fn, theirs), daemon=True)
        self.process.start()
        theirs.close()
        self.task: int | None = None

    def stop(self) -> None:
        """End the process: at once where it is working (its result is no longer wanted), else when told."""
        try:
            if self.task is None and self.process.is_alive():
                self.connection.send(None)
            else:
                self.process.kill()
        except OSError:
            self.process.kill()
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


def _processes(fn, items, workers: int) -> Iterator[Outcome]:
    """Outcomes of fn(item) from a pool of spawned processes, in input order. A worker that dies (killed, out
    of memory) fails only the item it was working on, with an error outcome; a new worker takes the rest."""
    context = multiprocessing.get_context("spawn")
    pending = deque(enumerate(items))
    done: dict[int, Outcome] = {}
    pool = [_Worker(context, fn) for _ in range(min(workers, len(pending)))]
    try:
        for index in range(len(pending)):
            while index not in done:
                for i, worker in enumerate(pool):
                    if worker.task is None and pending and not worker.process.is_alive():
                        worker.stop()
                        pool[i] = worker = _Worker(context, fn)
                    if worker.task is None and pending:
                        worker.task, item = pending.popleft()
                        try:
                            worker.connection.send((worker.task, item))
                        except OSError:  # it died as it was given the item: the next round sees it
                            pass
                busy = [w for w in pool if w.task is not None]
                multiprocessing.connection.wait([w.connection for w in busy] + [w.process.sentinel for w in busy])
                for worker in busy:
                    _collect(worker, done)
            yield done.pop(index)
    finally:
        for worker in pool:
            worker.stop()


def _collect(worker: _Worker, done: dict[int, Outcome]) -> None:
    """Take the worker's outcome if it sent one; if it died instead, its item gets an error outcome."""
    task = worker.task
    assert task is not None
    try:
        if worker.connection.poll():
            index, outcome = worker.connection.recv()
            done[index], worker.task = outcome, None
            return
    except (EOFError, OSError):  # the pipe closed: the process is ending
        worker.process.join(5)
    if not worker.process.is_alive():
        worker.process.join()
        done[task] = Outcome(error=WorkerDied(f"the worker process answering it died "
                                              f"({_death(worker.process.exitcode)})"), pid=os.getpid())
        worker.task = None


def _dask(fn, items, workers: int, address: str | None) -> Iterator[Outcome]:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise DaskUnavailable("the dask scheduler needs Dask: pip install 'causalgraph[dask]'") from None
    with ExitStack() as stack:
        chatty = logging.getLogger("distributed")  # logs every connection at INFO
        stack.callback(chatty.setLevel, chatty.level)
        chatty.setLevel(max(chatty.getEffectiveLevel(), logging.WARNING))
        if address:
            try:  # Client alone can wait for ever on a service that accepts and says nothing
                asyncio.run(_identity(address, DASK_CONNECT_TIMEOUT))
                client = stack.enter_context(Client(address, timeout=DASK_CONNECT_TIMEOUT))
            except Exception as err:  # a malformed address, nothing there, or a service that does not answer
                problem = str(err).splitlines()[0] if str(err) else f"no answer in {DASK_CONNECT_TIMEOUT:g} s"
                raise DaskUnavailable(f"--dask-address {escaped(address)}: no Dask scheduler reached "
                                   f"({escaped(problem)})") from None
        else:
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=min(workers, max(len(items), 1)), threads_per_worker=1, processes=True,
                    dashboard_address=":0", silence_logs=logging.WARNING,
                )
            )
            client = stack.enter_context(Client(cluster))
        futures = client.map(partial(run_task, fn), list(items), pure=False)
        try:
            for future in futures:
                yield _outcome(future)
        finally:
            client.cancel(futures)


async def _identity(address: str, timeout: float) -> dict:
    """What the Dask scheduler at `address` says it is; TimeoutError when it does not answer within `timeout`
    seconds (connecting, the handshake and the reply each)."""
    from distributed.comm import connect

    comm = await asyncio.wait_for(connect(address, timeout=timeout), timeout)
    try:
        await asyncio.wait_for(comm.write({"op": "identity"}), timeout)
        return await asyncio.wait_for(comm.read(), timeout)
    finally:
        comm.abort()
