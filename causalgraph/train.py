"""`python -m causalgraph.train`: fit the edge scorer on train + dev + sample and write it with a model card."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

from .crossval import FoldResult, bootstrap_interval, choose_bias, fold_scorers, nested_held_out_scores
from .data import DataError, load_labelled
from .embed import DEFAULT_ENCODER
from .pipeline import TopicAnalysis, analyse_topic
from .scoring import FEATURES, STRUCTURE_FEATURES, EdgeScorer, save_scorer

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "edge_scorer.joblib"


def cv_report(analyses: list[TopicAnalysis], folds: int) -> dict:
    """Edge AUC and nested grouped-CV AER scores: overall, and for the topics that have documents."""
    models = fold_scorers(analyses, folds)
    gold = np.concatenate([a.gold() for a in analyses])
    auc = roc_auc_score(gold, np.concatenate([m.predict_proba(a.table) for a, m in zip(analyses, models)]))
    result, biases = nested_held_out_scores(analyses, folds)
    with_docs = np.isin(result.topics, [a.topic.topic_id for a in analyses if a.topic.documents])
    docs = FoldResult("with documents", result.scores[with_docs], result.topics[with_docs])
    return {"auc": auc, "result": result, "interval": bootstrap_interval(result), "biases": biases,
            "docs": docs, "n_pairs": len(gold), "n_pairs_with_docs": int(sum(len(a.table.pairs) for a in analyses if a.topic.documents))}


def format_report(report: dict, folds: int) -> str:
    r, d = report["result"], report["docs"]
    return (f"grouped {folds}-fold CV (bias chosen by an inner CV per fold: {report['biases']}):\n"
            f"  edge AUC {report['auc']:.3f}\n"
            f"  AER score {r.mean:.4f} over {len(r.scores)} questions (95% topic-bootstrap CI "
            f"{report['interval'][0]:.3f}-{report['interval'][1]:.3f})\n"
            f"  topics with documents (1-10): {d.mean:.4f} over {len(d.scores)} questions\n"
            f"  pairs: {report['n_pairs']}, of which {report['n_pairs_with_docs']} in topics with documents")


def model_card(args: argparse.Namespace, scorer: EdgeScorer, report: dict, n_topics: int, size: int) -> str:
    return f"""# Edge scorer: P(E directly caused T)

- Model: scikit-learn HistGradientBoostingClassifier (max_iter={scorer.max_iter}, learning_rate={scorer.learning_rate},
  max_leaf_nodes={scorer.max_leaf_nodes}, seed {scorer.seed}) over the pair features
  {", ".join(FEATURES if scorer.use_evidence else STRUCTURE_FEATURES)}.
  Document evidence features are {"used" if scorer.use_evidence else "computed (for explanations) but not used: they did not raise grouped-CV accuracy"}.
- Precision bias chosen by grouped CV on all labelled topics: {scorer.bias_} (log-odds x 100).
- Encoder for the similarity features: `{args.encoder}` (frozen).
- Data: every labelled question of `{args.data}` (train + dev + sample): {n_topics} topics, {report['n_pairs']}
  distinct (cause, target) pairs; {report['n_pairs_with_docs']} of them in topics with documents (1-10).
- Command: `python -m causalgraph.train --data {args.data} --folds {args.folds}`

{format_report(report, args.folds)}

- Size: {size / 1024:.1f} KiB.
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m causalgraph.train", description=__doc__)
    parser.add_argument("--data", required=True, help="AER data folder (../shared/aer or the public layout)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--encoder", default=DEFAULT_ENCODER, help="sentence-transformers path or hub name")
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL)
    args = parser.parse_args(argv)
    try:
        topics = load_labelled(args.data)
    except (DataError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    start = time.time()
    analyses = [analyse_topic(t, args.encoder) for t in topics]
    report = cv_report(analyses, args.folds)
    print(format_report(report, args.folds))
    scorer = EdgeScorer().fit([a.table for a in analyses], [a.gold() for a in analyses])
    scorer.bias_ = choose_bias(analyses, args.folds)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_scorer(scorer, args.out, args.encoder)
    args.out.with_suffix(".md").write_text(model_card(args, scorer, report, len(topics), args.out.stat().st_size))
    print(f"bias {scorer.bias_}; wrote {args.out} and {args.out.with_suffix('.md')} in {time.time() - start:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
