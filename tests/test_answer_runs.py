"""`causalgraph.answer` over several topics: determinism across runs, workers and the cache; --keep-going;
topics without documents; Dask (real spaCy, MiniLM and clingo)."""

import json
import sys

import pytest

from causalgraph.analysis import cache
from causalgraph.cli import answer
from causalgraph.cli.common import BUG_EXIT
from causalgraph.run import batch

from .conftest import generated_topic, question_row, write_data


def run(data, out_dir, *extra, split="sample") -> tuple[int, bytes | None, bytes | None]:
    """Exit code and the bytes of the submission and explanation files (None where not written)."""
    out, explain = out_dir / "preds.jsonl", out_dir / "explain.jsonl"
    code = answer.main(["--data", str(data), "--split", split, "--out", str(out), "--explain", str(explain), "--quiet",
                        *extra])
    read = lambda p: p.read_bytes() if p.exists() else None
    return code, read(out), read(explain)


def question_count(data, split="sample") -> int:
    return len((data / split / "questions.jsonl").read_text().splitlines())


def test_outputs_are_byte_identical_across_runs_and_the_cache(two_topics, tmp_path, analysis_cache, monkeypatch,
                                                              capsys):
    cold = run(two_topics, tmp_path / "cold")
    assert cold[0] == 0 and len(cold[1].splitlines()) == question_count(two_topics)
    assert "0 analyses from the cache" in capsys.readouterr().err
    assert len(list(analysis_cache.glob("topic-*.pickle"))) == 2
    assert run(two_topics, tmp_path / "uncached", "--no-cache") == cold

    def fail(*args):
        raise AssertionError("analyse_topic called on a warm cache")

    monkeypatch.setattr(cache, "analyse_topic", fail)
    assert run(two_topics, tmp_path / "warm") == cold
    assert "2 analyses from the cache" in capsys.readouterr().err


@pytest.mark.slow  # two worker processes each load torch and MiniLM: 10-20 s on two cores
def test_two_worker_processes_give_the_same_bytes_as_one(two_topics, tmp_path):
    one = run(two_topics, tmp_path / "one", "--no-cache")
    assert run(two_topics, tmp_path / "two", "--workers", "2", "--no-cache") == one


def test_no_cache_neither_reads_nor_writes(two_topics, tmp_path, analysis_cache):
    assert run(two_topics, tmp_path / "a", "--no-cache")[0] == 0
    assert not list(analysis_cache.iterdir())


def test_changed_topic_content_misses_the_cache(tmp_path, analysis_cache):
    rows, docs = generated_topic(5, seed=1)
    run(write_data(tmp_path / "v1", "sample", rows, [docs]), tmp_path / "o1")
    docs["docs"][0]["content"] += " A new sentence."
    run(write_data(tmp_path / "v2", "sample", rows, [docs]), tmp_path / "o2")
    assert len(list(analysis_cache.glob("topic-5-*.pickle"))) == 2


@pytest.fixture
def with_failing_topic(two_topics, monkeypatch):
    """The two topics plus topic 3, whose solving fails (a fault put into the solver for it)."""
    rows = (two_topics / "sample" / "questions.jsonl").read_text()
    bad = question_row("bad-1", 3, "The mill closed.",
                       ["Rain fell.", "The gates jammed.", "A cup was won.", "Snow fell."])
    (two_topics / "sample" / "questions.jsonl").write_text(rows + json.dumps(bad) + "\n")
    real_solve = batch.solve_analysis

    def solve(analysis, *args, **kwargs):
        if analysis.topic.topic_id == 3:
            raise RuntimeError("topic 3, question bad-1: the solver broke")
        return real_solve(analysis, *args, **kwargs)

    monkeypatch.setattr(batch, "solve_analysis", solve)
    return two_topics


def test_first_failure_aborts_with_a_clear_message_and_no_output(with_failing_topic, tmp_path, capsys):
    code, out, explain = run(with_failing_topic, tmp_path / "o")
    err = capsys.readouterr().err
    assert code == BUG_EXIT and out is None and explain is None  # a fault in the code: said to be a bug
    assert ("error: topic 3: a bug in causalgraph (RuntimeError: topic 3, question bad-1: the solver broke); please "
            "report it with the traceback that --debug prints") in err and "Traceback" not in err
    assert "nothing written; --keep-going" in err
    assert not list((tmp_path / "o").glob(".*"))  # no temporary files left either


def test_keep_going_writes_the_other_topics_and_names_the_failed_one(with_failing_topic, tmp_path, capsys):
    code, out, _ = run(with_failing_topic, tmp_path / "k", "--keep-going")
    err = capsys.readouterr().err
    assert code == BUG_EXIT and "error: topic 3: a bug in causalgraph (RuntimeError" in err
    assert "(2 of 3 topics)" in err
    ids = [json.loads(line)["id"] for line in out.splitlines()]
    assert len(ids) == question_count(with_failing_topic) - 1 and "bad-1" not in ids


