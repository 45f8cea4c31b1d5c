"""The size curve (cuts, size-aware copies, the lab's `sizes` command) and the thin-evidence warning of `answer`."""

import json
import logging
from dataclasses import replace

import pytest

from causalgraph.cli import answer, train
from causalgraph.data import load_labelled
from causalgraph.run.advice import THIN_QUESTIONS, thin_topics
from causalgraph.analysis.table import pair_table
from causalgraph.graph.features import QUESTION_FEATURES, SIZE_FEATURES, STRUCTURE_FEATURES, structure_features
from causalgraph.learn.scorer import EdgeScorer, dump_scorer, load_scorer
from causalgraph.learn.crossval import TopicShape, cut_topic, sized_copies
from causalgraph.measure.inputs import labelled_analyses
from lab.scorer import sizes


@pytest.fixture
def analyses(labelled):
    return labelled_analyses(load_labelled(labelled), "all-MiniLM-L6-v2")


def test_a_cut_answers_every_question_once_and_is_seeded(analyses):
    a = analyses[0]
    for k in (1, 3, 4):
        cuts = cut_topic(a, k, seed=0)
        qids = [q.qid for c in cuts for q in c.topic.questions]
        assert sorted(qids) == sorted(q.qid for q in a.topic.questions)
        assert [len(c.topic.questions) for c in cuts[:-1]] == [k] * (len(cuts) - 1)
        assert [c.topic.questions for c in cut_topic(a, k, seed=0)] == [c.topic.questions for c in cuts]
    assert cut_topic(a, None) == [a] and cut_topic(a, 99) == [a]
    assert [c.topic.questions for c in cut_topic(a, 3, seed=1)] != [c.topic.questions for c in cut_topic(a, 3, seed=0)]


def test_size_features_count_questions(analyses):
    a = analyses[0]
    cut = cut_topic(a, 1)[0]
    row = dict(zip(STRUCTURE_FEATURES, cut.table.structure[0]))
    assert row["pair_n_questions"] == 1 and row["topic_n_questions"] == 1
    assert row["cause_n_mentions"] == 1 and row["target_n_mentions"] == 1
    whole = pair_table(a.graph, structure_features(a.graph, a.vectors))
    counts = whole.structure[:, [STRUCTURE_FEATURES.index(f) for f in SIZE_FEATURES]]
    assert counts.max() > 1 and (counts >= 1).all()


