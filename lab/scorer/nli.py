"""`python -m lab.scorer.nli --data DIR`: measure the pair ("NLI") model with grouped-by-topic CV (the model is
fine-tuned anew in every fold): its edge AUC alone, and as an extra feature of the edge scorer."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from causalgraph.config import DEFAULT_ENCODER
from causalgraph.data import DataError, load_labelled
from causalgraph.cli.common import command_parser, at_least, positive, run_command


def build_parser() -> argparse.ArgumentParser:
    parser = command_parser("nli", __doc__)
    parser.prog = "python -m lab.scorer.nli"
    parser.add_argument("--data", type=Path, required=True, help="AER data folder (../shared/aer or the public layout)")
    parser.add_argument("--encoder", default=DEFAULT_ENCODER, help="local path or hub name of the encoder to fine-tune")
    parser.add_argument("--folds", type=at_least(2), default=5, help="grouped CV folds (at least 2)")
    parser.add_argument("--epochs", type=positive(int), default=1, help="fine-tuning epochs in each fold")
    parser.add_argument("--silver", type=at_least(0), default=2000,
                        help="silver cue pairs added to each fold's training")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        topics = load_labelled(args.data)
    except (DataError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    import torch

    from causalgraph.measure.inputs import labelled_analyses  # after the options: --help stays fast
    from lab.scorer.pair_model import pair_model_cv

    torch.set_num_threads(2)
    start = time.time()
    analyses = labelled_analyses(topics, DEFAULT_ENCODER, not args.quiet)
    r = pair_model_cv(analyses, args.encoder, args.folds, args.epochs, args.silver, not args.quiet)
    print(f"pair model {args.encoder}, {args.epochs} epoch(s): grouped-CV edge AUC {r.auc:.3f}"
          f" ({r.auc_with_documents:.3f} on the {r.pairs_with_documents} pairs of topics with documents, whose premise "
          "is evidence)")
    print(f"edge scorer (trained on whole topics) AUC without the pair model {r.scorer_auc:.3f}, with it "
          f"{r.stacked_auc:.3f}; an optimistic bound: the training topics' pair scores come from "
          f"models that saw the held-out fold ({time.time() - start:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
