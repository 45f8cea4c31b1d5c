"""The cross-encoder reader measured with grouped-by-topic CV: fine-tuned anew in every fold, its option AUC on
the held-out topics, its score alone, and the structure model fused with it inside the answer set program."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold

from ..data import question_score
from ..learn.crossval import held_out_regimes
from ..readers.base import Judgement
from ..readers.crossencoder import OptionInput, PairModel, distinct_examples
from .fusion import nested_choice, question_topics, scores_by_weight


def fit_reader(inputs: list[list[OptionInput]], base: str, epochs: int, seed: int = 0, progress: str = "") -> PairModel:
    """The pair model fine-tuned from `base` on the distinct examples of these topics' options, class-weighted."""
    examples = distinct_examples([i for topic in inputs for i in topic])
    return PairModel(base, seed=seed).fit(examples, epochs=epochs, class_weight=True, progress=progress)


def held_out_judgements(inputs: list[list[OptionInput]], topic_ids: list[int], folds: int, base: str, epochs: int,
                        seed: int = 0) -> tuple[dict[tuple[str, str], Judgement], float]:
    """Each topic's options judged by the reader fine-tuned on the other folds' topics, and the option AUC."""
    ids = np.array(topic_ids)
    judgements: dict[tuple[str, str], Judgement] = {}
    for k, (train, test) in enumerate(GroupKFold(n_splits=folds).split(ids, groups=ids)):
        model = fit_reader([inputs[i] for i in train], base, epochs, seed, f"fold {k + 1}/{folds}")
        for i in test:
            p = model.predict_proba([x.example for x in inputs[i]])
            judgements.update({(x.qid, x.label): Judgement(probability=float(v)) for x, v in zip(inputs[i], p)})
    flat = [x for topic in inputs for x in topic]
    auc = roc_auc_score([x.example.label for x in flat], [judgements[(x.qid, x.label)].probability for x in flat])
    return judgements, float(auc)


def reader_alone(scored, judgements: dict[tuple[str, str], Judgement]) -> float:
    """The reader's own score: the options it gives P >= 0.5, or its most probable one when it gives none."""
    by_question: dict[str, dict[str, float]] = {}
    for (qid, label), j in judgements.items():
        if j.probability is not None:  # every judgement of the cross-encoder is one
            by_question.setdefault(qid, {})[label] = j.probability
    scores = []
    for a in scored:
        for q in a.topic.questions:
            probs = by_question.get(q.qid, {})
            chosen = frozenset(label for label, p in probs.items() if p >= 0.5) or frozenset(
                [max(probs, key=probs.__getitem__)] if probs else [])
            scores.append(question_score(chosen, q.gold))
    return float(np.mean(scores))


def fusion_rows(analyses, models, held, judgements: dict[tuple[str, str], Judgement], bias: int,
                folds: int) -> Iterator[tuple[str, float, float, float, list]]:
    """Per regime (see crossval.held_out_regimes), as it is measured: the structure model's held-out score, the
    reader's alone, the fused score with the weight chosen per outer fold, and the weights chosen."""
    for regime, scored, edges in held_out_regimes(analyses, models, held):
        by_weight = scores_by_weight(scored, edges, judgements, bias, "crossencoder")
        fused, chosen = nested_choice(by_weight, question_topics(scored), folds)
        yield regime, float(by_weight[0].mean()), reader_alone(scored, judgements), fused, chosen
