"""`python -m causalgraph.nli --data DIR`: measure the pair ("NLI") model with grouped-by-topic CV (the model is
fine-tuned anew in every fold): its edge AUC alone, and as an extra feature of the edge scorer."""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold, cross_val_predict

from ..config import DEFAULT_ENCODER
from ..data import load_labelled
from ..graph.features import STRUCTURE_FEATURES
from ..learn.crossval import held_out_probabilities, training_data
from ..learn.pairmodel import labelled_examples, silver_examples
from ..readers.crossencoder import PairModel
from ..learn.scorer import EdgeScorer
from .common import labelled_analyses, run_command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m causalgraph.nli", description=__doc__)
    parser.add_argument("--data", required=True)
    parser.add_argument("--encoder", default=DEFAULT_ENCODER, help="local path or hub name of the encoder")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--silver", type=int, default=2000, help="silver cue pairs added to each fold's training")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(2)
    start = time.time()
    analyses = labelled_analyses(load_labelled(args.data), DEFAULT_ENCODER)
    topics = np.array([a.topic.topic_id for a in analyses])
    oof = [None] * len(analyses)
    for train, test in GroupKFold(n_splits=args.folds).split(topics, groups=topics):
        inner = [analyses[i] for i in train]
        model = PairModel(args.encoder).fit(labelled_examples(inner) + silver_examples(inner, args.silver), args.epochs)
        for i in test:
            oof[i] = model.predict_proba(labelled_examples([analyses[i]]))
        print(f"fold done at {time.time() - start:.0f}s", file=sys.stderr)
    gold = np.concatenate([a.gold() for a in analyses])
    docs = np.concatenate([np.full(len(a.table.pairs), bool(a.topic.documents)) for a in analyses])
    pair_p = np.concatenate(oof)
    print(f"pair model {args.encoder}, {args.epochs} epoch(s): grouped-CV edge AUC {roc_auc_score(gold, pair_p):.3f}"
          f" ({roc_auc_score(gold[docs], pair_p[docs]):.3f} on the {docs.sum()} pairs of topics with documents, whose premise is evidence)")
    _, p_base = held_out_probabilities(analyses, args.folds)
    X, y, groups = training_data(analyses)  # stack the out-of-fold pair scores as one more feature
    stacked = EdgeScorer(features=(*STRUCTURE_FEATURES, "pair_model"))
    p_stacked = cross_val_predict(stacked, X.assign(pair_model=pair_p), y, groups=groups,
                                  cv=GroupKFold(n_splits=args.folds), method="predict_proba")[:, 1]
    print(f"edge scorer (trained on whole topics) AUC without the pair model {roc_auc_score(gold, p_base):.3f}, with it "
          f"{roc_auc_score(gold, p_stacked):.3f}; an optimistic bound: the training topics' pair scores come from "
          f"models that saw the held-out fold ({time.time() - start:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
