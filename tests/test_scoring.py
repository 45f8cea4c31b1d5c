"""The edge scorer's features on hand-computed cases, and a real fit on a tiny topic."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from causalgraph.data import Question, Topic
from causalgraph.graph.features import (
    QUESTION_FEATURES,
    STRUCTURE_FEATURES,
    content_words,
    jaccard,
    structure_features,
)
from causalgraph.analysis.table import pair_table
from causalgraph.graph.topic import build_graph, candidate_pairs
from causalgraph.learn.scorer import EdgeScorer, pair_frame

T, A, B, C, D = "The dam failed.", "Heavy rain fell.", "The gates jammed.", "A cup was won.", "A fair opened."


def feature(table, pair, name):
    return table.structure[table.pairs.index(pair), STRUCTURE_FEATURES.index(name)]


@pytest.fixture
def graph():
    questions = [
        Question("q1", 1, T, (A, B, C, D), frozenset("AB")),
        Question("q2", 1, T, (A, C, D, B), frozenset("AD")),
        Question("q3", 1, A, (T, C, D, B), frozenset("B")),
    ]
    return build_graph(Topic(1, questions))


def test_content_words_and_jaccard():
    assert content_words("The dam failed after the rain.") == {"dam", "failed", "rain"}
    assert jaccard({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)


def test_one_node_per_distinct_event_text(graph):
    assert graph.number_of_nodes() == 5
    assert len(candidate_pairs(graph)) == 4 + 4  # four options for T, four for A (T, C, D, B)


def test_structure_features_by_hand(graph):
    vectors = np.eye(5, dtype=np.float32)  # orthogonal: every cosine between distinct events is 0
    table = pair_table(graph, structure_features(graph, vectors))
    t, a, b = 0, 1, 2
    assert feature(table, (a, t), "pair_share") == 1.0  # A offered in both questions about T
    assert feature(table, (a, t), "cause_is_target") == 1.0  # A is the target of q3
    assert feature(table, (a, t), "reverse_offered") == 1.0  # T is offered as a cause of A
    assert feature(table, (b, t), "reverse_offered") == 0.0
    assert feature(table, (b, t), "cosine") == 0.0
    assert feature(table, (b, a), "pair_share") == 1.0
    assert table.structure.shape == (8, len(STRUCTURE_FEATURES))
    # None shares relative to the topic's None rate: no question here offers None
    assert feature(table, (a, t), "cause_none_share") == 0.0 and feature(table, (a, t), "target_n_questions") == 2.0


def test_none_share_is_relative_to_the_topic_rate():
    questions = [
        Question("q1", 1, T, (A, B, C, "None of the others are correct causes."), frozenset("D")),
        Question("q2", 1, B, (A, C, D, T), frozenset("A")),
    ]
    graph = build_graph(Topic(1, questions))
    table = pair_table(graph, structure_features(graph, np.eye(graph.number_of_nodes(), dtype=np.float32)))
    t, a, b = 0, 1, 2
    # A appears in q1 (offers None) and q2 (does not); leaving out questions about B, A's share is 1/1,
    # divided by the topic's None rate 1/2.
    assert feature(table, (a, b), "cause_none_share") == 2.0
    assert feature(table, (a, t), "target_none_share") == 2.0  # every question about T offers None


def test_scorer_fits_and_ranks(graph):
    table = pair_table(graph, structure_features(graph, np.eye(5, dtype=np.float32)))
    gold = np.array([p in {(1, 0), (2, 0), (2, 1)} for p in table.pairs])
    X = pair_frame([table] * 10)
    probs = EdgeScorer(max_iter=20, learning_rate=0.3).fit(X, np.tile(gold, 10)).predict_proba(table.frame())
    assert probs.shape == (8, 2) and np.allclose(probs.sum(axis=1), 1)
    assert probs[gold, 1].mean() > probs[~gold, 1].mean()


def test_scorer_is_a_scikit_learn_estimator(graph):
    scorer = EdgeScorer(max_iter=20, bias=70)
    copy = clone(scorer)
    assert copy.get_params() == scorer.get_params() and copy.bias == 70
    table = pair_table(graph, structure_features(graph, np.eye(5, dtype=np.float32)))
    gold = np.array([p in {(1, 0), (2, 0), (2, 1)} for p in table.pairs])
    fitted = copy.fit(pair_frame([table] * 4), np.tile(gold, 4))
    assert list(fitted.model_.feature_names_in_) == list(QUESTION_FEATURES)  # the default: no size features
    shuffled = table.frame()[list(reversed(table.frame().columns))]  # columns are read by name, not position
    assert np.array_equal(fitted.predict_proba(shuffled), fitted.predict_proba(table.frame()))
    with pytest.raises(KeyError):
        fitted.predict_proba(table.frame().drop(columns=["pair_share"]))


# scikit-learn's estimator checks feed plain arrays of any width, so they run on the scorer over every column
# (features=None); the shipped scorer's named columns add only the frame lookup, tested below. The array-API
# check skips itself unless SCIPY_ARRAY_API is set.
@parametrize_with_checks([EdgeScorer(features=None, max_iter=20)])
def test_edge_scorer_meets_the_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_named_features_are_read_from_a_frame_only():
    frame = pd.DataFrame({"a": [0.0, 1.0] * 50, "b": [1.0, 0.0] * 50})
    scorer = EdgeScorer(features=("b",), max_iter=5).fit(frame, [False, True] * 50)
    assert list(scorer.feature_names_in_) == ["b"] and scorer.predict(frame).tolist() == [0, 1] * 50
    with pytest.raises(TypeError, match="X must be a DataFrame"):
        scorer.predict_proba(frame.to_numpy())
