"""`causalgraph train`: fit the size blend (a structure scorer and an evidence scorer, weighed by the topic's
size) on train + dev + sample, for each construction-prior setting, and write it with a model card
(`--reader crossencoder`: train and measure the cross-encoder reader instead)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..config import DEFAULT_ENCODER, DEFAULT_MODEL, PACKAGE_DIR
from ..data import data_files
from ..data.load import id_ranges
from ..experiments.inputs import describe_shapes, labelled_analyses
from ..learn.bands import BAND_SIZES, SHIPPED_GROUPS, BlendReport, train_blend
from ..learn.crossval import SIZE_COPIES, TRAIN_COPIES, TopicShape, bootstrap_interval, FoldResult
from ..learn.scorer import SizeBlend, dump_scorer
from ..reason.groups import PRIORS
from ..run.output import check_outputs
from ..data.files import write_files
from .common import plural, positive, run_command
from .lab import cv_inputs, cv_parser
from .train_reader import crossencoder_main

REGIMES = (*BAND_SIZES, "whole", "test-shaped")


def regime_name(key) -> str:
    return {"whole": "whole held-out topics", "test-shaped": "held-out topics cut to the answered split's shapes"}.get(
        str(key), f"held-out topics cut into topics of {key} question{'s' if key != 1 else ''}")


def format_report(priors: str, blend: SizeBlend, report: BlendReport) -> str:
    """The nested grouped-CV figures of one setting, per size, with the bands each outer fold chose."""
    lines = [f"--priors {priors}: nested grouped CV (each outer fold's bands chosen on the other folds' held-out "
             "questions)"]
    topics = report.held.question_topics()
    for key in REGIMES:
        where = report.question_keys == str(key)
        if not where.any():
            continue
        result = FoldResult(str(key), report.nested[where], topics[where])
        low, high = bootstrap_interval(result)
        lines.append(f"  {regime_name(key)}: AER score {result.mean:.4f} over {plural(int(where.sum()), 'question')} "
                     f"(95% topic-bootstrap CI {low:.3f}-{high:.3f})")
    lines.append("  bands chosen per outer fold (up to N questions: structure weight, bias): "
                 + "; ".join(", ".join(f"{b.questions or 'more'}: {b.structure:g}/{b.bias}" for b in bands)
                             for bands in report.fold_bands))
    lines.append("  shipped bands: " + ", ".join(f"up to {b.questions} questions: weight {b.structure:g}, bias {b.bias}"
                                                 if b.questions else f"more: weight {b.structure:g}, bias {b.bias}"
                                                 for b in blend.bands))
    return "\n".join(lines)


def model_card(args: argparse.Namespace, blends: dict[str, SizeBlend], reports: dict[str, str],
               shapes: list[TopicShape], topics, size: int) -> str:
    aer = blends["aer"]
    docs = id_ranges(t.topic_id for t in topics if t.documents) or "none"
    return f"""# Edge scorer: P(E directly caused T), a size blend

- Two scikit-learn HistGradientBoostingClassifiers (max_iter={aer.structure.max_iter}, learning_rate={aer.structure.learning_rate},
  max_leaf_nodes={aer.structure.max_leaf_nodes}, random_state {aer.structure.random_state}):
  - the structure scorer, over the question features: {", ".join(aer.structure.features or ())};
  - the evidence scorer, over the question and size features and the document evidence groups
    {", ".join(SHIPPED_GROUPS)}: {", ".join(f for f in aer.evidence.features or () if f not in (aer.structure.features or ()))}.
- Their log-odds are mixed by the topic's size band, each band with its own precision bias (log-odds x 100),
  chosen by grouped CV on held-out topics cut to {", ".join(map(str, BAND_SIZES))} questions, whole, and cut
  to the shapes of the `{args.resize_to}` split{f" ({describe_shapes(shapes)})" if shapes else ""}. A topic
  without documents is scored by the structure scorer alone.
- Training pairs: the labelled topics whole, plus {TRAIN_COPIES if shapes else 0} copies of each cut to the answered split's topic shapes
  (both scorers) and, for the evidence scorer, copies of {", ".join(map(str, SIZE_COPIES))} questions.
- `--priors none`: the same, trained without the None-structure features on the questions that do not offer
  None, and answered without the construction priors (rules: {", ".join(sorted(PRIORS["none"][0]))} off, None
  prior weight {PRIORS["none"][1]}).
- Encoder: `{args.encoder}` (frozen; the evidence stage uses its int8 version).
- Data: every labelled question of `{args.data}` (train + dev + sample): {plural(len(topics), 'topic')}; documents
  for topics {docs} (topics 11-36 read the partial evidence of train-evidence/).
- Command: `python -m causalgraph.train --data {args.data} --folds {args.folds} --resize-to {args.resize_to} --out {args.out}{" --force" if args.force else ""}`

{chr(10).join(reports[p] for p in blends)}

- Size: {size / 1024:.1f} KiB.
"""


def build_parser():
    parser = cv_parser("train", __doc__, min_folds=3)  # nested: the inner CV needs 2
    parser.add_argument("--out", type=Path, help="where to write the edge scorer (its model card goes beside it, .md); "
                        "required: the shipped model inside the package is replaced only with --force. With --reader, "
                        "a folder, and without it the reader is only measured")
    parser.add_argument("--force", action="store_true",
                        help=f"let --out write inside the installed package, e.g. over the shipped {DEFAULT_MODEL.name}")
    parser.add_argument("--workers", type=positive(int), default=1, help="processes that solve the held-out topics")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
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
    inputs = cv_inputs(args, evidence=args.reader is None)  # 11-36 read train-evidence/ as their documents
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
    analyses = labelled_analyses(topics, args.encoder, progress=not args.quiet)
    blends, reports = {}, {}
    for priors in PRIORS:
        say = None if args.quiet else (lambda line: print(f"[{time.time() - start:.0f}s] {line}", file=sys.stderr))
        blends[priors], report = train_blend(analyses, shapes, args.folds, priors, args.workers, say)
        reports[priors] = format_report(priors, blends[priors], report)
        print(reports[priors])
    model = dump_scorer(blends, args.encoder)
    write_files({args.out: model, card: model_card(args, blends, reports, shapes, topics, len(model))})
    print(f"wrote {args.out} and {card} in {time.time() - start:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
