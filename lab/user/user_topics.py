"""The default answer on user-style topics (folders of topic folders, each with docs.json and questions.jsonl whose
`golden_answer` is the gold): the AER score per set, and the shapes of the answers that issue "Read a user's own
topic" measures: how many answers carry several labels where the gold does, how often None is chosen where it is
right and where it is wrong, and how many answers hold a wrong label (and how many of those hold several labels:
a label gained beside a right one). The shipped scorer never saw these topics,
so every figure is held out.

    python -m lab.user.user_topics --sets ../shared/user-dev ../shared/user-dev-2
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import causalgraph as cg
from causalgraph.data.metric import question_score
from lab.common import run_benchmark


def topic_folders(root: Path) -> list[Path]:
    """The topic folders of a set, in name order."""
    return sorted(p for p in root.iterdir() if (p / "questions.jsonl").is_file())


def blank_counts() -> dict[str, float]:
    """The answer shapes that `tally` counts, at zero."""
    return dict.fromkeys(("questions", "score", "several gold", "several chosen", "none offered", "none right",
                          "none right chosen", "none wrong chosen", "wrong label", "several wrong"), 0.0)


def tally(counts: dict[str, float], labels: frozenset[str], q) -> None:
    """Count one answer (`labels`) to question `q` into `counts`: its score and its shape against the gold."""
    gold, none = q.gold, q.none_label
    counts["questions"] += 1
    counts["score"] += question_score(labels, gold)
    counts["several gold"] += len(gold) > 1
    counts["several chosen"] += len(gold) > 1 and len(labels) > 1
    counts["wrong label"] += bool(labels - gold)
    counts["several wrong"] += len(labels) > 1 and bool(labels - gold)
    if none is not None:
        counts["none offered"] += 1
        counts["none right"] += none in gold
        counts["none right chosen"] += none in gold and none in labels
        counts["none wrong chosen"] += none not in gold and none in labels


def shape_cells(c: dict[str, float]) -> str:
    """The counts as table cells: questions, score, several labels, None where right and wrong, wrong labels (all,
    and those of answers with several labels)."""
    n = int(c["questions"])
    return (f"{n} | {c['score'] / n:.4f} | {c['several chosen']:.0f} of {c['several gold']:.0f} | "
            f"{c['none right chosen']:.0f} of {c['none right']:.0f} | "
            f"{c['none wrong chosen']:.0f} of {c['none offered'] - c['none right']:.0f} | {c['wrong label']:.0f} | "
            f"{c['several wrong']:.0f}")


def measure(reasoner: cg.Reasoner, root: Path) -> dict[str, float]:
    """The default answer's score and answer shapes over every topic of the set at `root`."""
    counts = blank_counts()
    for folder in topic_folders(root):
        topics = cg.load_topics(folder)
        questions = {q.qid: q for t in topics for q in t.questions}
        for answer in reasoner.answer(topics):
            tally(counts, frozenset(answer.labels), questions[answer.qid])
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", type=Path, required=True, help="folders of user-style topic folders")
    parser.add_argument("--cache-dir", help="the analysis cache (default: none, every topic read afresh)")
    args = parser.parse_args()
    reasoner = cg.Reasoner.load(priors="none", cache_dir=args.cache_dir)
    print("| set | questions | score | several labels (gold has several) | None chosen where right | "
          "None chosen where wrong | answers with a wrong label | of them, with several labels | seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    for root in args.sets:
        start = time.perf_counter()
        print(f"| {root.name} | {shape_cells(measure(reasoner, root))} | {time.perf_counter() - start:.1f} |",
              flush=True)
    return 0


if __name__ == "__main__":
    run_benchmark(main)
