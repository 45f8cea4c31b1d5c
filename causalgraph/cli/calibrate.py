"""`causalgraph calibrate`: a reader's fusion parameters from its answers to a labelled split, chosen under folds
grouped by topic on the labelled topics cut to the questions it judged. It prints the fused CV score at each
setting and writes the calibration that `answer --reader-calibration` reads."""

from __future__ import annotations

import sys
from pathlib import Path

from ..data import DataError, load_split
from ..experiments.calibration import answer_analyses, calibration_cv
from ..experiments.inputs import shipped_biases
from ..learn.calibration import write_calibrations
from ..readers.scores import load_reader_files, parse_reader_spec
from ..run.output import OutputError, check_outputs
from ..data.files import write_files
from .common import plural, run_command
from .lab import cv_inputs, cv_parser


def build_parser():
    parser = cv_parser("calibrate", __doc__, encoder=False, bias=True, resize=False)  # the shipped scorer's encoder
    parser.add_argument("--reader-scores", type=parse_reader_spec, action="append", required=True, metavar="[NAME=]FILE",
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
        outputs = check_outputs({"--out": args.out}, [s.path for s in specs])
    except (OutputError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
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
          f"{args.folds}-fold CV over {plural(len(topics), 'topic')}, scored on the {report.topics} held-out topics cut "
          f"to those questions, {'the shipped bias by topic size' if by_size else f'bias {bias}'}\n")
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


if __name__ == "__main__":
    sys.exit(run_command(main))
