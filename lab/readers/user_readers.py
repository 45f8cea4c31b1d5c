"""A reader on a user's own topic (issue 42): the default answer, under priors "none", fused with readers of known
quality on user-style topics (folders of topic folders whose `golden_answer` is the gold), each topic answered
alone with the reader cut to it (as a user answers their own topic), and the whole set in one run (a folder of
topics: the reader weighed on every topic's options). The readers:
- simulated: the gold with a seeded share of the questions corrupted (0%, 25%, 50%, 75%), each by an error real
  readers make: a label dropped, a background cause or consequence added, a wrong single label, None chosen
  wrongly or missed (whichever the question allows, chosen at random);
- real: a reader file of `{"id", "answer"}` lines per set (`--real SET=FILE`); where it covers only some of the
  set's topics (user-dev's reader in a folder of all tuning topics), its row counts those topics alone.
For each: the reader alone, causalgraph alone, fused, and how many fused answers differ from the reader's and how
many of those are right (exact). A last table sets the share of each simulated reader's answers that are right
beside its gold-free estimate (readers/trust/channel.py), each topic alone and the set in one run. The
constants of the "none" regime (readers/trust/channel.py, AnswerChannel) are chosen on the first set with folds
that leave one topic out (`grid`; the choice furthest above the better of the reader alone and causalgraph
alone, on average over the readers and both ways of answering): each held-out topic is answered with the
constants chosen on the others. The other sets are answered with the shipped ones.
The shipped scorer of a user's topic was trained on user-train and user-dev, so for a first set of those
topics `--held-out-structure` answers each with a scorer fitted on the set's other topics. The shipped
constants were chosen so, on the 24 tuning topics in one folder (links to their topic folders):

    mkdir tune && ln -s "$PWD"/../shared/user-train/*/ "$PWD"/../shared/user-dev/*/ tune/
    python -m lab.readers.user_readers --sets tune ../shared/user-dev-2 --held-out-structure \\
        --real tune=../shared/readers-user/llm-blind-user-dev.jsonl \\
        --real user-dev-2=../shared/readers-user/llm-blind-user-dev-2.jsonl --part tune=../shared/user-dev \\
        --cache-dir /tmp/readers-cache

`--part tune=../shared/user-dev` adds rows for user-dev's 8 topics of the tuning folder (the issue's measure).
`--known-right R [R ...]` answers instead each simulated reader with how often it is right given (a calibration, as
`calibrate` writes one from gold) at each R, each topic alone with the shipped constants: how far the fusion goes
where the trust is known, not estimated.
"""

from __future__ import annotations

import argparse
import json
import itertools
import random
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

import causalgraph as cg
from causalgraph.analysis.analyse import analyse_topic
from causalgraph.config import DEFAULT_MODEL
from causalgraph.data import LABELS, question_score
from causalgraph.learn.scorer import edge_scores, reads_documents, second_encoder
from causalgraph.learn.user import held_out_scorers
from causalgraph.readers.base import Judgement, ReaderJudgements
from causalgraph.readers.trust import AnswerChannel, ReaderCalibration, TrustSettings, weigh_readers
from causalgraph.readers.trust.channel import estimate_answers_without_gold
from causalgraph.run.batch import Settings, answer_topic, cache_for, scorer_for
from causalgraph.run.pipeline import option_evidence
from lab.common import run_benchmark

RATES = (0.0, 0.25, 0.5, 0.75)
SEEDS = (0, 1, 2)
SCALES = (1.0, 1.5)  # the scales of the grid of the regime's constants (--scales)
# how far the estimate of answers_right is moved from the prior mean (AnswerChannel.stretch)
STRETCHES = (1.0, 1.5, 2.0, 2.5, 3.0)


