"""`python -m causalgraph.train`: fit the edge scorer on train + dev + sample and write it with a model card
(`--reader crossencoder`: train and measure the cross-encoder reader instead)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

from ..analysis.analyse import TopicAnalysis
from ..config import DEFAULT_ENCODER, DEFAULT_MODEL
from ..learn.crossval import (TRAIN_COPIES, TopicShape, bootstrap_interval, choose_bias, fit_scorer,
                              held_out_probabilities, nested_held_out_scores, resized_sets)
from ..graph.features import STRUCTURE_FEATURES
from ..learn.scorer import EdgeScorer, dump_scorer
from ..run.output import check_outputs, write_files
from .common import (cv_inputs, cv_parser, data_files, describe_held, describe_shapes, labelled_analyses, positive,
                     run_command)
from .train_reader import crossencoder_main


def cv_report(analyses: list[TopicAnalysis], folds: int, shapes: list[TopicShape]) -> dict:
    """Edge AUC and nested grouped-CV AER scores, on whole held-out topics and, where `shapes` are given, on
    held-out topics cut to those shapes (training then also sees copies cut to them)."""
    extra, held = resized_sets(analyses, shapes)
    gold, p = held_out_probabilities(analyses, folds, extra=extra)
    auc = roc_auc_score(gold, p)
    report = {"auc": auc, "n_pairs": len(gold),
              "n_pairs_with_docs": int(sum(len(a.table.pairs) for a in analyses if a.topic.documents)),
              "doc_topics": topic_ranges(a.topic.topic_id for a in analyses if a.topic.documents)}
    for regime, copies in (("whole", None), ("resized", held)):
        if regime == "resized" and not shapes:
            continue
        result, biases = nested_held_out_scores(analyses, folds, extra=extra, held=copies)
        with_docs = np.isin(result.topics, [a.topic.topic_id for a in analyses if a.topic.documents])
        report[regime] = {"result": result, "interval": bootstrap_interval(result), "biases": biases,
                          "docs": float(result.scores[with_docs].mean())}
    report["extra"], report["held"] = extra, held
    return report


def topic_ranges(ids) -> str:
    """Topic ids as ranges, e.g. '1-10, 37'."""
    ids, spans = sorted(set(ids)), []
    for i in ids:
        if spans and i == spans[-1][1] + 1:
            spans[-1][1] = i
        else:
            spans.append([i, i])
    return ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in spans) or "none"


def format_report(report: dict, folds: int, shapes: list[TopicShape]) -> str:
    lines = [f"grouped {folds}-fold CV, the precision bias chosen by an inner CV in each fold;"
             + (f" training adds {TRAIN_COPIES} copies of each topic cut to the answered split's topic shapes" if shapes else ""),
             f"  edge AUC (whole held-out topics) {report['auc']:.3f}"]
    names = {"whole": "whole held-out topics"}
    if shapes:
        names["resized"] = f"held-out topics cut to the answered split's shapes ({describe_held(report['held'], shapes)})"
    for regime in ("whole", "resized"):
        if regime in report:
            r = report[regime]
            lines.append(f"  {names[regime]}: AER score {r['result'].mean:.4f} over {len(r['result'].scores)} questions "
                         f"(95% topic-bootstrap CI {r['interval'][0]:.3f}-{r['interval'][1]:.3f}; topics with documents "
                         f"{r['docs']:.4f}; biases {r['biases']})")
    lines.append(f"  pairs: {report['n_pairs']}, of which {report['n_pairs_with_docs']} in topics with documents ({report['doc_topics']})")
    return "\n".join(lines)


def model_card(args: argparse.Namespace, scorer: EdgeScorer, report: dict, shapes: list[TopicShape], n_topics: int, size: int) -> str:
    return f"""# Edge scorer: P(E directly caused T)

- Model: scikit-learn HistGradientBoostingClassifier (max_iter={scorer.max_iter}, learning_rate={scorer.learning_rate},
  max_leaf_nodes={scorer.max_leaf_nodes}, random_state {scorer.random_state}) over the pair features
  {", ".join(scorer.features)}.
  Document evidence features are {"used" if set(scorer.features) - set(STRUCTURE_FEATURES) else "not used: they did not raise grouped-CV accuracy, so `answer` does not read the documents"}.
- Precision bias chosen by grouped CV on all labelled topics: {scorer.bias} (log-odds x 100).
- Training pairs: the labelled topics whole, plus {TRAIN_COPIES if shapes else 0} copies of each cut to random subsets of
  questions with the shapes of the `{args.resize_to}` split's topics{f" ({describe_shapes(shapes)})" if shapes else ""}, since the
  structure features depend on how many questions a topic has and how many offer None.
- Encoder for the similarity features: `{args.encoder}` (frozen).
- Data: every labelled question of `{args.data}` (train + dev + sample): {n_topics} topics, {report['n_pairs']}
  distinct (cause, target) pairs; {report['n_pairs_with_docs']} of them in topics with documents ({report['doc_topics']}).
- The AER scores below are those of the whole answer set program in `rules/` at the chosen bias.
- Command: `python -m causalgraph.train --data {args.data} --folds {args.folds} --resize-to {args.resize_to}`

{format_report(report, args.folds, shapes)}

- Size: {size / 1024:.1f} KiB.
"""


def main(argv: list[str] | None = None) -> int:
    parser = cv_parser("python -m causalgraph.train", __doc__, min_folds=3)  # nested: the inner CV needs 2
    parser.add_argument("--out", type=Path, help=f"where to write the model (default {DEFAULT_MODEL}); with --reader, "
                        "a folder, and without it the reader is only measured")
    reader = parser.add_argument_group("the cross-encoder reader (--reader crossencoder)")
    reader.add_argument("--reader", choices=["crossencoder"], help="train this reader instead of the edge scorer")
    reader.add_argument("--base", default=DEFAULT_ENCODER, help="encoder to fine-tune: local path or hub name")
    reader.add_argument("--epochs", type=positive(int), default=3)
    reader.add_argument("--seed", type=int, default=0)
    reader.add_argument("--no-evidence", dest="evidence", action="store_false", help="read the question text alone")
    args = parser.parse_args(argv)
    given = [f"--{name.replace('_', '-')}" for name in ("base", "epochs", "seed")
             if getattr(args, name) != parser.get_default(name)] + ([] if args.evidence else ["--no-evidence"])
    if args.reader is None and given:
        parser.error(f"{given[0]} applies to --reader crossencoder only")
    inputs = cv_inputs(args)
    if inputs is None:
        return 2
    topics, shapes = inputs
    if args.reader == "crossencoder":
        return crossencoder_main(args, topics, shapes)
    args.out = args.out or DEFAULT_MODEL
    card = args.out.with_suffix(".md")
    try:
        check_outputs({"--out": args.out, "its model card": card}, data_files(args.data))
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    start = time.time()
    analyses = labelled_analyses(topics, args.encoder)
    report = cv_report(analyses, args.folds, shapes)
    print(format_report(report, args.folds, shapes))
    extra, held = report["extra"], report["held"]
    bias = choose_bias(analyses, args.folds, extra=extra, held=held)
    scorer = fit_scorer(lambda: EdgeScorer(bias=bias), analyses, extra)
    model = dump_scorer(scorer, args.encoder)
    write_files({args.out: model, card: model_card(args, scorer, report, shapes, len(topics), len(model))})
    print(f"bias {scorer.bias}; wrote {args.out} and {card} in {time.time() - start:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
