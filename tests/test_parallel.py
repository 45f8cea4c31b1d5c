"""map_ordered on cheap functions: input order, errors as text, warnings carried back, killed workers, Dask."""

import logging
import os
import signal
import time
from contextlib import closing

import pytest

from causalgraph.run.parallel import map_ordered, run_task

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


def test_run_task_turns_exceptions_into_text_and_keeps_warnings():
    ok, bad, warned = run_task(square_or_fail, 2), run_task(square_or_fail, -1), run_task(square_or_fail, 3)
    assert (ok.value, ok.error) == (4, None)
    assert bad.error == "ValueError: negative: -1" and bad.value is None
    assert [(name, level) for name, level, _ in warned.logs] == [("tests.parallel", logging.WARNING)]


@pytest.mark.parametrize("workers", [1, 2])
def test_outcomes_come_back_in_input_order(workers):
    items = [5, -1, 0, 3, 4, 1]
    outcomes = list(map_ordered(square_or_fail, items, workers))
    assert [o.value for o in outcomes] == [25, None, 0, 9, 16, 1]
    assert [o.error for o in outcomes] == [None, "ValueError: negative: -1", None, None, None, None]


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
    assert outcomes[1].error == "WorkerDied: the worker process answering it died (killed by SIGKILL)"
    assert all(o.error is None for i, o in enumerate(outcomes) if i != 1)
    outcomes = list(map_ordered(die, [1, 2], workers=2))
    assert all(o.value is None and o.error.startswith("WorkerDied") for o in outcomes)


def test_dask_local_cluster_in_input_order():
    distributed = pytest.importorskip("dask.distributed", reason="dask is not installed (pip install '.[dask]')")
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster:
        outcomes = list(map_ordered(square_or_fail, [4, -2, 3], scheduler="dask", address=cluster.scheduler_address))
    assert [o.value for o in outcomes] == [16, None, 9]
    assert outcomes[1].error == "ValueError: negative: -2" and len(outcomes[2].logs) == 1


def test_unknown_scheduler_and_bad_worker_count():
    with pytest.raises(ValueError, match="unknown scheduler 'ray'"):
        next(map_ordered(square_or_fail, [1], scheduler="ray"))
    with pytest.raises(ValueError, match="workers must be at least 1"):
        next(map_ordered(square_or_fail, [1], workers=0))
