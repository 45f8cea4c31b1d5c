"""Hostile tries, round three (issue 25): work bounded by the input's size or by --time-limit over a topic,
caches keyed by what determines their content and trusted only when no one else can write them, untrusted
files refused in one line that names them, workers and schedulers that fail or hang contained, and nothing raw
reaching a terminal or an XML file."""

import json
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
from causalgraph.data import Question, Topic
from causalgraph.graph.topic import build_graph, candidate_pairs
from causalgraph.reason.solve import TopicProgram, solve_topic
from causalgraph.run import parallel
from causalgraph.run.parallel import map_ordered

from .conftest import NONE, assert_valid_solution, question_row, write_questions

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


# --- work bounded by the input's size, or by --time-limit over the whole topic ---

def clash_topic(pairs: int) -> Topic:
    """Questions in pairs that the priors and consistency set against each other: q{i}a repeats B{i} as an
    option for A{i}, q{i}b repeats A{i} for B{i}, and two events cannot cause each other. Each question alone
    is answerable; the whole topic is not."""
    questions = []
    for i in range(pairs):
        a, b = f"Event A{i} happened.", f"Event B{i} happened."
        questions += [Question(f"q{i}a", 1, a, (b, b, f"Filler C{i}.", f"Filler D{i}.")),
                      Question(f"q{i}b", 1, b, (a, a, f"Filler E{i}.", f"Filler F{i}."))]
    return Topic(1, questions)


def test_the_time_limit_caps_all_the_searches_of_a_topic(monkeypatch):
    graph = build_graph(clash_topic(200))
    scores = dict.fromkeys(candidate_pairs(graph), 0.5)
    searches = []
    real_solve = TopicProgram.solve
    monkeypatch.setattr(TopicProgram, "solve", lambda self, *a, **k: searches.append(1) or real_solve(self, *a, **k))
    unlimited = solve_topic(graph, scores)
    assert len(searches) > 400  # the topic, each of its 400 questions on its own, then the relaxed topic
    searches.clear()
    start = time.monotonic()
    limited = solve_topic(graph, scores, time_limit=0.05)
    assert time.monotonic() - start < 5 and len(searches) < 100
    assert unlimited.dropped == ("consistency",) and all(unlimited.answers.values())
    assert_valid_solution(graph, limited)  # the answer may depend on timing, as the README says


# --- a question that cannot be answered takes only itself down ---

def test_a_question_whose_options_all_repeat_its_target_is_refused_with_its_line(tmp_path, capsys):
    rows = [question_row("q1", 1, "The dam failed.", ["Rain fell.", "Gates jammed.", "A cup was won.", NONE]),
            question_row("q2", 1, "The dam failed.", ["The dam failed.", "the dam failed", "The dam failed!", "The dam failed."])]
    path = write_questions(tmp_path / "data" / "sample" / "questions.jsonl", rows)
    assert answer_demo(tmp_path / "data", "--out", str(tmp_path / "p.jsonl"), "--keep-going") == 2
    assert capsys.readouterr().err == (f"error: {path}:line 2: question 'q2' offers its target as every option; it has no "
                                       "answer (an event never causes itself)\n")


def test_a_question_without_an_answer_under_the_rules_leaves_the_rest_of_its_topic_answered(tmp_path, caplog):
    rows = [question_row("q1", 1, "The dam failed.", ["Rain fell.", "Gates jammed.", "A cup was won.", "Snow fell."]),
            question_row("q2", 1, "The town flooded.", ["The town flooded.", NONE, "The town flooded.", NONE]),
            question_row("q3", 1, "The town flooded.", ["The dam failed.", "Rain fell.", "Rain fell.", "Snow fell."])]
    write_questions(tmp_path / "data" / "sample" / "questions.jsonl", rows)
    out = tmp_path / "p.jsonl"
    assert answer_demo(tmp_path / "data", "--out", str(out), "--without", "none") == 0
    answers = {r["id"]: r["answer"] for r in map(json.loads, out.read_text().splitlines())}
    assert answers["q2"] == "" and answers["q1"] and "B" in answers["q3"] and "C" in answers["q3"]
    assert "topic 1: question q2 has no answer under the rules even without the relaxable rule groups" in caplog.text
