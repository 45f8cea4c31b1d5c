"""`causalgraph train`: fit the size blend (a structure scorer and an evidence scorer, weighed by the topic's
size) on train + dev + sample, for each construction-prior setting, and write it with a model card
(`--reader crossencoder`: train and measure the cross-encoder reader instead; `--user-topics`: train the scorer of
a user's own topics, `--priors none`, on user-style topics, and put it into the model file at --out)."""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from typing import TYPE_CHECKING

import numpy as np

from ..config import DEFAULT_ENCODER, DEFAULT_MODEL, PACKAGE_DIR, default_cache_dir
from ..data import DataError, Topic, load_data
from ..data.load import id_ranges
from ..reason.groups import PRIORS
from ..data.files import write_files
from .common import at_least, check_run_outputs, plural, positive, run_command
from .cv import cv_inputs, cv_parser, environment_line

if TYPE_CHECKING:
    from ..learn.bands import BlendReport
    from ..learn.crossval import TopicShape
    from ..learn.scorer import SizeBlend

CROSSENCODER_EPOCHS = 3  # the epochs of each reader, where --epochs is not given
STATEMENT_EPOCHS = 2

# The modelling imports sit in the functions that use them, after the options are read: --help stays fast.


def regime_name(key) -> str:
    return {"whole": "whole held-out topics", "test-shaped": "held-out topics cut to the answered split's shapes"}.get(
        str(key), f"held-out topics cut into topics of {key} question{'s' if key != 1 else ''}")


def format_report(priors: str, blend: SizeBlend, report: BlendReport) -> str:
    """The nested grouped-CV figures of one setting, per size, with the bands each outer fold chose."""
    from ..learn.bands import BAND_SIZES
    from ..learn.crossval import FoldResult, bootstrap_interval

    lines = [f"--priors {priors}: nested grouped CV (each outer fold's bands chosen on the other folds' held-out "
             "questions)"]
    topics = report.held.question_topics()
    for key in (*BAND_SIZES, "whole", "test-shaped"):
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
    from ..measure.inputs import describe_shapes
    from ..learn.bands import BAND_SIZES, SHIPPED_GROUPS
    from ..learn.crossval import SIZE_COPIES, TRAIN_COPIES

    aer = blends["aer"]
    docs = id_ranges(t.topic_id for t in topics if t.documents) or "none"
    return f"""# Edge scorer: P(E directly caused T), a size blend

- Two scikit-learn HistGradientBoostingClassifiers (max_iter={aer.structure.max_iter}, \
learning_rate={aer.structure.learning_rate},
  max_leaf_nodes={aer.structure.max_leaf_nodes}, random_state {aer.structure.random_state}):
  - the structure scorer, over the question features: {", ".join(aer.structure.features or ())};
  - the evidence scorer, over the question and size features and the document evidence groups
    {", ".join(SHIPPED_GROUPS)}: \
{", ".join(f for f in aer.evidence.features or () if f not in (aer.structure.features or ()))}.
- Their log-odds are mixed by the topic's size band, each band with its own precision bias (log-odds x 100),
  chosen by grouped CV on held-out topics cut to {", ".join(map(str, BAND_SIZES))} questions, whole, and cut
  to the shapes of the `{args.resize_to}` split{f" ({describe_shapes(shapes)})" if shapes else ""}. A topic
  without documents is scored by the structure scorer alone.
- Training pairs: the labelled topics whole, plus {TRAIN_COPIES if shapes else 0} copies of each cut to the answered \
split's topic shapes
  (both scorers) and, for the evidence scorer, copies of {", ".join(map(str, SIZE_COPIES))} questions.
- `--priors none`: the same, trained without the None-structure features on the questions that do not offer
  None, and answered without the construction priors (rules: {", ".join(sorted(PRIORS["none"][0]))} off, None
  prior weight {PRIORS["none"][1]}).
- Encoder: `{args.encoder}` (frozen; the evidence stage uses its int8 version).
- Data: every labelled question of `{args.data}` (train + dev + sample): {plural(len(topics), 'topic')}; documents
  for topics {docs} (topics 11-36 read the partial evidence of train-evidence/).
- Command: `python -m causalgraph.train --data {args.data} --folds {args.folds} --resize-to {args.resize_to} --out \
{args.out}{" --force" if args.force else ""}`
{environment_line()}

{chr(10).join(reports[p] for p in blends)}

- Size: {size / 1024:.1f} KiB.
"""