def grid(scales: tuple[float, ...] = SCALES) -> list[AnswerChannel]:
    """The candidates for the regime's constants (spread 3, prior 0.8 and a prior worth 6 questions, never chosen
    in the round that tried them, are left out)."""
    return [AnswerChannel(scale, temperature, spread, 0.6, 2.0, stretch)
            for scale, temperature, spread, stretch in itertools.product(scales, (0.5, 0.7), (1.0, 2.0), STRETCHES)]


def corrupted(question, rng: random.Random) -> frozenset[str]:
    """The question's gold answer with one error that real readers make, chosen at random among those it allows."""
    gold, none = set(question.gold), question.none_label
    real = [label for label in LABELS if label != none]
    wrong = [label for label in real if label not in gold]
    errors = []
    if len(gold) > 1:
        errors.append(lambda: gold - {rng.choice(sorted(gold))})  # a label dropped
    if wrong and none not in gold:
        errors.append(lambda: gold | {rng.choice(wrong)})  # a background cause or a consequence added
    if wrong:
        errors.append(lambda: {rng.choice(wrong)})  # a wrong single label (None missed, where None is right)
    if none is not None and none not in gold:
        errors.append(lambda: {none})  # None chosen wrongly
    return frozenset(rng.choice(errors)())


def simulated_answers(questions, rate: float, seed: int) -> dict[str, frozenset[str]]:
    """Each question's answer: the gold, with round(rate x questions) of them, drawn by the seed, corrupted."""
    ordered = sorted(questions, key=lambda q: q.qid)
    rng = random.Random(f"{seed}-{rate}")
    bad = set(rng.sample([q.qid for q in ordered], round(rate * len(ordered))))
    return {q.qid: corrupted(q, random.Random(f"{seed}-{rate}-{q.qid}")) if q.qid in bad else q.gold for q in ordered}


def as_reader(name: str, answers: dict[str, frozenset[str]]) -> ReaderJudgements:
    """Hard answers as a reader's verdicts on every label, as `--reader-scores` reads them."""
    return ReaderJudgements(name, {(qid, label): Judgement(verdict=label in chosen)
                                   for qid, chosen in answers.items() for label in LABELS})


def read_answers(path: Path) -> dict[str, frozenset[str]]:
    """A reader file's answers by question id."""
    answers = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            answers[record["id"]] = frozenset(filter(None, record["answer"].split(",")))
    return answers


class Topics:
    """A set's topics, analysed (through the cache) and scored once under priors "none"; with `held_out`, each
    topic by the user-topic scorer (learn/user.py) fitted on the set's other topics, at the shipped bias, so that
    the structure model has not seen the topic it answers."""

    def __init__(self, root: Path, cache_dir: Path | None, held_out: bool = False):
        self.settings = Settings(DEFAULT_MODEL.resolve(), priors="none")
        self.scorer, encoder = scorer_for(self.settings.model, "none")
        cache = cache_for(cache_dir, self.scorer, encoder) if cache_dir else None
        self.analyses, self.edges, self.evidence, self.folders = [], [], [], []
        for folder in sorted(p for p in root.iterdir() if (p / "questions.jsonl").is_file()):
            for topic in cg.load_topics(folder):
                analysis = cache.analyse(topic)[0] if cache else analyse_topic(
                    topic, encoder, reads_documents(self.scorer), second_encoder=second_encoder(self.scorer))
                self.analyses.append(analysis)
                self.folders.append(folder.name)
        self.scorers = (held_out_scorers(self.analyses, self.scorer.bias) if held_out
                        else [self.scorer] * len(self.analyses))
        for analysis, scorer in zip(self.analyses, self.scorers):
            self.edges.append(edge_scores(analysis.table, scorer))
            self.evidence.append(option_evidence([analysis], [self.edges[-1]], self.settings))
        self.questions = [q for a in self.analyses for q in a.topic.questions]

    def answer(self, answers: dict[str, frozenset[str]] | None, channel: AnswerChannel = AnswerChannel(),
               together: bool = False, known: float | None = None) -> list[dict[str, frozenset[str]]]:
        """Each topic's answers, alone (no reader) or fused with the reader of `answers`, weighed as `answer`
        weighs it under priors "none" (`channel`: the regime's constants, for choosing them) on the topic alone, cut
        to it, or on every topic of the set `together` (as in one run over a folder of topics); with `known`, the
        reader's share of right answers is given, not estimated."""
        readers: tuple = ()
        given = {"reader": ReaderCalibration("reader", "answers", "given", len(answers or ()), scale=channel.scale,
                                             regime="none", answers_right=known)} if known is not None else None
        trust = TrustSettings(calibrations=given, regime="none", channel=channel)
        if answers is not None and together:
            prior = {k: v for p, _ in self.evidence for k, v in p.items()}
            settled = {k: v for _, s in self.evidence for k, v in s.items()}
            readers = weigh_readers((as_reader("reader", answers),), (prior, settled), trust)
        out = []
        for analysis, evidence, scorer in zip(self.analyses, self.evidence, self.scorers):
            if answers is not None and not together:
                qids = {q.qid for q in analysis.topic.questions}
                reader = as_reader("reader", {k: v for k, v in answers.items() if k in qids})
                readers = weigh_readers((reader,), evidence, trust) if reader.judgements else ()
            settings = replace(self.settings, readers=readers, explain=False)
            out.append(answer_topic(analysis, scorer, settings)[1].answers)
        return out


