"""The library: the README's Python API block runs as written from an unrelated folder, and `Reasoner` answers
as the `answer` command does, with readers and without reading documents the scorer does not use."""

import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import causalgraph as cg
from causalgraph.cli import answer as answer_command
from causalgraph.readers.base import Judgement, ReaderJudgements

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_api_block() -> str:
    section = README.read_text(encoding="utf-8").split("\n## Python API\n", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S)[1]


def test_the_readme_block_runs_as_written_from_an_unrelated_folder(tmp_path):
    code = readme_api_block()
    assert "cg.Reasoner.load()" in code and "reasoner.answer(" in code
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [f"demo-{i}" for i in range(1, 9)]
    assert all("; not " in line for line in lines)  # each reason names the options not chosen
    assert not list(tmp_path.iterdir())  # it wrote nothing where it ran


def test_the_docs_python_blocks_run_from_the_repository_root():
    blocks = [b for page in sorted((README.parent / "docs").glob("*.md"))
              for b in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)]
    assert blocks
    for code in blocks:
        result = subprocess.run([sys.executable, "-c", code], cwd=README.parent, capture_output=True, text=True,
                                timeout=300)
        assert result.returncode == 0 and result.stdout, result.stderr


def test_import_is_lazy_and_exports_the_api():
    code = "import sys, causalgraph as cg; print('causalgraph.api' in sys.modules, cg.Reasoner.__module__)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "causalgraph.api"]
    assert {"Reasoner", "Answer", "load_topics", "demo_topics", "SolverParams", "ReaderJudgements"} <= set(cg.__all__)
    with pytest.raises(AttributeError):
        cg.no_such_name  # noqa: B018


def test_answers_match_the_answer_command(tmp_path, demo_dir):
    out, explain = tmp_path / "p.jsonl", tmp_path / "e.jsonl"
    assert answer_command.main(["--data", str(demo_dir), "--split", "sample", "--out", str(out), "--explain",
                                str(explain), "--quiet"]) == 0
    answers = list(cg.Reasoner.load().answer(cg.load_topics(demo_dir, split="sample")))
    assert all(isinstance(a, cg.Answer) for a in answers)
    assert [a.submission() for a in answers] == [json.loads(line) for line in out.read_text().splitlines()]
    assert [a.explanation for a in answers] == [json.loads(line) for line in explain.read_text().splitlines()]
    assert [a.labels for a in answers] == [frozenset(a.explanation["answer"].split(",")) for a in answers]
    with pytest.raises(AttributeError):  # frozen until the writer
        answers[0].labels = frozenset("D")


def test_it_reads_the_documents_only_where_the_scorer_uses_them(monkeypatch, tmp_path):
    import causalgraph.analysis.analyse as analyse
    from causalgraph.config import DEFAULT_MODEL
    from causalgraph.learn.scorer import dump_scorer, load_scorer

    read, real = [], analyse.read_documents
    monkeypatch.setattr(analyse, "read_documents", lambda documents: read.append(list(documents)) or real(documents))
    [topic] = cg.demo_topics()
    assert cg.Reasoner.load().reads_documents
    assert len(list(cg.Reasoner.load().answer([topic]))) == len(topic.questions) and read == [topic.documents]
    structure = tmp_path / "structure.joblib"  # the shipped blend's structure scorer alone reads none
    structure.write_bytes(dump_scorer({"aer": cg.Reasoner.load().scorer.structure}, "all-MiniLM-L6-v2"))
    read.clear()
    with pytest.raises(ValueError, match="no scorer for --priors none"):  # "auto" may answer with either setting
        cg.Reasoner.load(model=structure)
    reasoner = cg.Reasoner.load(model=structure, priors="aer")
    assert not reasoner.reads_documents and len(list(reasoner.answer([topic]))) == len(topic.questions)
    assert read == [[]]
    mixed = tmp_path / "mixed.joblib"  # "aer" reads no document and "none" does: the cache follows the setting
    none = load_scorer(DEFAULT_MODEL, "none")[0]
    mixed.write_bytes(dump_scorer({"aer": cg.Reasoner.load().scorer.structure, "none": none}, "all-MiniLM-L6-v2"))
    reasoner = cg.Reasoner.load(model=mixed, cache_dir=tmp_path / "cache")
    for given, priors in (([replace(topic, aer=False)], "none"), ([topic], "aer")):
        assert {a.explanation["priors"] for a in reasoner.answer(given)} == {priors}


class CertainReader:
    """A reader object: it says every option D is a cause, and records the topics it was given."""

    def __init__(self):
        self.seen = []

    def judge(self, topics, progress=True):
        self.seen += [t.topic_id for t in topics]
        return ReaderJudgements("certain", {(q.qid, "D"): Judgement(probability=0.999) for t in topics
                                            for q in t.questions if q.none_label != "D"})


def test_readers_as_objects_or_judgements_are_fused_and_explained():
    topics = cg.demo_topics()
    plain = {a.qid: a.labels for a in cg.Reasoner.load().answer(topics)}
    reader = CertainReader()
    fused = list(cg.Reasoner.load(readers=[reader], reader_weight=5000).answer(topics))  # raw log-odds x 50
    assert reader.seen == [1]
    assert sum("D" in a.labels and "D" not in plain[a.qid] for a in fused) >= 2
    assert all(r["reader"] == "certain" for a in fused for r in a.explanation["options"]["D"]["readers"])
    judged = reader.judge(topics)
    again = cg.Reasoner.load(readers=[judged], reader_weight=5000).answer(topics)
    assert [a.labels for a in again] == [a.labels for a in fused]


def test_the_priors_follow_the_topics_unless_chosen(tmp_path, demo_dir):
    """Under the default "auto", AER data is answered with its construction priors and your own topics without
    them, as the command does; a mix of the two is refused; an explicit setting holds for any topic."""
    aer = cg.load_topics(demo_dir, split="sample")
    own_dir = tmp_path / "own"
    own_dir.mkdir()
    (own_dir / "questions.jsonl").write_text((demo_dir / "sample" / "questions.jsonl").read_text())
    (own_dir / "docs.json").write_text((demo_dir / "sample" / "docs.json").read_text())
    own = cg.load_topics(own_dir)
    assert [t.aer for t in aer + own] == [True, False] and [t.aer for t in cg.demo_topics()] == [True]
    reasoner = cg.Reasoner.load()

    def priors(answers):
        return {a.explanation["priors"] for a in answers}

    assert priors(reasoner.answer(aer)) == {"aer"} and priors(reasoner.answer(own)) == {"none"}
    assert (reasoner.settings_for(own).priors == "none"
            and cg.Reasoner.load(priors="aer").settings_for(own).priors == "aer")
    assert cg.Reasoner(reasoner.settings).settings_for(own).priors == "aer"  # built by hand: its settings hold
    own[0].topic_id = 2
    with pytest.raises(ValueError, match="topics of AER data and your own topics together"):
        list(reasoner.answer(aer + own))
    assert priors(cg.Reasoner.load(priors="aer").answer(own)) == {"aer"}
    assert priors(cg.Reasoner.load(priors="none").answer(aer)) == {"none"}
    with pytest.raises(ValueError, match="priors must be 'auto' or one of 'aer', 'none', got 'bogus'"):
        cg.Reasoner.load(priors="bogus")


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="unknown rule group 'bogus'"):
        cg.Reasoner.load(without={"bogus"})
    with pytest.raises(TypeError, match="judge"):
        cg.Reasoner.load(readers=[object()])
    with pytest.raises(cg.DataError, match="no such data folder"):
        cg.load_topics("/nonexistent/aer")
