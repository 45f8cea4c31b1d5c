"""What two hostile inputs of issue 25 cost `answer`, in seconds of its stages (--timings), each in a data folder
made here: one question whose option is 100 KB of "May 1 " (analysis, under --time-limit 1), and a topic of
--questions questions whose priors and consistency clash (q{i}a repeats B{i} as an option for A{i}, q{i}b
repeats A{i} for B{i}; each question alone is answerable, the topic is not), solved with --time-limit 0.1 and
without. The encoder is loaded by a warm-up run first, so that no figure counts it. To compare with an earlier
checkout, run it from that checkout's root, whose package is then the one imported (`cd OLD_CHECKOUT &&
PYTHONPATH=THIS_CHECKOUT python -m lab.speed.hostile_costs ...`). With --data, it first prints the characters of
documents of the largest topic there (what `visualize --max-topic-chars` is measured against).

    python -m lab.speed.hostile_costs --questions 1000 --data ../shared/aer
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
from pathlib import Path

from causalgraph.cli import answer
from causalgraph.data import load_documents
from lab.common import run_benchmark

NONE = "None of the others are correct causes."


def write_topic(root: Path, rows: list[dict]) -> Path:
    (root / "test").mkdir(parents=True)
    (root / "test" / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def row(qid: str, target: str, options: list[str]) -> dict:
    return {"id": qid, "topic_id": 1, "target_event": target, **{f"option_{l}": o for l, o in zip("ABCD", options)}}


def clash_rows(questions: int) -> list[dict]:
    rows = []
    for i in range(questions // 2):
        a, b = f"Event A{i} happened.", f"Event B{i} happened."
        rows += [row(f"q{i}a", a, [b, b, f"Filler C{i}.", f"Filler D{i}."]),
                 row(f"q{i}b", b, [a, a, f"Filler E{i}.", f"Filler F{i}."])]
    return rows


def stage_seconds(data: Path, work: Path, *options: str) -> dict[str, float]:
    """The seconds of each stage of answering the one topic of `data` (no cache)."""
    timings = work / "timings.json"
    code = answer.main(["--data", str(data), "--out", str(work / "p.jsonl"), "--timings", str(timings),
                        "--no-cache", "--quiet", *options])
    assert code == 0, f"answer exited with {code}"
    return json.loads(timings.read_text())["topics"][0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=1000, help="questions of the clashing topic")
    parser.add_argument("--data", type=Path, help="an AER data folder whose largest topic's documents to measure")
    args = parser.parse_args()
    if args.data:
        sizes = {(f.parent.name, tid): sum(len(d.content) for d in docs)
                 for f in sorted(args.data.glob("*/docs.json")) for tid, (_, docs) in load_documents(f).items()}
        if not sizes:
            parser.error(f"--data: no */docs.json under {args.data}")
        (split, topic), most = max(sizes.items(), key=lambda item: item[1])
        print(f"largest documents of a topic in {args.data}: {most:,} characters ({split}, topic {topic}, "
              f"of {len(sizes)} topics)\n")
    logging.disable(logging.WARNING)  # the runs' warnings (no documents, time limit reached) are expected
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        warm = write_topic(work / "warm",
                           [row("w", "The dam failed.", ["Rain fell.", "Gates jammed.", "A cup was won.", NONE])])
        stage_seconds(warm, work)
        big = write_topic(work / "big", [row("q1", "The dam failed on May 3.",
                                             [("May 1 " * 20_000)[:100_000], "Rain fell.", "Gates jammed.", NONE])])
        clash = write_topic(work / "clash", clash_rows(args.questions))
        print("| input | options | analysis s | solving s |\n|---|---|---|---|")
        for name, data, options in (("one 100 KB option", big, ["--time-limit", "1"]),
                                    (f"{args.questions}-question clash topic", clash, ["--time-limit", "0.1"]),
                                    (f"{args.questions}-question clash topic", clash, [])):
            seconds = stage_seconds(data, work, *options)
            print(f"| {name} | {' '.join(options) or '(none)'} | {seconds['analysis']:.1f} | {seconds['solving']:.2f} "
                  "|",
                  flush=True)


if __name__ == "__main__":
    run_benchmark(main)
