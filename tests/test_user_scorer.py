"""`train --user-topics`: the scorer of a user's own topics (--priors none), trained on labelled user-style topics
with folds that leave one topic out, replaces the one in a model file; the AER scorer stays as it was."""

import json
import shutil
from pathlib import Path

import joblib
import pytest

from causalgraph.cli import answer, train
from causalgraph.config import DEFAULT_MODEL, DEMO_DATA
from causalgraph.learn.scorer import ReadingBlend, load_scorer, second_encoder
from causalgraph.learn.user import SECOND_ENCODER, user_features


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture
def user_topics(tmp_path):
    """A folder of two labelled topic folders: the demo (as topic 2) and the key-bridge example."""
    root = tmp_path / "topics"
    shutil.copytree(EXAMPLES / "key-bridge", root / "key-bridge")
    (root / "riverton").mkdir()
    rows = [json.loads(line) for line in (DEMO_DATA / "sample" / "questions.jsonl").read_text().splitlines() if line]
    (root / "riverton" / "questions.jsonl").write_text("".join(json.dumps({**r, "topic_id": 2}) + "\n" for r in rows))
    docs = json.loads((DEMO_DATA / "sample" / "docs.json").read_text())
    (root / "riverton" / "docs.json").write_text(json.dumps([{**d, "topic_id": 2} for d in docs]))
    return root


def test_user_topics_replace_the_none_scorer_and_keep_the_aer_one(user_topics, tmp_path, capsys):
    model = tmp_path / "model.joblib"
    shutil.copy(DEFAULT_MODEL, model)
    shutil.copy(DEFAULT_MODEL.with_suffix(".md"), model.with_suffix(".md"))
    assert train.main(["--user-topics", str(user_topics), "--out", str(model), "--quiet"]) == 0
    saved, shipped = joblib.load(model)["scorers"], joblib.load(DEFAULT_MODEL)["scorers"]
    assert isinstance(saved["none"], ReadingBlend) and saved["none"].features == user_features()
    assert saved["none"].second.features == user_features() and saved["none"].second_encoder == SECOND_ENCODER
    assert "stated_cause" in saved["none"].features
    assert joblib.hash(saved["aer"]) == joblib.hash(shipped["aer"])
    card = model.with_suffix(".md").read_text()
    assert card.count("## `--priors none`: a user's own topics") == 1 and "2 topics, held-out AER score" in card
    assert "--priors none: nested grouped CV" not in card  # the replaced scorer's figures are gone
    assert "- Environment: Python " in card[card.index("## `--priors none`"):]  # what it was trained with
    assert load_scorer(model, "none")[0].bias == saved["none"].bias
    assert answer.main(["--data", str(user_topics / "key-bridge"), "--model", str(model), "--out",
                        str(tmp_path / "p.jsonl"), "--quiet"]) == 0
    assert len((tmp_path / "p.jsonl").read_text().splitlines()) == 6


