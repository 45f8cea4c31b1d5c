"""The scorer of a user's own topics (`--priors none`), trained on user-style topics, without and with the directed
statements (causalgraph/evidence/statements.py): how often each statement is read for gold pairs and for the
others, and how many of the options stated as a cause are causes; then, per set, the option AUC (every candidate pair's
held-out probability against its gold), the AER score of the answers solved under priors none, and their shapes. Folds
leave one topic out over the tuning sets (default ../shared/user-train and ../shared/user-dev); the validation set
(default ../shared/user-dev-2) is scored by a scorer fitted on all tuning topics and never tunes anything. The precision
bias is chosen on the held-out answers of the first tuning set only (user-train), so the second (user-dev) is scored at
a bias it did not choose. The features are the shipped user-topic scorer's (learn/user.py). The last rows answer each
tuning topic at the bias chosen on the other tuning topics' held-out answers, as `train --user-topics` reports them. A
table then gives how the shipped features' scorer ranks each question's options, and the answers of the highest expected
score over its probabilities (a decision rule in place of the precision bias and the rules). A table reads the
statements as hard rules over those probabilities instead, and the next answers an option stated as the cause in one
sentence where None would be the fallback (stated_before_none); the last counts the options from another topic of the
set that the documents or the statements raise, as the answer's evidence line shows it, held out.

    python -m lab.user.user_scorer --cache-dir /tmp/user-cache
"""

from __future__ import annotations

import argparse
import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

import causalgraph as cg
from causalgraph.analysis.cache import AnalysisCache
from causalgraph.analysis.table import FEATURE_GROUPS
from causalgraph.config import DEFAULT_MODEL
from causalgraph.data.metric import question_score
from causalgraph.data.odds import logit
from causalgraph.evidence.statements import STATEMENT_FEATURES
from causalgraph.learn.scorer import edge_scores, evidence_effects, second_encoder
from causalgraph.learn.user import (BIASES, VERSUS_CANDIDATES, chosen_biases, fit, held_out_scorers, topic_scores,
                                   user_features)
from causalgraph.reason.explain import EFFECT_SHOWN
from causalgraph.reason.groups import PRIORS
from causalgraph.reason.solve import SolverParams, solve_analysis
from causalgraph.run.batch import scorer_for
from lab.common import SHARED, print_table, run_benchmark
from lab.user.user_topics import blank_counts, shape_cells, tally, topic_folders



def analyses(roots: list[Path], cache_dir: str | None, encoder: str | None = None) -> dict[str, list]:
    """Each set's topic analyses, read as `answer` reads them under priors none (twice, where the shipped scorer
    reads them twice); with `encoder`, read once with that encoder instead."""
    scorer, shipped = scorer_for(Path(DEFAULT_MODEL).resolve(), "none")
    second = None if encoder else second_encoder(scorer)
    encoder = encoder or shipped
    cache = AnalysisCache.open(cache_dir, encoder, second=second) if cache_dir else None
    found = {}
    for root in roots:
        topics = [cg.load_topics(folder)[0] for folder in topic_folders(root)]
        found[root.name] = [cache.analyse(t)[0] if cache else
                            cg.analysis.analyse.analyse_topic(t, encoder, second_encoder=second) for t in topics]
    return found


