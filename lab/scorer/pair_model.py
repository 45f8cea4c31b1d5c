"""The pair ("NLI") model measured with grouped-by-topic CV, fine-tuned anew in every fold: its edge AUC alone,
and that of the edge scorer with the pair model's out-of-fold probability as one more feature."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold, cross_val_predict
from tqdm import tqdm

from causalgraph.analysis.analyse import TopicAnalysis
from causalgraph.graph.features import QUESTION_FEATURES
from causalgraph.learn.crossval import held_out_probabilities, training_data
from lab.scorer.pair_examples import labelled_examples, silver_examples
from causalgraph.learn.scorer import EdgeScorer
from causalgraph.readers.crossencoder import PairModel


@dataclass(frozen=True)
class PairModelReport:
    """Edge AUCs: the pair model's alone (all pairs, and the pairs of topics with documents), and the edge
    scorer's without and with the pair model's probability as a feature."""

    auc: float
    auc_with_documents: float
    pairs_with_documents: int
    scorer_auc: float
    stacked_auc: float


def pair_model_cv(analyses: list[TopicAnalysis], encoder: str, folds: int = 5, epochs: int = 1, silver: int = 2000,
                  progress: bool = True) -> PairModelReport:
    """Fine-tune the pair model from `encoder` on each fold's training topics (with `silver` cue pairs) and
    predict its held-out topics; then stack its out-of-fold probabilities into the edge scorer (an optimistic
    bound: the training topics' pair scores come from models that saw the held-out fold)."""
    topics = np.array([a.topic.topic_id for a in analyses])
    oof = [np.zeros(0)] * len(analyses)
    splits = list(GroupKFold(n_splits=folds).split(topics, groups=topics))
    for train, test in tqdm(splits, desc="folds", unit="fold", disable=not progress):
        inner = [analyses[i] for i in train]
        model = PairModel(encoder).fit(labelled_examples(inner) + silver_examples(inner, silver), epochs)
        for i in test:
            oof[i] = model.predict_proba(labelled_examples([analyses[i]]))
    gold = np.concatenate([a.gold() for a in analyses])
    docs = np.concatenate([np.full(len(a.table.pairs), bool(a.topic.documents)) for a in analyses])
    pair_p = np.concatenate(oof)
    _, p_base = held_out_probabilities(analyses, folds)
    X, y, groups = training_data(analyses)
    stacked = EdgeScorer(features=(*QUESTION_FEATURES, "pair_model"))
    p_stacked = cross_val_predict(stacked, X.assign(pair_model=pair_p), y, groups=groups,
                                  cv=GroupKFold(n_splits=folds), method="predict_proba")[:, 1]
    return PairModelReport(roc_auc_score(gold, pair_p), roc_auc_score(gold[docs], pair_p[docs]), int(docs.sum()),
                           roc_auc_score(gold, p_base), roc_auc_score(gold, p_stacked))
