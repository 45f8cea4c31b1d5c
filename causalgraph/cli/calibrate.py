"""`causalgraph calibrate`: a reader's fusion parameters from its answers to labelled questions, written as the
calibration that `answer --reader-calibration` reads. On an AER data folder: from a labelled split, chosen under
folds grouped by topic on the labelled topics cut to the questions it judged, with the fused CV score at each
setting. On your own labelled topics (a topic folder, a folder of them, or a topic file, with golden_answer):
the share of its answers that their gold holds exactly right, under the shipped scorer and rules of priors
"none", as `answer` answers your topics (a reader there is a channel of whole answers)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..config import DEFAULT_MODEL, default_cache_dir
from ..data import DataError, load_data, load_split
from ..data.load import is_topic_folder, topic_entries
from ..readers.scores import load_reader_files, parse_reader_spec
from ..run.output import OutputError
from ..data.files import write_files
from .common import check_run_outputs, plural, run_command
from .cv import cv_inputs, cv_parser


def build_parser():
    parser = cv_parser("calibrate", __doc__, encoder=False, bias=True, resize=False)  # the shipped scorer's encoder
    parser.add_argument("--reader-scores", type=parse_reader_spec, action="append", required=True,
                        metavar="[NAME=]FILE",
                        help="a reader's answers or probabilities for the questions of --split, named NAME or by the "
                             "path as given (repeatable: readers calibrated together)")
    parser.add_argument("--split", default="dev", choices=("train", "dev", "sample"),
                        help="the labelled split the reader answered (default dev)")
    parser.add_argument("--out", type=Path, required=True, help="the calibration file (JSON) to write")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    specs = args.reader_scores
    try:
        outputs = check_run_outputs(args, {"--out": args.out})
    except (OutputError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if Path(args.data).is_file() or is_topic_folder(args.data) or topic_entries(args.data) is not None:
        return calibrate_own(args, specs, outputs["--out"])
    from ..measure.calibration import answer_analyses, calibration_cv  # after the options: --help stays fast
    from ..measure.inputs import shipped_biases
    from ..readers.trust import write_calibrations

    inputs = cv_inputs(args, evidence=True)  # 11-36 read train-evidence/ for the shipped scorer's evidence
    if inputs is None:
        return 2
    topics, _, bias = inputs
    by_size = getattr(args, "bias", None) is None  # the shipped scorer's bias by topic size, as `answer` uses it
    try:
        questions = {q.qid: q for t in load_split(args.data, args.split) for q in t.questions}
        if not any(q.gold for q in questions.values()):
            raise DataError(args.data, None, f"split {args.split!r} has no gold answers to calibrate against")
        readers = load_reader_files(specs, questions)
    except (DataError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    progress = not args.quiet
    analyses = answer_analyses(topics, progress=progress)
    report = calibration_cv(analyses, readers, shipped_biases() if by_size else bias, args.folds, progress=progress)
    print(f"{plural(len(readers), 'reader')} on {plural(report.questions, 'question')} of {args.split}; grouped "
          f"{args.folds}-fold CV over {plural(len(topics), 'topic')}, scored on the {report.topics} held-out topics "
          f"cut to those questions, {'the shipped bias by topic size' if by_size else f'bias {bias}'}\n")
    print(report.table())
    print()
    for cal in report.calibrations:
        print(f"{cal.reader}: {cal.reliability()}")
    try:
        write_files({outputs["--out"]: write_calibrations(report.calibrations, {
            "split": args.split, "folds": args.folds, "scores": report.by_scale,
            "nested": report.nested})})
    except OSError as err:
        print(f"error: {err}; no output written", file=sys.stderr)
        return 2
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


def calibrate_own(args, specs, out: Path) -> int:
    """`calibrate` on a user's own labelled topics (calibrate_on_own_labels), their analyses cached where
    `answer` caches them by default."""
    from ..readers.trust import write_calibrations
    from ..run.batch import Settings, cache_for, scorer_for
    from ..run.pipeline import calibrate_on_own_labels

    try:
        topics = load_data(args.data)
        questions = {q.qid: q for t in topics for q in t.questions}
        if not any(q.gold for q in questions.values()):
            raise DataError(args.data, None, "no question has a golden_answer to calibrate against")
        readers = tuple(load_reader_files(specs, questions))
        settings = Settings(DEFAULT_MODEL.resolve(), priors="none")
        scorer, encoder = scorer_for(settings.model, settings.priors)
        settings = Settings(settings.model, priors="none",
                            cache=cache_for(default_cache_dir(), scorer, encoder))
        calibrations = calibrate_on_own_labels(topics, readers, settings, str(args.data))
    except (DataError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for cal in calibrations:
        print(f"{cal.reader}: {cal.reliability()}")
    try:
        write_files({out: write_calibrations(calibrations, {"data": str(args.data), "priors": "none"})})
    except OSError as err:
        print(f"error: {err}; no output written", file=sys.stderr)
        return 2
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