def sets_parser(doc: str) -> argparse.ArgumentParser:
    """The options of a benchmark over user-style sets: the tuning sets, the validation set and the cache."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tune", nargs="+", type=Path, default=[SHARED / "user-train", SHARED / "user-dev"])
    parser.add_argument("--validate", type=Path, default=SHARED / "user-dev-2")
    parser.add_argument("--cache-dir", help="the analysis cache (default: none)")
    return parser


def held_out(analyses: list, train: list[int], test: list[int], features: list[str]) -> list[dict]:
    """The probabilities of the `test` topics' pairs by the user-topic scorer (learn/user.py) over `features`,
    fitted on the `train` topics."""
    scorer = fit([analyses[i] for i in train], features=tuple(features))
    return [edge_scores(analyses[i].table, scorer) for i in test]


def option_probabilities(analysis, probabilities: dict, q) -> dict[str, float]:
    """Each real option's held-out probability of being a cause of the question's target (0 for the target
    itself)."""
    slots = analysis.graph.graph["questions"][q.qid]
    return {label: 0.0 if event == slots.target else probabilities[(event, slots.target)]
            for label, event in slots.options.items()}


def answer_shapes(analyses: list, probabilities: list[dict], biases: list[int]) -> str:
    """The answers' score and shapes (user_topics.shape_cells) over the topics, each solved under priors none from
    its pair probabilities at its bias."""
    without, none_prior = PRIORS["none"]
    counts = blank_counts()
    for analysis, p, bias in zip(analyses, probabilities, biases):
        solution = solve_analysis(analysis, p, without, SolverParams(bias=bias, none_prior=none_prior))
        for q in analysis.topic.questions:
            tally(counts, frozenset(solution.answers[q.qid]), q)
    return shape_cells(counts)


def option_auc(analyses: list, probabilities: list[dict]) -> float:
    """The option AUC of the topics' candidate pairs: each pair's probability against its gold."""
    return float(roc_auc_score(np.concatenate([a.gold() for a in analyses]),
                               np.concatenate([[p[k] for k in a.table.pairs]
                                               for a, p in zip(analyses, probabilities)])))


def expected_best(options: dict[str, float], none: str | None) -> frozenset[str]:
    """The answer of the highest expected AER score, the options' probabilities taken as independent: a set S of
    real options scores 1 where it is the gold and 0.5 where the gold holds more, so it expects
    P(S all causes) x (1 + P(no other option a cause)) / 2; None expects P(no option a cause)."""
    def expected(chosen: tuple[str, ...]) -> float:
        rest = math.prod(1 - p for label, p in options.items() if label not in chosen)
        return math.prod(options[label] for label in chosen) * (1 + rest) / 2
    subsets = [c for k in range(1, len(options) + 1) for c in itertools.combinations(sorted(options), k)]
    best = max(subsets, key=expected)
    if none is not None and math.prod(1 - p for p in options.values()) > expected(best):
        return frozenset({none})
    return frozenset(best)


def stated_options(analysis) -> tuple[int, int, int, int]:
    """The real options stated as a cause of their question's target (in a sentence or across two) and never as a
    consequence or as later: how many, how many of them are causes, in how many questions two or more are, and in
    how many of those all of them are causes."""
    frame, row = analysis.table.frame(), {p: i for i, p in enumerate(analysis.table.pairs)}
    count = causes = several = all_causes = 0
    for q in analysis.topic.questions:
        slots = analysis.graph.graph["questions"][q.qid]
        stated = []
        for label, event in slots.options.items():
            if event == slots.target:
                continue
            values = frame.iloc[row[(event, slots.target)]]
            if (values["stated_cause"] > 0 or values["stated_cause_across"] > 0) and not (
                    values["stated_consequence"] > 0 or values["stated_after"] > 0):
                stated.append(label in q.gold)
        count, causes = count + len(stated), causes + sum(stated)
        several += len(stated) > 1
        all_causes += len(stated) > 1 and all(stated)
    return count, causes, several, all_causes


# What stands against an option stated as a cause: the documents state it as a consequence or as later, date it
# after the target, or deny that it caused it.
AGAINST = ("stated_consequence", "stated_consequence_across", "stated_after", "dated_after", "stated_not_cause")


def stated_before_none(analysis, probabilities: dict, bias: int) -> dict:
    """The probabilities with None's fallback read as the issue's design asks: in a question that offers None and
    whose real options all fall short of the bias, an option stated as the target's cause in one sentence, with
    nothing against it, is raised to just above the bias (the best such option), so that it is answered, not
    None."""
    frame, row = analysis.table.frame(), {p: i for i, p in enumerate(analysis.table.pairs)}
    raised = dict(probabilities)
    above = 1 / (1 + math.exp(-(bias + 1) / 100))
    for q in analysis.topic.questions:
        slots = analysis.graph.graph["questions"][q.qid]
        pairs = [(event, slots.target) for event in slots.options.values() if event != slots.target]
        if q.none_label is None or any(100 * logit(probabilities[p], 1e-4) > bias for p in pairs):
            continue
        stated = [p for p in pairs if (values := frame.iloc[row[p]])["stated_cause"] > 0
                  and not (values[list(AGAINST)] > 0).any()]
        if stated:
            raised[max(stated, key=probabilities.get)] = above
    return raised


def foreign_pairs(analyses: list) -> list[set[tuple[int, int]]]:
    """Per topic of a set, its candidate pairs whose cause is an event of another topic of the set: that topic's
    target, or offered there more often than here (as tests/test_user_slow.py tells them)."""
    targets: dict[str, int] = {}
    offered: dict[str, dict[int, int]] = {}
    for i, a in enumerate(analyses):
        for q in a.topic.questions:
            slots = a.graph.graph["questions"][q.qid]
            targets.setdefault(a.graph.nodes[slots.target]["text"], i)
            for event in (slots.target, *slots.options.values()):
                counts = offered.setdefault(a.graph.nodes[event]["text"], {})
                counts[i] = counts.get(i, 0) + 1
    found = []
    for i, a in enumerate(analyses):
        pairs = set()
        for q in a.topic.questions:
            slots = a.graph.graph["questions"][q.qid]
            for event in slots.options.values():
                text = a.graph.nodes[event]["text"]
                counts = sorted(offered[text].values(), reverse=True)
                home = max(offered[text], key=offered[text].get) if len(counts) == 1 or counts[0] > counts[1] else None
                if event != slots.target and (targets.get(text, i) != i or home not in (None, i)):
                    pairs.add((event, slots.target))
        found.append(pairs)
    return found


def documents_moves(analysis, scorer, foreign: set, versus: tuple[str, ...]) -> np.ndarray:
    """Per candidate pair: (gold, raised by the documents, lowered by them, an option from another topic raised by
    the documents or the statements), each by EFFECT_SHOWN or more, with the groups `versus` compared with the
    topic's candidates (learn.scorer.evidence_effects)."""
    effects = evidence_effects(analysis.table, scorer, edge_scores(analysis.table, scorer), versus)
    return np.array([(gold, effects[p].get("documents", 0.0) >= EFFECT_SHOWN,
                      effects[p].get("documents", 0.0) <= -EFFECT_SHOWN,
                      p in foreign and any(effects[p].get(g, 0.0) >= EFFECT_SHOWN for g in ("documents", "statements")))
                     for p, gold in zip(analysis.table.pairs, analysis.gold())], dtype=bool).reshape(-1, 4)