def scores(topics: Topics, answered: list[dict[str, frozenset[str]]]) -> np.ndarray:
    """Each topic's summed question scores."""
    return np.array([sum(question_score(frozenset(a.get(q.qid, ())), q.gold) for q in t.topic.questions)
                     for t, a in zip(topics.analyses, answered)])


def covered(topics: Topics, answers: dict[str, frozenset[str]]) -> np.ndarray:
    """Whether the reader answers every question of each topic."""
    return np.array([all(q.qid in answers for q in a.topic.questions) for a in topics.analyses])


def readers_of(topics: Topics, root: Path, real: dict[str, str]) -> list[tuple[str, list]]:
    """The readers of a set: (name, its answers under each seed)."""
    readers = [(f"simulated, {rate:.0%} corrupted", [simulated_answers(topics.questions, rate, s) for s in SEEDS])
               for rate in RATES]
    if root.name in real:
        readers.append((f"real: {Path(real[root.name]).name}", [read_answers(Path(real[root.name]))]))
    return readers


def fused(topics: Topics, runs: list, channel: AnswerChannel, together: bool, known: float | None = None) -> np.ndarray:
    """Per topic, the mean over the runs of (summed fused scores, answers differing from the reader's, those of
    them that are right): an array (topics, 3)."""
    out = np.zeros((len(topics.analyses), 3))
    for answers in runs:
        read = covered(topics, answers)
        for i, (analysis, got) in enumerate(zip(topics.analyses, topics.answer(answers, channel, together, known))):
            for q in analysis.topic.questions if read[i] else ():
                labels = frozenset(got[q.qid])
                out[i] += (question_score(labels, q.gold), labels != answers[q.qid],
                           labels != answers[q.qid] and labels == q.gold)
    return out / len(runs)


def choose(tables: dict[AnswerChannel, np.ndarray], better: np.ndarray, topics: np.ndarray,
           worst: bool = False) -> AnswerChannel:
    """The constants whose fused score is furthest above the better of the reader alone and causalgraph alone on
    `topics` (summed scores; `better` per reader and topic, tables per mode, reader and topic), on average over
    the modes and readers; with `worst`, the one whose shortfalls below it are least on average (a tenth of the
    mean gap breaking ties)."""
    def gain(t: AnswerChannel) -> float:
        gap = np.sum(tables[t][..., topics, 0], axis=-1) - np.sum(better[:, topics], axis=1)
        return float(np.minimum(gap, 0).mean() + 0.1 * gap.mean()) if worst else float(gap.mean())
    return max(tables, key=gain)


