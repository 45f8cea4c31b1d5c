"""Hostile tries, round three (issue 25): work bounded by the input's size or by --time-limit over a topic,
caches keyed by what determines their content and trusted only when no one else can write them, untrusted
files refused in one line that names them, workers and schedulers that fail or hang contained, and nothing raw
reaching a terminal or an XML file."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from causalgraph.cli import answer
from causalgraph.run import parallel
from causalgraph.run.parallel import map_ordered

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def demo_copy(tmp_path, demo_dir):
    """A writable copy of the demo data folder."""
    return shutil.copytree(demo_dir, tmp_path / "demo")


def answer_demo(data, *extra) -> int:
    return answer.main(["--data", str(data), "--split", "sample", "--quiet", *extra])


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


# --- workers and schedulers that fail or hang are contained ---

def nap(n: int) -> int:
    """Note this worker's pid in $NAP_DIR, then sleep: a topic that takes long."""
    Path(os.environ["NAP_DIR"], str(os.getpid())).write_text("")
    time.sleep(60)
    return n


NAPPING_RUN = """
import sys
from causalgraph.cli.common import run_command
from causalgraph.run.parallel import map_ordered
from tests.test_safety3 import nap

def main(argv):
    for outcome in map_ordered(nap, list(range(6)), workers=2):
        print(outcome)
    return 0

sys.exit(run_command(main))
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads worker processes from /proc")
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_the_workers_die_with_the_run(tmp_path, how):
    run = subprocess.Popen([sys.executable, "-c", NAPPING_RUN], cwd=ROOT, env={**os.environ, "NAP_DIR": str(tmp_path)},
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.1)
    workers = [int(p.name) for p in tmp_path.iterdir()]
    assert len(workers) == 2 and all(map(alive, workers))
    run.send_signal(how)
    _, err = run.communicate(timeout=30)
    if how == signal.SIGTERM:
        assert (run.returncode, err) == (143, "terminated; nothing written\n")
    deadline = time.monotonic() + 10
    while any(map(alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(map(alive, workers))


def test_a_malformed_dask_address_is_one_line(demo_copy, tmp_path, capsys):
    assert answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl"), "--dask-address", "notanaddress") == 2
    err = capsys.readouterr().err
    assert err == "error: --dask-address notanaddress: no Dask scheduler reached (missing port number in address 'notanaddress')\n"


def test_a_dask_address_that_accepts_and_says_nothing_times_out(monkeypatch):
    pytest.importorskip("dask.distributed", reason="dask is not installed (pip install '.[dask]')")
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    held = []
    threading.Thread(target=lambda: held.extend(silent.accept() for _ in range(8)), daemon=True).start()
    monkeypatch.setattr(parallel, "DASK_CONNECT_TIMEOUT", 1.0)
    address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=f"--dask-address {address}: no Dask scheduler reached"):
        next(map_ordered(abs, [1], scheduler="dask", address=address))
    assert time.monotonic() - start < 10
    silent.close()


def test_the_local_dask_cluster_has_no_more_workers_than_items(monkeypatch):
    distributed = pytest.importorskip("dask.distributed", reason="dask is not installed (pip install '.[dask]')")
    asked = []

    def cluster(**kwargs):
        asked.append(kwargs["n_workers"])
        raise RuntimeError("enough")

    monkeypatch.setattr(distributed, "LocalCluster", cluster)
    for items in ([1], [1, 2, 3]):
        with pytest.raises(RuntimeError, match="enough"):
            next(map_ordered(abs, items, workers=12, scheduler="dask"))
    assert asked == [1, 3]
