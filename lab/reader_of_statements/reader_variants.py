"""A training variant of the reader of causal statements (causalgraph.read) on one fold of the cross-validation
that `python -m causalgraph.train --reader-model` runs (fold i of k holds out the i-th part of the Causal News
Corpus's documents and of EventStoryLine's topics), with its figures as the card gives them: cheaper than the whole
cross-validation, to compare variants with the shipped settings' figures on the same fold (read off that
command's held-out rows, or this one run with the shipped settings).

    python -m lab.reader_of_statements.reader_variants --epochs 3 --negatives 1

With `--rows FILE` the fold's held-out readings are written too, and `--join FILE...` gives the figures of
several folds' rows together (the folds of one k, each run apart, side by side):

    python -m lab.reader_of_statements.reader_variants --folds 4 --fold 0 --rows /tmp/f0.json   # ... --fold 3
    python -m lab.reader_of_statements.reader_variants --join /tmp/f0.json /tmp/f1.json /tmp/f2.json /tmp/f3.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from causalgraph.read.corpora import causal_news, storyline
from causalgraph.read.evaluate import figures, folds, read_fold
from causalgraph.read.learn import Corpus, Settings
from lab.common import SHARED



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=int, default=Settings.epochs)
    parser.add_argument("--negatives", type=float, default=Settings.negatives)
    parser.add_argument("--folds", type=int, default=2)
    parser.add_argument("--fold", type=int, default=0)
    parser.add_argument("--causal-news", type=Path, default=SHARED / "causal-news")
    parser.add_argument("--storyline", type=Path, default=SHARED / "storyline")
    parser.add_argument("--rows", type=Path, help="write the fold's held-out readings here (JSON)")
    parser.add_argument("--join", type=Path, nargs="+", metavar="ROWS", help="the figures of these folds' rows")
    args = parser.parse_args()
    if args.join:
        joined: dict[str, list] = {}
        for path in args.join:
            for kind, found in json.loads(path.read_text()).items():
                joined.setdefault(kind, []).extend(found)
        print(f"{len(args.join)} folds joined:")
        print("\n".join(figures(joined).lines()))
        return
    torch.set_num_threads(1)
    sentences, tags, pairs = causal_news(args.causal_news)
    corpus = Corpus(sentences, tags, pairs + storyline(args.storyline))
    start = time.time()
    rows = read_fold(corpus, Settings(epochs=args.epochs, negatives=args.negatives),
                     folds(corpus, args.folds)[args.fold],
                     args.fold, progress=False)
    print(f"epochs {args.epochs}, negatives {args.negatives:g}, fold {args.fold} of {args.folds} "
          f"({time.time() - start:.0f} s):")
    print("\n".join(figures(rows).lines()))
    if args.rows:
        args.rows.write_text(json.dumps(rows))


if __name__ == "__main__":
    main()