def right_estimates(topics: Topics, answers: dict[str, frozenset[str]]) -> tuple[float, float, float]:
    """The share of the reader's answers that are right, and its gold-free estimates (estimate_answers_without_gold, the
    shipped constants), each topic alone (the mean over the topics) and the set in one run."""
    truth, alone = [], []
    for analysis, (prior, settled) in zip(topics.analyses, topics.evidence):
        gold = {q.qid: q.gold for q in analysis.topic.questions}
        truth += [answers[qid] == g for qid, g in gold.items()]
        reader = as_reader("reader", {k: v for k, v in answers.items() if k in gold})
        alone.append(estimate_answers_without_gold(reader, prior, settled).answers_right)
    prior = {k: v for p, _ in topics.evidence for k, v in p.items()}
    settled = {k: v for _, s in topics.evidence for k, v in s.items()}
    pooled = estimate_answers_without_gold(as_reader("reader", answers), prior, settled).answers_right
    return float(np.mean(truth)), float(np.mean(alone)), float(pooled)


MODES = {False: "each topic alone", True: "the set in one run"}


def parts_of(label: str, root: Path, topics: Topics, parts: list) -> list[tuple[str, np.ndarray]]:
    """The rows of a set: all its topics, then those of each `--part` of it (a mask over its topics each)."""
    return [(label, np.ones(len(topics.analyses), dtype=bool))] + [
        (f"{label}: the topics of {Path(folder).name}",
         np.isin(topics.folders, [p.name for p in Path(folder).iterdir()]))
        for name, folder in parts if name == root.name]


def share(text: str) -> float:
    """A share of right answers, strictly between 0 and 1."""
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"a share of right answers is strictly between 0 and 1, got {text}")
    return value


