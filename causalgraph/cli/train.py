"""`causalgraph train`: fit the edge scorer on train + dev + sample and write it with a model card
(`--reader crossencoder`: train and measure the cross-encoder reader instead)."""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

from ..analysis.analyse import TopicAnalysis
from ..config import DEFAULT_ENCODER, DEFAULT_MODEL, PACKAGE_DIR
from ..data import data_files
from ..data.load import id_ranges
from ..experiments.inputs import describe_held, describe_shapes, labelled_analyses
from ..learn.crossval import (TRAIN_COPIES, TopicShape, bootstrap_interval, choose_bias, fit_scorer,
                              held_out_probabilities, nested_held_out_scores, resized_sets, size_aware_sets)
from ..graph.features import QUESTION_FEATURES, SIZE_FEATURES, STRUCTURE_FEATURES
from ..learn.scorer import EdgeScorer, dump_scorer
from ..run.output import check_outputs, write_files
from .common import cv_inputs, cv_parser, plural, positive, run_command
from .train_reader import crossencoder_main


def size_list(text: str) -> tuple[int, ...]:
    """--size-copies: comma-separated question counts, or 'none'."""
    if text.strip() == "none":
        return ()
    try:
        sizes = tuple(int(t) for t in text.split(",") if t.strip())
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"--size-copies takes positive integers or 'none', got {text!r}")
    return sizes


def scorer_kind(sizes: tuple[int, ...]):
    """The edge scorer to fit: size-aware (the size features too) when trained on copies of `sizes`."""
    return partial(EdgeScorer, features=STRUCTURE_FEATURES if sizes else QUESTION_FEATURES)


def training_sets(analyses: list[TopicAnalysis], shapes: list[TopicShape], sizes: tuple[int, ...]):
    """(training copies, held-out copies): cut to `shapes`, and with copies of `sizes` questions where given."""
    return size_aware_sets(analyses, shapes, sizes) if sizes else resized_sets(analyses, shapes)


def cv_report(analyses: list[TopicAnalysis], folds: int, shapes: list[TopicShape], sizes: tuple[int, ...] = ()) -> dict:
    """Edge AUC and nested grouped-CV AER scores, on whole held-out topics and, where `shapes` are given, on
    held-out topics cut to those shapes (training then also sees copies cut to them, and copies of `sizes`
    questions for a size-aware scorer)."""
    extra, held = training_sets(analyses, shapes, sizes)
    make_scorer = scorer_kind(sizes)
    gold, p = held_out_probabilities(analyses, folds, make_scorer, extra=extra)
    auc = roc_auc_score(gold, p)
    report = {"auc": auc, "n_pairs": len(gold),
              "n_pairs_with_docs": int(sum(len(a.table.pairs) for a in analyses if a.topic.documents)),
              "doc_topics": id_ranges(a.topic.topic_id for a in analyses if a.topic.documents) or "none"}
    for regime, copies in (("whole", None), ("resized", held)):
        if regime == "resized" and not shapes:
            continue
        result, biases = nested_held_out_scores(analyses, folds, make_scorer, extra=extra, held=copies)
        with_docs = np.isin(result.topics, [a.topic.topic_id for a in analyses if a.topic.documents])
        report[regime] = {"result": result, "interval": bootstrap_interval(result), "biases": biases,
                          "docs": float(result.scores[with_docs].mean())}
    report["extra"], report["held"] = extra, held
    return report


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


def size_note(sizes: tuple[int, ...]) -> str:
    if not sizes:
        return ""
    return (f"; and, for each size k of {', '.join(map(str, sizes))}, about as many copies of k questions as cover the "
            f"topic once, at that split's None share, so that the scorer (with the size features {', '.join(SIZE_FEATURES)}) "
            "learns topics from a question alone up")