def test_user_topics_need_labels_and_an_existing_model(user_topics, tmp_path, capsys):
    lines = (user_topics / "key-bridge" / "questions.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    del first["golden_answer"]
    (user_topics / "key-bridge" / "questions.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    model = tmp_path / "model.joblib"
    shutil.copy(DEFAULT_MODEL, model)
    assert train.main(["--user-topics", str(user_topics), "--out", str(model), "--quiet"]) == 2
    assert "kb-1 has no golden_answer" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main(["--user-topics", str(user_topics), "--out", str(tmp_path / "none.joblib")])
    assert "an existing one" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main(["--user-topics", str(user_topics), "--data", "x", "--out", str(model)])


def test_on_a_users_topic_an_earlier_date_alone_never_raises_an_option():
    """The shipped scorer of a user's topic reads the dates for "after" only: on the demo, the football cup (dated
    four days before the dam failure, related to it by no sentence) gets nothing from its dates, and no pair is
    raised by its dates unless a sentence relates its two events."""
    import numpy as np

    from causalgraph.analysis.analyse import analyse_topic
    from causalgraph.data import load_split
    from causalgraph.evidence.features import GROUPS
    from causalgraph.learn.scorer import edge_scores, evidence_effects

    scorer, _ = load_scorer(DEFAULT_MODEL, "none")
    assert "text_date_gap" not in scorer.features and "dated_before" not in scorer.features
    assert set(GROUPS["later dates"]) <= set(scorer.features)
    analysis = analyse_topic(load_split(DEMO_DATA, "sample")[0], second_encoder=second_encoder(scorer))
    effects = evidence_effects(analysis.table, scorer, edge_scores(analysis.table, scorer))
    frame = analysis.table.frame()
    node = {analysis.graph.nodes[n]["text"].split(" on ")[0]: n for n in analysis.graph}
    cup = (node["The Riverton football team won the regional cup"], node["The Riverton dam failed"])
    assert effects[cup]["later dates"] == 0
    for pair, (_, row) in zip(analysis.table.pairs, frame.iterrows()):
        if np.isnan(row["linked_days_before"]):
            assert effects[pair]["later dates"] <= 0, pair


def test_on_a_users_topic_an_option_told_but_linked_to_nothing_is_raised_by_nothing(tmp_path):
    """The demo answered as a user's topic: the football cup is told in the documents (and dated before the dam
    failure) but no sentence links it to the failure, so no evidence group raises it as a cause of the failure.
    The user-topic scorer never saw a topic without documents, so the documents group is compared with the
    topic's candidates, not blanked (learn.user.VERSUS_CANDIDATES): blanked, the cup read as raised by the
    documents (+1.00)."""
    why = tmp_path / "why.jsonl"
    assert answer.main(["--demo", "--priors", "none", "--out", str(tmp_path / "p.jsonl"), "--explain", str(why),
                        "--quiet", "--no-cache"]) == 0
    cups = [option for row in map(json.loads, why.read_text().splitlines())
            if row["target"].startswith("The Riverton dam failed") for option in row["options"].values()
            if option["text"].startswith("The Riverton football team won the regional cup")]
    assert len(cups) == 2
    for option in cups:
        assert option["evidence"] and all(group["log_odds"] < 0 for group in option["evidence"]), option["evidence"]


def test_a_group_compared_with_the_topic_candidates_moves_an_average_candidate_by_nothing():
    """learn.scorer.evidence_effects with `versus_candidates`: where every candidate has the same documents
    features, they set none of them apart, so the group moves none; blanked, it moves them all."""
    import numpy as np

    from causalgraph.analysis.analyse import analyse_topic
    from causalgraph.analysis.table import FEATURE_GROUPS, PairTable
    from causalgraph.data import load_split
    from causalgraph.learn.scorer import edge_scores, evidence_effects

    scorer, _ = load_scorer(DEFAULT_MODEL, "none")
    table = analyse_topic(load_split(DEMO_DATA, "sample")[0], second_encoder=second_encoder(scorer)).table
    frame = table.frame()
    columns = [list(frame.columns).index(f) for f in FEATURE_GROUPS["documents"]]
    evidence, second = table.evidence.copy(), table.second.copy()
    offset = table.structure.shape[1]
    evidence[:, [c - offset for c in columns]] = evidence[0, [c - offset for c in columns]]
    second[:, columns] = second[0, columns]  # the second reading's documents features alike
    same = PairTable(table.pairs, table.structure, evidence, second)
    scores = edge_scores(same, scorer)
    compared = evidence_effects(same, scorer, scores, ("documents",))
    blanked = evidence_effects(same, scorer, scores)
    assert all(abs(compared[p]["documents"]) < 1e-9 for p in same.pairs)
    assert any(abs(blanked[p]["documents"]) > 0.1 for p in same.pairs)
    assert np.allclose([compared[p]["statements"] for p in same.pairs], [blanked[p]["statements"] for p in same.pairs])


def test_the_scorer_of_a_users_topic_reads_the_documents_twice_and_needs_both_readings():
    """The shipped scorer of a user's topic averages a scorer per reading (learn.scorer.ReadingBlend): its
    probability is the mean of its members' log-odds, times `sharpen`; a table read once is an error, not a
    silent fallback to one member."""
    import numpy as np

    from causalgraph.analysis.analyse import analyse_topic
    from causalgraph.analysis.table import second_reading
    from causalgraph.data import load_split
    from causalgraph.data.odds import logit

    scorer, _ = load_scorer(DEFAULT_MODEL, "none")
    assert isinstance(scorer, ReadingBlend) and scorer.sharpen > 1
    topic = load_split(DEMO_DATA, "sample")[0]
    frame = analyse_topic(topic, second_encoder=second_encoder(scorer)).table.frame()
    names = list(scorer.second.features)
    first = logit(scorer.first.predict_proba(frame)[:, 1])
    second = logit(scorer.second.predict_proba(frame[[second_reading(n) for n in names]].set_axis(names, axis=1))[:, 1])
    assert np.allclose(logit(scorer.predict_proba(frame)[:, 1]), scorer.sharpen * (first + second) / 2)
    assert not np.allclose(first, second)  # two readings, two views
    with pytest.raises(ValueError, match="reads the documents twice"):
        scorer.predict_proba(analyse_topic(topic).table.frame())