def ranking(analysis, probabilities: dict) -> tuple[int, int, list[float]]:
    """Over the questions with a real cause: how many, in how many the most probable option is one, and each
    such question's AUC of its options (where its options are not all causes)."""
    count = top = 0
    aucs = []
    for q in analysis.topic.questions:
        options = option_probabilities(analysis, probabilities, q)
        gold = [label in q.gold for label in options]
        if any(gold):
            count += 1
            top += max(options, key=options.get) in q.gold
            if not all(gold):
                aucs.append(roc_auc_score(gold, list(options.values())))
    return count, top, aucs


def main() -> int:
    args = sets_parser(__doc__).parse_args()
    roots = [*args.tune, args.validate]
    sets = analyses(roots, args.cache_dir)
    topics = [(root.name, a) for root in roots for a in sets[root.name]]
    gold = [a.gold() for _, a in topics]

    stated = pd.concat([a.table.frame() for _, a in topics])[list(STATEMENT_FEATURES)] > 0
    labels = np.concatenate(gold)
    print_table("statement read", ["gold pairs", "other pairs"],
                [(f, [float(stated[f][labels].mean()), float(stated[f][~labels].mean())]) for f in STATEMENT_FEATURES])

    print("\n| set | options stated as a cause (not as a consequence or later) | of them causes | questions with two "
          "or more | all of them causes |")
    print("|---|---|---|---|---|")
    for root in roots:
        count, causes, several, all_causes = np.sum([stated_options(a) for name, a in topics if name == root.name],
                                                    axis=0)
        print(f"| {root.name} | {count} | {causes} ({causes / count:.2f}) | {several} | {all_causes} |")
    print()

    base = [f for f in user_features() if f not in FEATURE_GROUPS["statements"]]
    tuning = [i for i, (name, _) in enumerate(topics) if name != args.validate.name]
    validation = [i for i, (name, _) in enumerate(topics) if name == args.validate.name]
    print("| scorer | set | AUC | questions | score | several labels (gold has several) | None chosen where right | "
          "None chosen where wrong | answers with a wrong label | of them, with several labels |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, features in (("trained on user-style topics", base),
                            ("the same + statements", base + list(FEATURE_GROUPS["statements"]))):
        analysed = [a for _, a in topics]
        pairs = {i: held_out(analysed, [j for j in tuning if j != i], [i], features)[0] for i in tuning}
        pairs.update(zip(validation, held_out(analysed, tuning, validation, features)))
        first = [i for i in tuning if topics[i][0] == args.tune[0].name]
        bias = max(BIASES, key=lambda b: sum(s for i in first for s in topic_scores(topics[i][1], pairs[i], b)))
        # as `train --user-topics` reports it: each tuning topic at the bias chosen on the other tuning topics
        per_topic, everything = chosen_biases({b: [sum(topic_scores(topics[i][1], pairs[i], b)) for i in tuning]
                                               for b in BIASES})
        nested = dict(zip(tuning, per_topic))
        for regime, biases in ((f"bias {bias}", dict.fromkeys(range(len(topics)), bias)),
                               ("bias chosen on the other tuning topics", nested)):
            for root in roots:
                ids = [i for i, (name, _) in enumerate(topics) if name == root.name and i in biases]
                if not ids:
                    continue
                part, probabilities = [topics[i][1] for i in ids], [pairs[i] for i in ids]
                print(f"| {label} ({regime}) | {root.name} | {option_auc(part, probabilities):.4f} | "
                      f"{answer_shapes(part, probabilities, [biases[i] for i in ids])} |", flush=True)
    # how the last scorer ranks each question's options, and the answers of the highest expected score over them
    print("\n| set | questions with a real cause | its most probable option a cause | mean AUC within a question | "
          "answers of the highest expected score | several labels (gold has several) |")
    print("|---|---|---|---|---|---|")
    for root in roots:
        ids = [i for i, (name, _) in enumerate(topics) if name == root.name]
        ranked = [ranking(topics[i][1], pairs[i]) for i in ids]
        count, top, aucs = sum(r[0] for r in ranked), sum(r[1] for r in ranked), [a for r in ranked for a in r[2]]
        answers = [(expected_best(option_probabilities(topics[i][1], pairs[i], q), q.none_label), q)
                   for i in ids for q in topics[i][1].topic.questions]
        several = sum(len(a) > 1 and len(q.gold) > 1 for a, q in answers)
        print(f"| {root.name} | {count} | {top} ({top / count:.3f}) | {np.mean(aucs):.3f} | "
              f"{np.mean([question_score(a, q.gold) for a, q in answers]):.4f} | "
              f"{several} of {sum(len(q.gold) > 1 for _, q in answers)} |", flush=True)
    # the statements read as rules over the last scorer's probabilities: an option stated as a consequence (or as
    # later) and never as a cause is ruled out (its probability set to 0.01); the tuning topics at the bias chosen on
    # the others, the validation set at the bias chosen on all tuning topics
    biases = {**nested, **dict.fromkeys(validation, everything)}
    print("\n| statements as rules | " + " | ".join(root.name for root in roots) + " |")
    print("|---|" + "---|" * len(roots))
    for rule, against in (("none (the scorer alone)", ()),
                          ("a stated consequence is ruled out", ("stated_consequence",)),
                          ("the same, across sentences too", ("stated_consequence", "stated_consequence_across")),
                          ("a stated consequence or later event is ruled out", ("stated_consequence", "stated_after"))):
        cells = []
        for root in roots:
            total = count = 0
            for i in (i for i, (name, _) in enumerate(topics) if name == root.name):
                frame = topics[i][1].table.frame()
                out = (frame[list(against)].gt(0).any(axis=1)
                       & frame[["stated_cause", "stated_cause_across"]].eq(0).all(axis=1)
                       if against else pd.Series(False, index=frame.index))
                probs = {p: 0.01 if ruled else pairs[i][p] for p, ruled in zip(topics[i][1].table.pairs, out)}
                scores = topic_scores(topics[i][1], probs, biases[i])
                total, count = total + sum(scores), count + len(scores)
            cells.append(f"{total / count:.4f}")
        print(f"| {rule} | " + " | ".join(cells) + " |", flush=True)
    cells = []
    for root in roots:
        ids = [i for i, (name, _) in enumerate(topics) if name == root.name]
        raised = [stated_before_none(topics[i][1], pairs[i], biases[i]) for i in ids]
        cells.append(answer_shapes([topics[i][1] for i in ids], raised, [biases[i] for i in ids]))
    print("\n| set | score | several labels (gold has several) | None chosen where right | None chosen where wrong | "
          "answers with a wrong label | of them, with several labels |\n|---|---|---|---|---|---|---|")
    for root, cell in zip(roots, cells):
        print(f"| {root.name}, None only where no option is stated as a cause in one sentence (with nothing against "
              f"it) | {cell.split(' | ', 1)[1]} |", flush=True)
    # what the documents and the statements contribute to an option from another topic of the set (as the answer's
    # evidence line shows it), by the shipped features' scorer held out as above
    tuning_scorers = held_out_scorers([a for name, a in topics if name != args.validate.name])
    validation_scorer = fit([a for name, a in topics if name != args.validate.name])
    scorers = iter(tuning_scorers)
    print("\n| set | options from another topic | raised by the documents or statements: documents blanked | "
          "documents compared with the topic's candidates (shipped) | gold causes the documents raise: blanked / "
          "compared | other options they raise | other options they lower |")
    print("|---|---|---|---|---|---|---|")
    for root in roots:
        ids = [i for i, (name, _) in enumerate(topics) if name == root.name]
        held = [validation_scorer if root == args.validate else next(scorers) for _ in ids]
        foreign = foreign_pairs([topics[i][1] for i in ids])
        blanked, compared = (np.concatenate([documents_moves(topics[i][1], s, f, versus)
                                             for i, s, f in zip(ids, held, foreign)])
                             for versus in ((), VERSUS_CANDIDATES))
        gold = blanked[:, 0]

        def share(rows: np.ndarray, column: int, where: np.ndarray) -> str:
            return f"{rows[where, column].mean():.2f}"
        print(f"| {root.name} | {sum(map(len, foreign))} | {blanked[:, 3].sum()} | {compared[:, 3].sum()} | "
              f"{share(blanked, 1, gold)} / {share(compared, 1, gold)} | {share(blanked, 1, ~gold)} / "
              f"{share(compared, 1, ~gold)} | {share(blanked, 2, ~gold)} / {share(compared, 2, ~gold)} |", flush=True)
    return 0


if __name__ == "__main__":
    run_benchmark(main)
