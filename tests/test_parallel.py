"""map_ordered on cheap functions: input order, errors carried back as objects, warnings too, killed workers, Dask."""

import logging
import os
import signal
import time
from contextlib import closing

import pytest

from causalgraph.data import DataError
from causalgraph.run.parallel import WorkerDied, map_ordered, run_task

log = logging.getLogger("tests.parallel")


def square_or_fail(n: int) -> int:
    """n squared; warns on 3 and raises on negative n."""
    if n == 3:
        log.warning("three from %d", os.getpid())
    if n < 0:
        raise ValueError(f"negative: {n}")
    return n * n


def die(n: int) -> int:
    os._exit(1)


def die_on_two(n: int) -> int:
    """n squared, slowly; the worker that gets 2 is killed while the others are at work."""
    if n == 2:
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.2)
    return n * n


def bad_input(n: int) -> int:
    raise DataError("topics.jsonl", f"line {n}", "not a topic")


class Unpicklable(Exception):
    def __init__(self, n: int, why: str):  # pickled as Unpicklable(message), which its __init__ refuses
        super().__init__(f"{n}: {why}")


def unpicklable(n: int) -> int:
    raise Unpicklable(n, "no")


def test_run_task_keeps_exceptions_and_warnings():
    ok, bad, warned = run_task(square_or_fail, 2), run_task(square_or_fail, -1), run_task(square_or_fail, 3)
    assert (ok.value, ok.error, ok.failure) == (4, None, None)
    assert isinstance(bad.error, ValueError) and bad.failure == "ValueError: negative: -1" and bad.value is None
    assert "square_or_fail" in bad.trace and 'raise ValueError(f"negative: {n}")' in bad.trace
    assert [(name, level) for name, level, _ in warned.logs] == [("tests.parallel", logging.WARNING)]


@pytest.mark.parametrize("workers", [1, 2])
def test_outcomes_come_back_in_input_order(workers):
    items = [5, -1, 0, 3, 4, 1]
    outcomes = list(map_ordered(square_or_fail, items, workers))
    assert [o.value for o in outcomes] == [25, None, 0, 9, 16, 1]
    assert [o.failure for o in outcomes] == [None, "ValueError: negative: -1", None, None, None, None]
    assert type(outcomes[1].error) is ValueError


def test_an_input_error_keeps_its_type_across_processes():
    (outcome,) = list(map_ordered(bad_input, [7], workers=2))
    assert outcome.pid != os.getpid() and type(outcome.error) is DataError
    assert (outcome.error.path, outcome.error.where, str(outcome.error)) == ("topics.jsonl", "line 7",
                                                                             "topics.jsonl:line 7: not a topic")
    (outcome,) = list(map_ordered(unpicklable, [7], workers=2))  # one that cannot travel says what it was
    assert type(outcome.error) is RuntimeError and outcome.failure == "RuntimeError: Unpicklable: 7: no"


def test_warnings_of_worker_processes_are_replayed_here(caplog):
    (outcome,) = list(map_ordered(square_or_fail, [3], workers=2))
    assert outcome.pid != os.getpid() and "three from" not in caplog.text
    outcome.replay_logs()
    assert f"three from {outcome.pid}" in caplog.text


def test_closing_early_stops_the_pool():
    with closing(map_ordered(square_or_fail, list(range(50)), workers=2)) as outcomes:
        assert next(outcomes).value == 0


def test_a_killed_worker_fails_only_its_own_item():
    outcomes = list(map_ordered(die_on_two, [1, 2, 3, 4, 5, 6], workers=2))
    assert [o.value for o in outcomes] == [1, None, 9, 16, 25, 36]
    assert outcomes[1].failure == "WorkerDied: the worker process answering it died (killed by SIGKILL)"
    assert isinstance(outcomes[1].error, WorkerDied)
    assert all(o.error is None for i, o in enumerate(outcomes) if i != 1)
    outcomes = list(map_ordered(die, [1, 2], workers=2))
    assert all(o.value is None and isinstance(o.error, WorkerDied) for o in outcomes)


def test_dask_local_cluster_in_input_order():
    distributed = pytest.importorskip("dask.distributed", reason="dask is not installed (pip install '.[dask]')")
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster:
        outcomes = list(map_ordered(square_or_fail, [4, -2, 3], scheduler="dask", address=cluster.scheduler_address))
    assert [o.value for o in outcomes] == [16, None, 9]
    assert outcomes[1].failure == "ValueError: negative: -2" and len(outcomes[2].logs) == 1


def test_unknown_scheduler_and_bad_worker_count():
    with pytest.raises(ValueError, match="unknown scheduler 'ray'"):
        next(map_ordered(square_or_fail, [1], scheduler="ray"))
    with pytest.raises(ValueError, match="workers must be at least 1"):
        next(map_ordered(square_or_fail, [1], workers=0))