def known_right(roots: list[Path], cache_dir: Path | None, held_out: bool, parts: list, values: list[float]) -> int:
    """The table of `--known-right`: per set (and part), simulated reader and given share of right answers, the
    fused score with each topic answered alone."""
    print("| set | reader | reader alone | causalgraph alone | " + " | ".join(f"fused, right {v:g} given"
                                                                              for v in values)
          + " |")
    print("|---|---|---|---|" + "---|" * len(values))
    for n, root in enumerate(roots):
        topics = Topics(root, cache_dir, held_out=held_out and n == 0)
        sizes = np.array([len(a.topic.questions) for a in topics.analyses])
        alone = scores(topics, topics.answer(None))
        groups = parts_of(root.name, root, topics, parts)
        for name, runs in readers_of(topics, root, {}):
            own = np.mean([scores(topics, [a] * len(topics.analyses)) for a in runs], axis=0)
            given = [fused(topics, runs, AnswerChannel(), False, value)[:, 0] for value in values]
            for shown, part in groups:
                count = sizes[part].sum()
                print(f"| {shown} | {name} | {own[part].sum() / count:.3f} | {alone[part].sum() / count:.3f} | "
                      + " | ".join(f"{g[part].sum() / count:.3f}" for g in given) + " |", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", type=Path, required=True,
                        help="folders of user-style topic folders; the constants of the regime \"none\" are chosen on "
                             "the first (with folds that leave one topic out), the others are answered with the "
                             "shipped ones")
    parser.add_argument("--real", action="append", default=[], metavar="SET=FILE", help="a real reader's answers")
    parser.add_argument("--cache-dir", type=Path, help="the analysis cache")
    parser.add_argument("--part", action="append", default=[], metavar="SET=FOLDER",
                        help="also a row per reader for the topics of SET whose folders FOLDER holds (by name)")
    parser.add_argument("--held-out-structure", action="store_true",
                        help="answer each topic of the first set with a user-topic scorer fitted on the set's other "
                             "topics (for a first set that the shipped scorer was trained on)")
    parser.add_argument("--scales", nargs="+", type=float, default=list(SCALES),
                        help="the scales of the grid of constants (default: %(default)s)")
    parser.add_argument("--known-right", nargs="+", type=share, metavar="R",
                        help="instead, fuse each simulated reader with its share of right answers given at each R "
                             "(the other options but --sets, --part, --cache-dir and --held-out-structure do not "
                             "apply)")
    parser.add_argument("--worst", action="store_true",
                        help="choose the constants whose shortfalls below the better of the reader and causalgraph "
                             "alone are least, not those furthest above it on average")
    args = parser.parse_args()
    real = dict(spec.split("=", 1) for spec in args.real)
    parts = [spec.split("=", 1) for spec in args.part]
    if args.known_right:
        return known_right(args.sets, args.cache_dir, args.held_out_structure, parts, args.known_right)
    print("| set | reader | reader alone | causalgraph alone | fused, each topic alone | fused, the set in one run | "
          "fused answers differing from the reader's (right), alone / in one run |")
    print("|---|---|---|---|---|---|---|")
    sets = [Topics(root, args.cache_dir, held_out=args.held_out_structure and n == 0)
            for n, root in enumerate(args.sets)]
    for n, (root, topics) in enumerate(zip(args.sets, sets)):
        sizes = np.array([len(a.topic.questions) for a in topics.analyses])
        alone = scores(topics, topics.answer(None))
        readers = readers_of(topics, root, real)
        own = np.array([np.mean([scores(topics, [a] * len(topics.analyses)) for a in runs], axis=0)
                        for _, runs in readers])
        if n == 0:  # leave one topic out: each held-out topic answered with the constants chosen on the others
            tables = {t: np.array([[fused(topics, runs, t, mode) for _, runs in readers] for mode in MODES])
                      for t in grid(tuple(args.scales))}
            better, everything = np.maximum(own, alone), np.arange(len(alone))
            picks = [choose(tables, better, np.delete(everything, i), args.worst) for i in everything]
            result = np.stack([tables[t][:, :, i] for i, t in enumerate(picks)], axis=2)
            label = f"{root.name} (leave one topic out)"
            print(f"chosen on all of {root.name}: {choose(tables, better, everything, args.worst)}; in the folds: "
                  f"{', '.join(f'{t} ({picks.count(t)})' for t in sorted(set(picks), key=picks.index))}",
                  file=sys.stderr)
        else:
            result = np.array([[fused(topics, runs, AnswerChannel(), mode) for _, runs in readers] for mode in MODES])
            label = root.name
        for shown_as, part in parts_of(label, root, topics, parts):
            for r, (name, runs) in enumerate(readers):
                read = covered(topics, runs[0]) & part  # a real reader of a part of the set counts its topics alone
                if not read.any():
                    continue
                each, pooled, count = result[0, r][read].sum(axis=0), result[1, r][read].sum(axis=0), sizes[read].sum()
                shown = shown_as if read.sum() == part.sum() else f"{shown_as}, the {read.sum()} topics it answers"
                print(f"| {shown} | {name} | {own[r][read].sum() / count:.3f} | {alone[read].sum() / count:.3f} | "
                      f"{each[0] / count:.3f} | {pooled[0] / count:.3f} | {each[1]:.1f} ({each[2]:.1f}) / "
                      f"{pooled[1]:.1f} ({pooled[2]:.1f}) |", flush=True)
    # how the gold-free estimate of how often a reader is right follows the truth, per set and simulated reader
    print("\n| set | reader | answers right | estimate, each topic alone | estimate, the set in one run |")
    print("|---|---|---|---|---|")
    for root, topics in zip(args.sets, sets):
        for rate in RATES:
            found = np.mean([right_estimates(topics, simulated_answers(topics.questions, rate, seed))
                             for seed in SEEDS], axis=0)
            print(f"| {root.name} | simulated, {rate:.0%} corrupted | {found[0]:.3f} | {found[1]:.3f} | {found[2]:.3f} "
                  "|",
                  flush=True)
    return 0


if __name__ == "__main__":
    run_benchmark(main)