def test_topic_without_documents_is_answered_and_says_so(tmp_path, caplog, monkeypatch):
    rows, _ = generated_topic(9, seed=3)
    data = write_data(tmp_path / "d", "test", rows, [])
    code, out, explain = run(data, tmp_path / "o", split="test")
    assert code == 0 and len(out.splitlines()) == len(rows)
    assert all(json.loads(line)["documents"] == 0 for line in explain.splitlines())
    assert "topic 9 has no documents; answered from the question texts only" in caplog.text  # answer says so
    monkeypatch.setattr(batch, "reads_documents", lambda scorer: True)  # a scorer that would use them
    caplog.clear()
    code, _, _ = run(data, tmp_path / "o2", "--no-cache", split="test")
    assert code == 0 and caplog.text.count("no documents") == 1  # said once, whatever the scorer reads


def test_dask_cluster_gives_the_same_bytes(two_topics, tmp_path):
    distributed = pytest.importorskip("dask.distributed", reason="dask is not installed (pip install '.[dask]')")
    serial = run(two_topics, tmp_path / "serial")
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster:
        assert run(two_topics, tmp_path / "dask", "--dask-address", cluster.scheduler_address) == serial


def test_dask_scheduler_without_dask_is_a_clear_error(demo_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # as if dask were not installed
    out = tmp_path / "p.jsonl"
    code = answer.main(["--data", str(demo_dir), "--split", "sample", "--out", str(out), "--scheduler", "dask",
                        "--quiet"])
    assert code == 2 and not out.exists()
    assert "error: the dask scheduler needs Dask: pip install 'causalgraph[dask]'" in capsys.readouterr().err


@pytest.mark.parametrize("option", [["--workers", "0"], ["--time-limit", "-1"], ["--scheduler", "ray"]])
def test_bad_run_options_are_usage_errors(option):
    with pytest.raises(SystemExit):
        answer.main(["--demo", *option])


def test_the_answer_path_reads_the_documents_and_they_change_small_topics(demo_dir, tmp_path):
    from causalgraph.analysis.analyse import analyse_topic
    from causalgraph.config import DEFAULT_MODEL
    from causalgraph.data import load_split, question_score
    from causalgraph.learn.scorer import load_scorer, reads_documents
    from causalgraph.run.batch import answer_topic

    scorer, encoder = load_scorer(DEFAULT_MODEL)
    assert reads_documents(scorer)
    [topic] = load_split(demo_dir, "sample")  # 8 questions: the documents carry it
    read, unread = (answer_topic(analyse_topic(topic, encoder, documents), scorer)[1] for documents in (True, False))
    assert read.answers != unread.answers
    score = lambda solution: sum(question_score(solution.answers[q.qid], q.gold) for q in topic.questions)
    assert score(read) > score(unread)
    code, out, explain = run(demo_dir, tmp_path / "o", split="sample")
    assert code == 0 and all(json.loads(line)["documents_read"] for line in explain.splitlines())


def test_a_scorer_without_document_features_reads_no_documents(two_topics, tmp_path, monkeypatch):
    from causalgraph.analysis import analyse
    from causalgraph.config import DEFAULT_MODEL
    from causalgraph.graph.features import QUESTION_FEATURES
    from causalgraph.learn.scorer import EdgeScorer, dump_scorer, load_scorer

    structure = load_scorer(DEFAULT_MODEL)[0].structure  # the shipped blend's structure scorer alone
    assert structure.features == QUESTION_FEATURES
    model = tmp_path / "structure.joblib"
    model.write_bytes(dump_scorer({"aer": structure}, "all-MiniLM-L6-v2"))
    real = analyse.read_documents
    monkeypatch.setattr(analyse, "read_documents", lambda docs: real(docs) if not docs else pytest.fail("spaCy ran"))
    code, out, explain = run(two_topics, tmp_path / "o", "--model", str(model), "--no-cache")
    assert code == 0 and all(not json.loads(line)["documents_read"] for line in explain.splitlines())
    assert isinstance(structure, EdgeScorer)


def test_auto_workers_parallelise_only_real_reading(tmp_path):
    from causalgraph.analysis.cache import AnalysisCache
    from causalgraph.data import Document, Question, Topic

    def topic(tid, chars):
        q = Question(f"q{tid}", tid, "The dam failed.", ("Rain fell.", "Gates jammed.", "A cup was won.", "Snow fell."))
        return Topic(tid, [q], [Document("d", "t", "x" * chars)])

    big = [topic(1, batch.PARALLEL_CHARS), topic(2, 10)]
    assert batch.auto_workers(big, None, True, cpus=8) == 2 and batch.auto_workers(big, None, True, cpus=1) == 1
    assert batch.auto_workers(big, None, False, cpus=8) == 1  # a scorer that reads no document
    assert batch.auto_workers(big[:1], None, True, cpus=8) == 1  # one topic
    assert batch.auto_workers([topic(1, 1000), topic(2, 1000)], None, True, cpus=8) == 1  # little to read
    cache = AnalysisCache.open(tmp_path, "hub/name")
    cache.path(big[0]).write_bytes(b"")  # an entry is there: one topic left to analyse
    assert batch.auto_workers(big, cache, True, cpus=8) == 1
