"""The edge scorer for a user's own topics (`--priors none`), learned from user-style topics: topics written the
way users write them, where "None of the others" can be wrong and two or three causes are common. One evidence
scorer over the question features (less the None structure), the size counts and the evidence groups of
USER_GROUPS, with the directed statements; its precision bias chosen on the held-out answers of every topic, each
answered by a scorer fitted on the others."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..analysis.analyse import TopicAnalysis
from ..analysis.table import second_frame
from ..data.metric import question_score
from ..reason.groups import PRIORS
from ..reason.solve import SolverParams, solve_analysis
from ..text.embed import MPNET
from .bands import scorer_kinds
from .scorer import EdgeScorer, ReadingBlend, Scorer, edge_scores

# The benchmark scorer's groups with its dates read for "after" only (an earlier date never raises a cause of a
# user's topic), and the directed statements.
USER_GROUPS = ("documents", "later dates", "statements")
EARLIER = ("dated_before",)  # the documents group's earlier-date reading, which "later dates" reads for after only
# Small trees: 24 topics and about 600 pairs (lab/user/user_scorer.py fits the same).
USER_PARAMS = {"max_iter": 100, "max_leaf_nodes": 4}
# The documents are read a second time with a larger encoder, and a scorer per reading averaged (ReadingBlend): the
# two err apart (option AUC 0.8256 against 0.8010 held out on the tuning topics, docs/lab/user.md). Their mean
# log-odds times SHARPEN, the better of 1 and 1.5 on the tuning topics' held-out answers.
SECOND_ENCODER = MPNET
SHARPEN = 1.5
BIASES = tuple(range(-100, 301, 25))  # precision biases tried (log-odds x 100)
# The evidence groups whose effect on an option (learn.scorer.evidence_effects) is measured against the topic's
# other candidates, not blanked: every user-style training topic has documents, so this scorer never saw the
# documents group blank, and against that unlearned state any option the documents barely tell (an event of
# another topic) read as raised. Blank statements (nothing stated) and dates (none known) are states it learned.
VERSUS_CANDIDATES = ("documents",)


def user_features() -> tuple[str, ...]:
    """The features of the user-topic scorer."""
    return tuple(f for f in scorer_kinds("none", USER_GROUPS)[1].keywords["features"] if f not in EARLIER)


def fit(analyses: list[TopicAnalysis], bias: int = 0, features: tuple[str, ...] | None = None) -> Scorer:
    """The user-topic scorer fitted on every candidate pair of the topics (`features`: others than its own); where
    the topics were read twice (TopicAnalysis.second), a scorer per reading, averaged (ReadingBlend)."""
    names = list(features or user_features())
    frames = [a.table.frame() for a in analyses]
    gold = np.concatenate([a.gold() for a in analyses])
    first = EdgeScorer(features=tuple(names), bias=bias, **USER_PARAMS).fit(pd.concat(frames), gold)
    encoders = {a.second.encoder if a.second else None for a in analyses}
    if encoders == {None}:
        return first
    if len(encoders) > 1:
        raise ValueError(f"the topics were read a second time with different encoders (or not at all): {encoders}")
    second = pd.concat([second_frame(f, names) for f in frames])
    return ReadingBlend(first, EdgeScorer(features=tuple(names), bias=bias, **USER_PARAMS).fit(second, gold),
                        str(encoders.pop()), SHARPEN, bias)


def held_out_scorers(analyses: list[TopicAnalysis], bias: int = 0) -> list[Scorer]:
    """For each topic, the user-topic scorer fitted on the other topics (folds that leave one topic out)."""
    return [fit(analyses[:i] + analyses[i + 1:], bias) for i in range(len(analyses))]


def topic_scores(analysis: TopicAnalysis, probabilities: dict, bias: int) -> list[float]:
    """The AER score of each labelled question of the topic, solved under priors none at this bias."""
    without, none_prior = PRIORS["none"]
    solution = solve_analysis(analysis, probabilities, without, SolverParams(bias=bias, none_prior=none_prior))
    return [question_score(solution.answers[q.qid], gold) for q in analysis.topic.questions
            if (gold := q.gold) is not None]


def chosen_biases(totals: dict[int, list[float]]) -> tuple[list[int], int]:
    """From each topic's summed score at each bias (`totals[bias][topic]`, in BIASES order): per topic, the bias
    of the highest total over the other topics (nested, as the model card reports it), and the bias of the
    highest total over all of them."""
    topics = range(len(next(iter(totals.values()))))
    nested = [max(totals, key=lambda b: sum(v for j, v in enumerate(totals[b]) if j != i)) for i in topics]
    return nested, max(totals, key=lambda b: sum(totals[b]))


@dataclass(frozen=True)
class UserReport:
    """The held-out figures of the user-topic scorer: each topic's pair probabilities by a scorer fitted on the
    other topics (`held`), each topic's question scores when solved at the bias chosen on the other topics'
    held-out answers (`nested`), and the shipped bias, chosen on all of them."""

    held: list[dict]
    nested: list[list[float]]
    bias: int


def train_user_scorer(analyses: list[TopicAnalysis], say: Callable[[str], None] = lambda line: None
                      ) -> tuple[Scorer, UserReport]:
    """The user-topic scorer fitted on every labelled topic, with its bias chosen on all the topics' held-out
    answers (folds leave one topic out), and the report of that cross-validation, nested for the bias."""
    held = [edge_scores(a.table, scorer) for a, scorer in zip(analyses, held_out_scorers(analyses))]
    say(f"{len(analyses)} held-out scorers fitted")
    by_bias = {b: [topic_scores(a, p, b) for a, p in zip(analyses, held)] for b in BIASES}
    say(f"{len(BIASES)} biases solved")
    per_topic, bias = chosen_biases({b: [sum(s) for s in scores] for b, scores in by_bias.items()})
    nested = [by_bias[b][i] for i, b in enumerate(per_topic)]
    return fit(analyses, bias), UserReport(held, nested, bias)
