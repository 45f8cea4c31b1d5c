"""`python -m causalgraph.train`: fit the edge scorer on train + dev + sample and write it with a model card."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

from .cache import AnalysisCache, default_cache_dir
from .crossval import (HELD_COPIES, TRAIN_COPIES, TopicShape, bootstrap_interval, choose_bias, fold_scorers,
                       nested_held_out_scores, resized_sets)
from .data import DataError, load_labelled, load_split
from .embed import DEFAULT_ENCODER
from .pipeline import TopicAnalysis
from .scoring import FEATURES, STRUCTURE_FEATURES, EdgeScorer, load_scorer, save_scorer

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "edge_scorer.joblib"


def cv_parser(prog: str, doc: str, encoder: bool = True, bias: bool = False) -> argparse.ArgumentParser:
    """The options that the CV commands share: data, folds, the split to resize to, the encoder (unless
    `encoder` is False) and a fixed precision bias (where `bias` is True)."""
    parser = argparse.ArgumentParser(prog=prog, description=doc)
    parser.add_argument("--data", required=True, help="AER data folder (../shared/aer or the public layout)")
    parser.add_argument("--folds", type=int, default=5)
    if encoder:
        parser.add_argument("--encoder", default=DEFAULT_ENCODER, help="sentence-transformers path or hub name")
    parser.add_argument("--resize-to", default="test", help="split whose topic shapes (questions, None offers) the training and held-out copies are cut to; 'none' for whole topics only")
    if bias:
        parser.add_argument("--bias", type=int, help="precision bias (log-odds x 100); default: the shipped scorer's")
    return parser


def shipped_bias() -> int:
    """The precision bias that `train` chose for the shipped scorer."""
    return load_scorer(DEFAULT_MODEL)[0].bias_


def cv_inputs(args: argparse.Namespace) -> tuple[list, list[TopicShape]] | None:
    """The labelled topics and the target topic shapes, with `args.bias` (where the command has one) set to
    the shipped scorer's when not given; None, after printing the error, when the data cannot be read."""
    try:
        topics = load_labelled(args.data)
        shapes = target_shapes(args.data, None if args.resize_to == "none" else args.resize_to)
        if getattr(args, "bias", 0) is None:
            args.bias = shipped_bias()
    except (DataError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return None
    return topics, shapes


def labelled_analyses(topics: list, encoder: str) -> list[TopicAnalysis]:
    """The topics' analyses through the cache that `answer` uses, so reruns skip spaCy and the encoder."""
    cache = AnalysisCache.open(default_cache_dir(), encoder)
    return [cache.analyse(t)[0] for t in topics]


def target_shapes(data: str, split: str | None) -> list[TopicShape]:
    """The shape of each topic of the split to be answered, read from its questions (no answers needed)."""
    if split is None:
        return []
    return [TopicShape.of(t) for t in load_split(data, split)]


def describe_shapes(shapes: list[TopicShape]) -> str:
    """Range of topic sizes and the share of questions offering None, e.g. '8-48 questions, 37% ...'."""
    sizes = [s.questions for s in shapes]
    share = sum(s.none_offered for s in shapes) / max(sum(sizes), 1)
    return f"{min(sizes)}-{max(sizes)} questions, {share:.0%} of them offering None"


def cv_report(analyses: list[TopicAnalysis], folds: int, shapes: list[TopicShape]) -> dict:
    """Edge AUC and nested grouped-CV AER scores, on whole held-out topics and, where `shapes` are given, on
    held-out topics cut to those shapes (training then also sees copies cut to them)."""
    extra, held = resized_sets(analyses, shapes)
    models = fold_scorers(analyses, folds, extra=extra)
    gold = np.concatenate([a.gold() for a in analyses])
    auc = roc_auc_score(gold, np.concatenate([m.predict_proba(a.table) for a, m in zip(analyses, models)]))
    report = {"auc": auc, "n_pairs": len(gold),
              "n_pairs_with_docs": int(sum(len(a.table.pairs) for a in analyses if a.topic.documents))}
    for regime, copies in (("whole", None), ("resized", held)):
        if regime == "resized" and not shapes:
            continue
        result, biases = nested_held_out_scores(analyses, folds, extra=extra, held=copies)
        with_docs = np.isin(result.topics, [a.topic.topic_id for a in analyses if a.topic.documents])
        report[regime] = {"result": result, "interval": bootstrap_interval(result), "biases": biases,
                          "docs": float(result.scores[with_docs].mean())}
    report["extra"], report["held"] = extra, held
    return report


def describe_held(held: list[list[TopicAnalysis]], shapes: list[TopicShape]) -> str:
    """The held-out copies' shapes next to the answered split's (copies run short of None questions)."""
    copies = describe_shapes([TopicShape.of(c.topic) for cs in held for c in cs])
    return f"{HELD_COPIES} copies each, {copies}; the split's topics: {describe_shapes(shapes)}"


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
    lines.append(f"  pairs: {report['n_pairs']}, of which {report['n_pairs_with_docs']} in topics with documents (1-10)")
    return "\n".join(lines)


def model_card(args: argparse.Namespace, scorer: EdgeScorer, report: dict, shapes: list[TopicShape], n_topics: int, size: int) -> str:
    return f"""# Edge scorer: P(E directly caused T)

- Model: scikit-learn HistGradientBoostingClassifier (max_iter={scorer.max_iter}, learning_rate={scorer.learning_rate},
  max_leaf_nodes={scorer.max_leaf_nodes}, seed {scorer.seed}) over the pair features
  {", ".join(FEATURES if scorer.use_evidence else STRUCTURE_FEATURES)}.
  Document evidence features are {"used" if scorer.use_evidence else "computed (for explanations) but not used: they did not raise grouped-CV accuracy"}.
- Precision bias chosen by grouped CV on all labelled topics: {scorer.bias_} (log-odds x 100).
- Training pairs: the labelled topics whole, plus {TRAIN_COPIES if shapes else 0} copies of each cut to random subsets of
  questions with the shapes of the `{args.resize_to}` split's topics{f" ({describe_shapes(shapes)})" if shapes else ""}, since the
  structure features depend on how many questions a topic has and how many offer None.
- Encoder for the similarity features: `{args.encoder}` (frozen).
- Data: every labelled question of `{args.data}` (train + dev + sample): {n_topics} topics, {report['n_pairs']}
  distinct (cause, target) pairs; {report['n_pairs_with_docs']} of them in topics with documents (1-10).
- Command: `python -m causalgraph.train --data {args.data} --folds {args.folds} --resize-to {args.resize_to}`

{format_report(report, args.folds, shapes)}

- Size: {size / 1024:.1f} KiB.
"""


def main(argv: list[str] | None = None) -> int:
    parser = cv_parser("python -m causalgraph.train", __doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL)
    args = parser.parse_args(argv)
    inputs = cv_inputs(args)
    if inputs is None:
        return 2
    topics, shapes = inputs
    start = time.time()
    analyses = labelled_analyses(topics, args.encoder)
    report = cv_report(analyses, args.folds, shapes)
    print(format_report(report, args.folds, shapes))
    extra, held = report["extra"], report["held"]
    training = analyses + [c for cs in (extra or []) for c in cs]
    scorer = EdgeScorer().fit([a.table for a in training], [a.gold() for a in training])
    scorer.bias_ = choose_bias(analyses, args.folds, extra=extra, held=held)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_scorer(scorer, args.out, args.encoder)
    args.out.with_suffix(".md").write_text(model_card(args, scorer, report, shapes, len(topics), args.out.stat().st_size))
    print(f"bias {scorer.bias_}; wrote {args.out} and {args.out.with_suffix('.md')} in {time.time() - start:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