def test_sized_copies_cover_each_size_with_the_split_none_share(analyses):
    shapes = [TopicShape(10, 10)]  # every question of the answered split offers None
    copies = sized_copies(analyses[:2], (1, 3), shapes)
    for a, cs in zip(analyses, copies):
        n = len(a.topic.questions)
        assert [len(c.topic.questions) for c in cs] == [1] * n + [3] * -(-n // 3)
        offered = sum(q.none_label is not None for q in a.topic.questions)
        for c in cs:  # None questions first, as far as the topic has them
            k = len(c.topic.questions)
            assert sum(q.none_label is not None for q in c.topic.questions) == min(k, offered)
    again = sized_copies(analyses[:2], (1, 3), shapes)
    assert [[c.topic.questions for c in cs] for cs in again] == [[c.topic.questions for c in cs] for cs in copies]


def test_sizes_prints_the_curve_with_a_reader(labelled, tmp_path, capsys):
    topics = load_labelled(labelled)
    reader = tmp_path / "reader.jsonl"  # a reader that judged three topics' questions, always right
    reader.write_text("".join(json.dumps({"id": q.qid, "answer": ",".join(sorted(q.gold))}) + "\n"
                              for t in topics[:3] for q in t.questions))
    assert sizes.main(["--data", labelled, "--folds", "3", "--sizes", "3,whole,test-shaped", "--bias", "50",
                       "--reader-scores", str(reader)]) == 0
    out = capsys.readouterr().out
    assert "| questions per topic | 3 | whole | test-shaped |" in out
    table = [l for l in out.splitlines() if l.startswith("| ") and not l.startswith("| questions per")]
    # three rows (score, without None, AUC) for each scorer: structure, size-aware, + documents, + each other
    # evidence group (told, dependency cues, statements, later dates), + every group; three for the reader
    assert len(table) == 3 * 9 + 3 and all(l.count("|") == 5 for l in table)
    assert "size-aware + documents + dates (the shipped evidence scorer)" in out
    alone = next(l for l in table if "reader.jsonl: reader alone" in l)
    assert alone.split("|")[2:4] == [" 1.0000 "] * 2
    fused = next(l for l in table if "reader.jsonl: fused" in l)
    structure = next(l for l in table if "structure alone on its 30 questions" in l)
    assert all(float(f) >= float(s) for f, s in zip(fused.split("|")[2:5], structure.split("|")[2:5]))
    assert "Chosen per outer fold:" in out


def test_sizes_rejects_bad_sizes_and_unknown_reader_ids(labelled, tmp_path, capsys):
    with pytest.raises(SystemExit):
        sizes.main(["--data", labelled, "--sizes", "0,3"])
    assert "--sizes takes positive integers" in capsys.readouterr().err
    reader = tmp_path / "r.jsonl"
    reader.write_text(json.dumps({"id": "nope-1", "answer": "A"}) + "\n")
    assert sizes.main(["--data", labelled, "--folds", "3", "--reader-scores", str(reader)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "r.jsonl" in err and "no id matches" in err and len(err.splitlines()) == 1


def test_thin_topics_name_small_topics_without_a_reader(labelled):
    topics = load_labelled(labelled)  # 10 questions each
    assert thin_topics(topics, readers=False) == ([], None)
    small = [replace(t, questions=t.questions[:THIN_QUESTIONS - 1]) for t in topics[:2]]
    ids, message = thin_topics(small + topics[2:], readers=False)
    assert ids == [1, 2] and "topics 1, 2:" in message and "--reader-scores" in message and "--llm-url" in message
    # only what works offline: no hub name, and documents only where a topic lacks them and the scorer reads them
    assert "--crossencoder" not in message and "\n" not in message and "documents" not in message
    bare = [replace(t, documents=[]) for t in small]
    assert "would help: their documents (docs.json" in thin_topics(bare, readers=False)[1]
    assert "documents" not in thin_topics(bare, readers=False, documents=False)[1]
    assert thin_topics(small, readers=True) == ([], None)


def test_answer_warns_once_about_thin_topics(labelled, tmp_path, caplog):
    out = tmp_path / "p.jsonl"
    with caplog.at_level(logging.WARNING):
        assert answer.main(["--data", labelled, "--split", "test", "--out", str(out), "--quiet"]) == 0
    thin = [r.getMessage() for r in caplog.records if "no reader" in r.getMessage()]
    assert len(thin) == 1 and thin[0].startswith("topics 40, 41:")
    caplog.clear()
    reader = tmp_path / "r.jsonl"
    reader.write_text("".join(json.dumps({"id": json.loads(l)["id"], "answer": "A"}) + "\n"
                              for l in out.read_text().splitlines()))
    with caplog.at_level(logging.WARNING):
        assert answer.main(["--data", labelled, "--split", "test", "--out", str(out), "--quiet",
                            "--reader-scores", str(reader)]) == 0
    assert "no reader" not in caplog.text


def test_a_model_loads_when_its_features_are_known(tmp_path):
    for features, loads in ((QUESTION_FEATURES, True), (STRUCTURE_FEATURES, True),
                            ((*QUESTION_FEATURES, "gone"), False)):
        path = tmp_path / "m.joblib"
        path.write_bytes(dump_scorer({"aer": EdgeScorer(features=features)}, "all-MiniLM-L6-v2"))
        if loads:
            assert load_scorer(path)[0].features == features
        else:
            with pytest.raises(ValueError, match="made for other features"):
                load_scorer(path)


@pytest.mark.slow  # trains several scorers on copies of many sizes: minutes on two cores
def test_train_writes_a_size_blend_trained_on_sized_copies(labelled, tmp_path, capsys):
    from causalgraph.learn.crossval import SIZE_COPIES
    from causalgraph.learn.scorer import SizeBlend

    out = tmp_path / "scorer.joblib"
    assert train.main(["--data", labelled, "--folds", "3", "--out", str(out), "--resize-to", "none", "--quiet"]) == 0
    blend = load_scorer(out)[0]
    assert isinstance(blend, SizeBlend) and set(SIZE_FEATURES) <= set(blend.features)
    assert blend.structure.features == QUESTION_FEATURES
    card = out.with_suffix(".md").read_text()
    assert f"copies of {', '.join(map(str, SIZE_COPIES))} questions" in card
    with pytest.raises(SystemExit):  # the option the size copies once had is gone: they are always made
        train.main(["--data", labelled, "--out", str(out), "--size-copies", "1,3"])
    assert "unrecognized arguments: --size-copies" in capsys.readouterr().err
