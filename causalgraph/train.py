"""`python -m causalgraph.train`: fit the edge scorer on train + dev + sample and write it with a model card."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

from .crossval import (HELD_COPIES, TRAIN_COPIES, bootstrap_interval, choose_bias, fold_scorers,
                       nested_held_out_scores, resized_sets)
from .data import DataError, load_labelled, load_split
from .embed import DEFAULT_ENCODER
from .pipeline import TopicAnalysis, analyse_topic
from .scoring import FEATURES, STRUCTURE_FEATURES, EdgeScorer, save_scorer

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "edge_scorer.joblib"


def cv_parser(prog: str, doc: str) -> argparse.ArgumentParser:
    """The options that train and ablation share: data, folds, encoder, and the split to resize to."""
    parser = argparse.ArgumentParser(prog=prog, description=doc)
    parser.add_argument("--data", required=True, help="AER data folder (../shared/aer or the public layout)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--encoder", default=DEFAULT_ENCODER, help="sentence-transformers path or hub name")
    parser.add_argument("--resize-to", default="test", help="split whose topic sizes the training and held-out copies are cut to; 'none' for whole topics only")
    return parser


def cv_inputs(args: argparse.Namespace) -> tuple[list, list[int]]:
    """The labelled topics and the target topic sizes; DataError or OSError when the data cannot be read."""
    return load_labelled(args.data), target_sizes(args.data, None if args.resize_to == "none" else args.resize_to)


def target_sizes(data: str, split: str | None) -> list[int]:
    """The number of questions of each topic of the split to be answered (its questions only, no answers)."""
    if split is None:
        return []
    return [len(t.questions) for t in load_split(data, split)]


def cv_report(analyses: list[TopicAnalysis], folds: int, sizes: list[int]) -> dict:
    """Edge AUC and nested grouped-CV AER scores, on whole held-out topics and, where `sizes` are given, on
    held-out topics cut to those sizes (training then also sees copies cut to them)."""
    extra, held = resized_sets(analyses, sizes)
    models = fold_scorers(analyses, folds, extra=extra)
    gold = np.concatenate([a.gold() for a in analyses])
    auc = roc_auc_score(gold, np.concatenate([m.predict_proba(a.table) for a, m in zip(analyses, models)]))
    report = {"auc": auc, "n_pairs": len(gold),
              "n_pairs_with_docs": int(sum(len(a.table.pairs) for a in analyses if a.topic.documents))}
    for regime, copies in (("whole", None), ("resized", held)):
        if regime == "resized" and not sizes:
            continue
        result, biases = nested_held_out_scores(analyses, folds, extra=extra, held=copies)
        with_docs = np.isin(result.topics, [a.topic.topic_id for a in analyses if a.topic.documents])
        report[regime] = {"result": result, "interval": bootstrap_interval(result), "biases": biases,
                          "docs": float(result.scores[with_docs].mean())}
    report["extra"], report["held"] = extra, held
    return report


def format_report(report: dict, folds: int, sizes: list[int]) -> str:
    lines = [f"grouped {folds}-fold CV, the precision bias chosen by an inner CV in each fold;"
             + (f" training adds {TRAIN_COPIES} copies of each topic cut to the answered split's topic sizes" if sizes else ""),
             f"  edge AUC (whole held-out topics) {report['auc']:.3f}"]
    names = {"whole": "whole held-out topics", "resized": f"held-out topics cut to the answered split's sizes ({HELD_COPIES} copies each, {min(sizes or [0])}-{max(sizes or [0])} questions)"}
    for regime in ("whole", "resized"):
        if regime in report:
            r = report[regime]
            lines.append(f"  {names[regime]}: AER score {r['result'].mean:.4f} over {len(r['result'].scores)} questions "
                         f"(95% topic-bootstrap CI {r['interval'][0]:.3f}-{r['interval'][1]:.3f}; topics with documents "
                         f"{r['docs']:.4f}; biases {r['biases']})")
    lines.append(f"  pairs: {report['n_pairs']}, of which {report['n_pairs_with_docs']} in topics with documents (1-10)")
    return "\n".join(lines)


def model_card(args: argparse.Namespace, scorer: EdgeScorer, report: dict, sizes: list[int], n_topics: int, size: int) -> str:
    return f"""# Edge scorer: P(E directly caused T)

- Model: scikit-learn HistGradientBoostingClassifier (max_iter={scorer.max_iter}, learning_rate={scorer.learning_rate},
  max_leaf_nodes={scorer.max_leaf_nodes}, seed {scorer.seed}) over the pair features
  {", ".join(FEATURES if scorer.use_evidence else STRUCTURE_FEATURES)}.
  Document evidence features are {"used" if scorer.use_evidence else "computed (for explanations) but not used: they did not raise grouped-CV accuracy"}.
- Precision bias chosen by grouped CV on all labelled topics: {scorer.bias_} (log-odds x 100).
- Training pairs: the labelled topics whole, plus {TRAIN_COPIES if sizes else 0} copies of each cut to random subsets of
  questions with the sizes of the `{args.resize_to}` split's topics ({min(sizes or [0])}-{max(sizes or [0])} questions), since the
  structure features depend on how many questions a topic has.
- Encoder for the similarity features: `{args.encoder}` (frozen).
- Data: every labelled question of `{args.data}` (train + dev + sample): {n_topics} topics, {report['n_pairs']}
  distinct (cause, target) pairs; {report['n_pairs_with_docs']} of them in topics with documents (1-10).
- Command: `python -m causalgraph.train --data {args.data} --folds {args.folds} --resize-to {args.resize_to}`

{format_report(report, args.folds, sizes)}

- Size: {size / 1024:.1f} KiB.
"""


def main(argv: list[str] | None = None) -> int:
    parser = cv_parser("python -m causalgraph.train", __doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL)
    args = parser.parse_args(argv)
    try:
        topics, sizes = cv_inputs(args)
    except (DataError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    start = time.time()
    analyses = [analyse_topic(t, args.encoder) for t in topics]
    report = cv_report(analyses, args.folds, sizes)
    print(format_report(report, args.folds, sizes))
    extra, held = report["extra"], report["held"]
    training = analyses + [c for cs in (extra or []) for c in cs]
    scorer = EdgeScorer().fit([a.table for a in training], [a.gold() for a in training])
    scorer.bias_ = choose_bias(analyses, args.folds, extra=extra, held=held)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_scorer(scorer, args.out, args.encoder)
    args.out.with_suffix(".md").write_text(model_card(args, scorer, report, sizes, len(topics), args.out.stat().st_size))
    print(f"bias {scorer.bias_}; wrote {args.out} and {args.out.with_suffix('.md')} in {time.time() - start:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