def model_card(args: argparse.Namespace, scorer: EdgeScorer, report: dict, shapes: list[TopicShape], n_topics: int, size: int) -> str:
    return f"""# Edge scorer: P(E directly caused T)

- Model: scikit-learn HistGradientBoostingClassifier (max_iter={scorer.max_iter}, learning_rate={scorer.learning_rate},
  max_leaf_nodes={scorer.max_leaf_nodes}, random_state {scorer.random_state}) over the pair features
  {", ".join(scorer.features or ())}.
  Document evidence features are {"used" if set(scorer.features or ()) - set(STRUCTURE_FEATURES) else "not used: they did not raise grouped-CV accuracy, so `answer` does not read the documents"}.
- Precision bias chosen by grouped CV on all labelled topics: {scorer.bias} (log-odds x 100).
- Training pairs: the labelled topics whole, plus {TRAIN_COPIES if shapes else 0} copies of each cut to random subsets of
  questions with the shapes of the `{args.resize_to}` split's topics{f" ({describe_shapes(shapes)})" if shapes else ""}, since the
  structure features depend on how many questions a topic has and how many offer None{size_note(args.size_copies)}.
- Encoder for the similarity features: `{args.encoder}` (frozen).
- Data: every labelled question of `{args.data}` (train + dev + sample): {plural(n_topics, 'topic')}, {report['n_pairs']}
  distinct (cause, target) pairs; {report['n_pairs_with_docs']} of them in topics with documents ({report['doc_topics']}).
- The AER scores below are those of the whole answer set program in `rules/` at the chosen bias.
- Command: `python -m causalgraph.train --data {args.data} --folds {args.folds} --resize-to {args.resize_to} --size-copies {",".join(map(str, args.size_copies)) or "none"} --out {args.out}{" --force" if args.force else ""}`

{format_report(report, args.folds, shapes)}

- Size: {size / 1024:.1f} KiB.
"""


# The shipped scorer's copies of many sizes: none, since the size-aware scorer (--size-copies 1,2,3,5,8,13,21,
# crossval.SIZE_COPIES) lost 0.019 on whole held-out topics for at most 0.013 on small ones (BENCHMARKS.md, "Topic size").
SHIPPED_SIZES: tuple[int, ...] = ()


def build_parser():
    parser = cv_parser("train", __doc__, min_folds=3)  # nested: the inner CV needs 2
    parser.add_argument("--out", type=Path, help="where to write the edge scorer (its model card goes beside it, .md); "
                        "required: the shipped model inside the package is replaced only with --force. With --reader, "
                        "a folder, and without it the reader is only measured")
    parser.add_argument("--force", action="store_true",
                        help=f"let --out write inside the installed package, e.g. over the shipped {DEFAULT_MODEL.name}")
    parser.add_argument("--size-copies", type=size_list, default=SHIPPED_SIZES, metavar="SIZES",
                        help="train a size-aware scorer (with the size features) on copies of these many questions as "
                             f"well, e.g. 1,2,3; 'none' for the earlier scorer (default: {','.join(map(str, SHIPPED_SIZES)) or 'none'})")
    reader = parser.add_argument_group("the cross-encoder reader (--reader crossencoder)")
    reader.add_argument("--reader", choices=["crossencoder"], help="train this reader instead of the edge scorer")
    reader.add_argument("--base", default=DEFAULT_ENCODER, help="encoder to fine-tune: local path or hub name")
    reader.add_argument("--epochs", type=positive(int), default=3, help="fine-tuning epochs (default 3)")
    reader.add_argument("--seed", type=int, default=0, help="seed of the fine-tuning (default 0)")
    reader.add_argument("--no-evidence", dest="evidence", action="store_false", help="read the question text alone")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    given = [f"--{name.replace('_', '-')}" for name in ("base", "epochs", "seed")
             if getattr(args, name) != parser.get_default(name)] + ([] if args.evidence else ["--no-evidence"])
    if args.reader is None and given:
        parser.error(f"{given[0]} applies to --reader crossencoder only")
    inputs = cv_inputs(args)
    if inputs is None:
        return 2
    if args.reader is None and args.out is None:
        parser.error(f"give --out FILE for the new edge scorer (the shipped one, {DEFAULT_MODEL}, is replaced only "
                     "with --out naming it and --force)")
    if args.out is not None and args.out.resolve().is_relative_to(PACKAGE_DIR) and not args.force:
        parser.error(f"--out {args.out} is inside the installed package (the shipped model lives there); "
                     "add --force to write there")
    topics, shapes, _ = inputs
    if args.reader == "crossencoder":
        return crossencoder_main(args, topics, shapes)
    card = args.out.with_suffix(".md")
    try:
        check_outputs({"--out": args.out, "its model card": card}, data_files(args.data))
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    start = time.time()
    analyses = labelled_analyses(topics, args.encoder)
    report = cv_report(analyses, args.folds, shapes, args.size_copies)
    print(format_report(report, args.folds, shapes))
    extra, held = report["extra"], report["held"]
    make_scorer = scorer_kind(args.size_copies)
    bias = choose_bias(analyses, args.folds, make_scorer, extra=extra, held=held)
    scorer = fit_scorer(partial(make_scorer, bias=bias), analyses, extra)
    model = dump_scorer(scorer, args.encoder)
    write_files({args.out: model, card: model_card(args, scorer, report, shapes, len(topics), len(model))})
    print(f"bias {scorer.bias}; wrote {args.out} and {card} in {time.time() - start:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