def build_parser():
    parser = cv_parser("train", __doc__, min_folds=3, data_required=False)  # nested: the inner CV needs 2
    parser.add_argument("--out", type=Path, help="where to write the edge scorer (its model card goes beside it, .md); "
                        "required: the shipped model inside the package is replaced only with --force. With --reader, "
                        "a folder, and without it the reader is only measured")
    parser.add_argument("--force", action="store_true",
                        help="let --out write inside the installed package, e.g. over the shipped "
                             f"{DEFAULT_MODEL.name}")
    parser.add_argument("--workers", type=positive(int), default=1, help="processes that solve the held-out topics")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--user-topics", nargs="+", type=Path, metavar="FOLDER",
                        help="folders of labelled user-style topics: train the --priors none scorer on them (folds "
                             "leave one topic out) and replace it in the model file at --out, which must exist")
    reader = parser.add_argument_group("the cross-encoder reader (--reader crossencoder)")
    reader.add_argument("--reader", choices=["crossencoder"], help="train this reader instead of the edge scorer")
    reader.add_argument("--base", default=DEFAULT_ENCODER, help="encoder to fine-tune: local path or hub name")
    reader.add_argument("--epochs", type=positive(int), default=None,
                        help=f"fine-tuning epochs (default {CROSSENCODER_EPOCHS}; {STATEMENT_EPOCHS} for "
                             "--reader-model)")
    reader.add_argument("--seed", type=int, default=0, help="seed of the fine-tuning (default 0)")
    reader.add_argument("--no-evidence", dest="evidence", action="store_false", help="read the question text alone")
    statements = parser.add_argument_group("the reader of causal statements (--reader-model FOLDER)")
    statements.add_argument("--reader-model", type=Path, metavar="FOLDER",
                            help="train the reader of causal statements (causalgraph.read) instead, and write it here")
    statements.add_argument("--causal-news", type=Path, default=Path("../shared/causal-news"),
                            help="the Causal News Corpus folder (default ../shared/causal-news)")
    statements.add_argument("--storyline", type=Path, default=Path("../shared/storyline"),
                            help="the EventStoryLine folder (default ../shared/storyline)")
    statements.add_argument("--reader-folds", type=at_least(0), default=2,
                            help="cross-validation folds measured before the final fit (0: none; default 2)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.reader_model is not None:
        if args.data or args.user_topics or args.reader or args.out:
            parser.error("--reader-model trains the reader of causal statements alone: drop --data, --user-topics, "
                         "--reader and --out")
        if args.reader_model.resolve().is_relative_to(PACKAGE_DIR) and not args.force:
            parser.error(f"--reader-model {args.reader_model} is inside the installed package (the shipped reader "
                         "lives there); add --force to write there")
        args.epochs = args.epochs or STATEMENT_EPOCHS
        from .train_statements import reader_model_main

        return reader_model_main(args)
    given = [f"--{name.replace('_', '-')}" for name in ("base", "epochs", "seed")
             if getattr(args, name) != parser.get_default(name)] + ([] if args.evidence else ["--no-evidence"])
    if args.reader is None and given:
        parser.error(f"{given[0]} applies to --reader crossencoder only")
    if (args.data is None) == (args.user_topics is None) or (args.user_topics and args.reader):
        parser.error("give --data (the AER data, to train the edge scorer or --reader) or --user-topics, not both")
    if args.user_topics:
        if args.out is None or not args.out.is_file():
            parser.error("--user-topics replaces the --priors none scorer of a model file: give --out MODEL, an "
                         "existing one")
        if args.out.resolve().is_relative_to(PACKAGE_DIR) and not args.force:
            parser.error(f"--out {args.out} is inside the installed package (the shipped model lives there); "
                         "add --force to write there")
        return user_main(args)
    inputs = cv_inputs(args, evidence=args.reader is None, bias=False)  # 11-36 read train-evidence/ as their documents
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
        from .train_reader import crossencoder_main

        args.epochs = args.epochs or CROSSENCODER_EPOCHS
        return crossencoder_main(args, topics, shapes)
    from ..measure.inputs import labelled_analyses
    from ..learn.bands import train_blend
    from ..learn.scorer import dump_scorer

    card = args.out.with_suffix(".md")
    try:
        check_run_outputs(args, {"--out": args.out, "its model card": card})
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


def user_card(card: str, args: argparse.Namespace, report, topics: list, sets: list[tuple[Path, list[int]]],
              size: int) -> str:
    """The model card with its `--priors none` parts (the header's bullet and the nested-CV block) replaced by
    those of the user-topic scorer (its own section, where an earlier run wrote one, replaced too)."""
    from sklearn.metrics import roc_auc_score

    from ..learn.user import SECOND_ENCODER, SHARPEN, USER_PARAMS, user_features

    card = re.sub(r"^## `--priors none`: a user's own topics\n.*?(?=^## |\Z)", "", card, flags=re.S | re.M)
    card = re.sub(r"^- `--priors none`:.*?(?=^- )", "", card, flags=re.S | re.M)
    card = re.sub(r"^--priors none:.*?(?=^\n|^- Size)", "", card, flags=re.S | re.M)
    card = re.sub(r"^- Size: .*\n?", "", card, flags=re.M).rstrip("\n")
    rows = []
    for folder, ids in sets:
        questions = [s for i in ids for s in report.nested[i]]
        rows.append(f"  {folder}: {plural(len(ids), 'topic')}, held-out AER score {np.mean(questions):.4f} over "
                    f"{plural(len(questions), 'question')}")
    gold = np.concatenate([a.gold() for a in topics])
    held = np.concatenate([[p[pair] for pair in a.table.pairs] for a, p in zip(topics, report.held)])
    return f"""{card}

## `--priors none`: a user's own topics

- Two HistGradientBoostingClassifiers (max_iter={USER_PARAMS["max_iter"]}, \
max_leaf_nodes={USER_PARAMS["max_leaf_nodes"]}, learning rate 0.05,
  random_state 0) over {", ".join(user_features())}: one over the documents as the model's encoder reads them, one
  as {SECOND_ENCODER} reads them; their mean log-odds times {SHARPEN:g}.
- Trained on every candidate pair of the user-style topics in {", ".join(f"`{f}`" for f in args.user_topics)} \
({plural(len(topics), 'topic')}),
  answered without the construction priors (rules: {", ".join(sorted(PRIORS["none"][0]))} off, None prior weight \
{PRIORS["none"][1]}).
- Precision bias {report.bias}, chosen on the held-out answers of every topic (folds leave one topic out).
- Command: `python -m causalgraph.train --user-topics {" ".join(map(str, args.user_topics))} --out \
{args.out}{" --force" if args.force else ""}`, after the command above.
{environment_line()}

Folds leave one topic out; each topic is solved at the bias chosen on the other topics' held-out answers:
{chr(10).join(rows)}
  option AUC of the held-out probabilities: {roc_auc_score(gold, held):.4f}

- Size: {size / 1024:.1f} KiB.
"""


def user_main(args: argparse.Namespace) -> int:
    """--user-topics: train the user-topic scorer on the labelled topics of the folders, put it into the model
    file at --out as its --priors none scorer, and update the model card."""
    from tqdm import tqdm

    from ..analysis.cache import AnalysisCache
    from ..learn.scorer import dump_scorer, load_model, model_scorer
    from ..learn.user import SECOND_ENCODER, train_user_scorer

    card = args.out.with_suffix(".md")
    try:
        saved = load_model(args.out)
        model_scorer(saved, args.out, "aer")  # a model file with its AER scorer: DataError naming it otherwise
        topics: list[Topic] = []
        sets: list[tuple[Path, list[int]]] = []
        for folder in args.user_topics:
            loaded = load_data(folder)
            unlabelled = [q.qid for t in loaded for q in t.questions if q.gold is None]
            if unlabelled:
                raise DataError(folder, None,
                                f"question {unlabelled[0]} has no golden_answer: train on labelled topics")
            sets.append((folder, list(range(len(topics), len(topics) + len(loaded)))))
            topics += loaded
        check_run_outputs(args, {"--out": args.out, "its model card": card})
    except (DataError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    start = time.time()
    cache = AnalysisCache.open(default_cache_dir(), saved["encoder"], second=SECOND_ENCODER)
    analyses = [cache.analyse(t)[0]
                for t in tqdm(topics, desc="analysing", unit="topic", disable=args.quiet, file=sys.stderr)]
    say = (lambda line: None) if args.quiet else (lambda line: print(f"[{time.time() - start:.0f}s] {line}",
                                                                     file=sys.stderr))
    scorer, report = train_user_scorer(analyses, say)
    scorers = {**saved["scorers"], "none": scorer}
    model = dump_scorer(scorers, saved["encoder"])
    text = user_card(card.read_text(encoding="utf-8") if card.is_file() else "", args, report, analyses, sets,
                     len(model))
    print(text[text.index("## `--priors none`"):])
    write_files({args.out: model, card: text})
    print(f"wrote {args.out} and {card} in {time.time() - start:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
