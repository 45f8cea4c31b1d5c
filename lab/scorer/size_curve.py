"""The size curve: the labelled topics cut into topics of k questions and answered under folds grouped by the
original topic, for edge scorers and readers alone and fused."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.metrics import roc_auc_score

from causalgraph.analysis.analyse import TopicAnalysis
from causalgraph.data import question_score
from causalgraph.learn.crossval import cut_topic, fold_scorers
from causalgraph.learn.scorer import edge_scores
from causalgraph.readers.base import Judgement
from causalgraph.reason.solve import SolverParams, solve_analysis
from causalgraph.measure.fusion import READER_WEIGHTS, nested_choice, scores_by_weight

# None: whole; "test-shaped": resized_sets' held copies
SIZES: tuple[int | str | None, ...] = (1, 3, 5, 10, None, "test-shaped")


def size_name(k: int | str | None) -> str:
    return "whole" if k is None else str(k)


@dataclass(frozen=True)
class Held:
    """The held-out topics of one size (each the cut of an original topic) with the edge scores of the scorer
    that did not see their original topic."""

    topics: list[TopicAnalysis]
    edges: list[dict[tuple[int, int], float]]

    def questions(self):
        return [q for a in self.topics for q in a.topic.questions]

    def question_topics(self) -> np.ndarray:
        return np.array([q.topic_id for q in self.questions()])

    def none_offered(self) -> np.ndarray:
        return np.array([q.none_label is not None for q in self.questions()])


def cut_all(analyses: list[TopicAnalysis], k: int | None, seed: int) -> list[list[TopicAnalysis]]:
    """Every topic cut into topics of k questions (see crossval.cut_topic), per original topic."""
    return [cut_topic(a, k, seed) for a in analyses]


def held_out(cuts: list[list[TopicAnalysis]], scorers) -> Held:
    """The cut topics with the edge scores of their original topic's held-out scorer."""
    topics = [c for cs in cuts for c in cs]
    return Held(topics, [edge_scores(c.table, s) for cs, s in zip(cuts, scorers) for c in cs])


def question_scores(held: Held, params: SolverParams, readers=()) -> np.ndarray:
    """Per-question scores of the answer set program over the held-out topics."""
    out = []
    for a, e in zip(held.topics, held.edges):
        solution = solve_analysis(a, e, params=params, readers=readers)
        out += [question_score(solution.answers[q.qid], q.gold or frozenset()) for q in a.topic.questions]
    return np.array(out)


def option_auc(held: Held, none_offered: bool = False) -> float:
    """AUC of the edge scores of the real options (not the target itself) of the questions that offer None
    (`none_offered`) or do not."""
    gold, scores = [], []
    for a, e in zip(held.topics, held.edges):
        for q in a.topic.questions:
            if (q.none_label is not None) != none_offered:
                continue
            slots = a.graph.graph["questions"][q.qid]
            for label, event in slots.options.items():
                if event != slots.target and label != slots.none_label:
                    gold.append(label in (q.gold or ()))
                    scores.append(e[(event, slots.target)])
    return float(roc_auc_score(gold, scores)) if len(set(gold)) == 2 else float("nan")


def reader_alone(held: Held, judgements: dict[tuple[str, str], Judgement]) -> np.ndarray:
    """Per-question scores of the reader's own answers: the options it judges causes (P >= 0.5, or its most
    probable option when it gives none that high); 0 for a question it did not judge or answered with nothing."""
    by_question: dict[str, dict[str, Judgement]] = {}
    for (qid, label), j in judgements.items():
        by_question.setdefault(qid, {})[label] = j
    out = []
    for q in held.questions():
        judged = by_question.get(q.qid, {})
        if judged and all(j.probability is not None for j in judged.values()):
            probs = {l: float(j.probability or 0.0) for l, j in judged.items()}
            chosen = frozenset(l for l, p in probs.items()
                               if p >= 0.5) or frozenset([max(probs, key=probs.__getitem__)])
        else:
            chosen = frozenset(l for l, j in judged.items() if j.verdict)
        out.append(question_score(chosen, q.gold or frozenset()))
    return np.array(out)


@dataclass
class Row:
    """One line of the size curve: a mean per size, with what each outer fold chose where it chose."""

    name: str
    values: dict
    chosen: dict | None = None


def scorer_rows(name: str, analyses, cuts_by_size: dict, folds: int, make_scorer, extra, bias: int,
                progress=None) -> tuple[list[Row], dict]:
    """Score, score on the questions that do not offer None, and the option AUC on those questions, per size,
    for the scorer `make_scorer` trained on the topics and their `extra` copies in grouped folds. Returns the
    rows and the held-out topics by size (for the readers)."""
    scorers = fold_scorers(analyses, folds, make_scorer, extra)
    score, plain, auc = {}, {}, {}
    helds = {}
    for k, cuts in cuts_by_size.items():
        held = helds[k] = held_out(cuts, scorers)
        scores = question_scores(held, SolverParams(bias=bias))
        score[k] = scores.mean()
        plain[k] = scores[~held.none_offered()].mean()
        auc[k] = option_auc(held)
        if progress is not None:
            progress.update()
    rows = [Row(name, score), Row("  questions that do not offer None", plain),
            Row("  option AUC, questions that do not offer None", auc)]
    return rows, helds


def reader_rows(name: str, judgements: dict[tuple[str, str], Judgement], helds: dict, folds: int,
                bias: int) -> list[Row]:
    """On the questions the reader judged: the structure model alone, the reader alone, and both fused in the
    answer set program, the reader's weight chosen per outer fold (grouped by topic) from READER_WEIGHTS."""
    judged = {qid for qid, _ in judgements}
    structure, alone, fused, chosen = {}, {}, {}, {}
    for k, held in helds.items():
        keep = [i for i, a in enumerate(held.topics) if any(q.qid in judged for q in a.topic.questions)]
        part = Held([held.topics[i] for i in keep], [held.edges[i] for i in keep])
        mask = np.array([q.qid in judged for q in part.questions()])
        by_weight = {w: s[mask] for w, s in scores_by_weight(part.topics, part.edges, judgements, bias,
                                                              "reader", READER_WEIGHTS).items()}
        structure[k] = by_weight[0].mean()
        alone[k] = reader_alone(part, judgements)[mask].mean()
        topics = part.question_topics()[mask]
        outer = min(folds, len(np.unique(topics)))  # a reader may have judged the questions of few topics
        fused[k], chosen[k] = nested_choice(by_weight, topics, outer) if outer > 1 else (float("nan"), [])
    return [Row(f"{name}: structure alone on its {len(judged)} questions", structure),
            Row(f"{name}: reader alone", alone), Row(f"{name}: fused (weight chosen per outer fold)", fused, chosen)]


def format_curve(rows: list[Row], sizes) -> str:
    """The rows as a markdown table, one column per size, and below it what each outer fold chose."""
    lines = ["| questions per topic | " + " | ".join(size_name(k) for k in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    for row in rows:
        lines.append(f"| {row.name} | " + " | ".join(f"{row.values[k]:.4f}" for k in sizes) + " |")
    notes = [f"- {row.name.strip()}: " + "; ".join(f"{size_name(k)}: {row.chosen[k]}" for k in sizes)
             for row in rows if row.chosen]
    return "\n".join(lines + ([""] + ["Chosen per outer fold:"] + notes if notes else []))
