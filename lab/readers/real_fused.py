"""The sections of `python -m lab.readers.real_readers` on the fused answers: each reader fused at fixed weights,
by `calibrate` and by the gold-free default; the bar's resolution, the scale (every question judged or a part),
shrinkage, the guard on few open options, and several readers at once."""

from __future__ import annotations

import random
import sys
from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from lab.common import print_table
from lab.readers.real_common import WEIGHTS, own_gold

from causalgraph.analysis.analyse import subset_analysis
from causalgraph.measure.calibration import (SCALES, fixed_weight, fused_scores, nested_weight, per_run, reader_alone,
                                             scale_choice, structure_edges, structure_only, with_gold, without_gold)
from causalgraph.measure.fusion import nested_choice
from causalgraph.learn.bands import blend_copies
from causalgraph.learn.crossval import FoldResult, bootstrap_interval, resampled_means
from causalgraph.readers.trust.calibration import FALLBACK_WEIGHT, MIN_OPEN, SCALE
from causalgraph.readers.trust.options import estimate_without_gold, open_keys
from causalgraph.readers.trust import TrustSettings
from causalgraph.run.pipeline import option_evidence
SMALL_WEIGHTS = (0, 25, 50, 75, 100, 150)  # where an estimate would rest on few options, the weights that compete
COMBINATIONS = (
    ("gpt4o_zero_shot_no_docs", "gpt4o_keyword_rag"),
    ("gpt4o_zero_shot_no_docs", "deepseek_chat_comet_graph"),
    ("gpt4o_focused_causation", "claude3_haiku_knowledge_graph"),
    ("gpt4o_zero_shot_no_docs", "gpt4o_keyword_rag", "gpt4o_focused_causation"),
    ("gpt4o_zero_shot_no_docs", "deepseek_chat_comet_graph", "claude3_haiku_knowledge_graph"),
    ("gpt41mini_finetuned_on_train", "gpt41mini_finetuned_on_train_rag"),
    ("deberta_v3_base_finetuned_on_train.probs", "gpt4o_zero_shot_no_docs"),
)
SHRINKS, TOWARDS = (0.25, 0.5, 0.75), (50, 75, 100)
MARGINS = (0.005, 0.01, 0.02, 0.04)  # true margins over the nested weight at which the bar's power is measured
RESAMPLES = 2000
SMALL_SIZES = (1, 5)
RUN_SIZES = (1, 2, 4, 9)  # dev-only topics per run, each run calibrated on its own
PARTS = 6  # the partially judged topics: each question judged in one of this many passes, as in test-shaped copies


@dataclass(frozen=True)
class Fused:
    """Each reader's per-question held-out scores in each repeat (in `fused_scores`' order) at the nested fixed
    weight, the gold-free default and `calibrate`; the questions' topics."""

    nested: dict[str, list[np.ndarray]]
    default: dict[str, list[np.ndarray]]
    calibrate: dict[str, list[np.ndarray]]
    topics: np.ndarray


def fused(repeats, untrained: dict, trained: dict, bias: int, folds: int) -> Fused:
    print("## Fused\n")
    print(f"Fixed weights {WEIGHTS} (percent of the raw log-odds; 0 is the structure alone). The default: no gold, "
          f"scale {SCALE:g}. The interval: 95% of the default less the nested fixed weight, resampling topics "
          "(their difference averaged over the repeats).\n")
    nested_q, default_q, calibrate_q, topics = {}, {}, {}, np.array([])
    for title, group in (("Readers not trained on train", untrained),
                         ("Readers trained on train (recall dev)", trained)):
        if not group:
            continue
        print(f"### {title}\n")
        print("| reader | structure alone | reader alone | best fixed weight, nested CV (chosen in the first repeat) | "
              "`calibrate` (gold of other topics) | no gold (default) | default - nested (95% interval) | "
              "questions scored apart | repeats at or above | at or above all three |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        by_weight, differences = {}, []
        for stem, reader in group.items():  # the nested fixed weight's score in each repeat: for `shrinkage`
            nested, free, gold, means, chosen, wins, apart = [], [], [], [], None, 0, []
            for runs in repeats:
                held, picked, weights = nested_weight(runs, [reader], bias, folds, WEIGHTS)
                scores, topics = fused_scores(runs, without_gold([reader], runs), bias, folds)
                nested.append(held)
                free.append(scores)
                gold.append(fused_scores(runs, with_gold([reader], runs), bias, folds)[0])
                means.append([weights[w] for w in WEIGHTS])
                chosen = chosen or picked
                wins += scores.mean() >= held.mean() - 1e-9
                apart.append(np.sum(scores != held))
            by_weight[stem] = np.mean(means, axis=0)
            nested_q[stem], default_q[stem], calibrate_q[stem] = nested, free, gold
            differences.append(np.mean(free, axis=0) - np.mean(nested, axis=0))
            low, high = bootstrap_interval(FoldResult("difference", differences[-1], topics))
            n, f, alone, structure = (np.mean(nested), np.mean(free), reader_alone(repeats[0], reader),
                                      by_weight[stem][0])
            ok = f >= max(n, structure, alone) - 1e-9
            print(f"| {stem} | {structure:.4f} | {alone:.4f} | {n:.4f} ({', '.join(map(str, chosen))}) | "
                  f"{np.mean(gold):.4f} | {f:.4f} | {f - n:+.4f} ({low:+.4f} to {high:+.4f}) | {np.mean(apart):.1f} "
                  f"of {len(topics)} | {wins} of {len(repeats)} | {'yes' if ok else 'no'} |", flush=True)
        if differences:
            pooled = FoldResult("difference", np.concatenate(differences), np.tile(topics, len(differences)))
            low, high = bootstrap_interval(pooled)
            print(f"\nPooled over these {len(differences)} readers, default - nested: {pooled.scores.mean():+.4f} "
                  f"({low:+.4f} to {high:+.4f}, resampling topics). Questions scored apart: those whose score differs "
                  "between the default and the nested fixed weight, per repeat (mean).")
        print(f"\nEach fixed weight ({title[0].lower() + title[1:]})\n")
        print_table("reader", [f"weight {w}" for w in WEIGHTS], by_weight.items())
        print()
    return Fused(nested_q, default_q, calibrate_q, topics)


def resolution(repeats, untrained: dict, result: Fused, bias: int, folds: int) -> None:
    """How often the bar (each untrained reader at or above its nested weight) holds on other draws of topics like
    these: the topics resampled with replacement, the same draw for every reader."""
    print("## The bar's resolution\n")
    oracle = {stem: [fused_scores(runs, own_gold([reader], runs, SCALE), bias, folds)[0] for runs in repeats]
              for stem, reader in untrained.items()}
    settings = (("the default (shipped)", result.default), ("`calibrate` (gold of other topics)", result.calibrate),
                ("gold of the answered topics (diagnostic)", oracle))
    differences = {name: np.array([np.mean(by[s], axis=0) - np.mean(result.nested[s], axis=0) for s in untrained])
                   for name, by in settings}
    print(f"The {len(np.unique(result.topics))} dev-only topics resampled with replacement {RESAMPLES} times (seed 0), "
          "the same draw for every reader; in each, a reader's difference is the mean over the drawn topics' "
          f"questions of its setting's score less the nested fixed weight's (scale {SCALE:g}, means over the "
          "repeats). The share of draws in which each reader, and all of them at once, is at or above. Last, the "
          "bar's power: the default's differences shifted so that every reader's is the given margin on these "
          "topics (their spread over topics as measured), and the share of draws in which all of them are at or "
          "above.\n")
    print("| setting | at or above on these topics | " + " | ".join(untrained) + " | all at once |")
    print("|---|---|" + "---|" * (len(untrained) + 1))
    default = differences["the default (shipped)"]
    rows = [*differences.items(), *((f"the default shifted to a margin of {m:+.3f} for every reader",
                                     default - default.mean(axis=1, keepdims=True) + m) for m in MARGINS)]
    for name, d in rows:
        above = resampled_means(d, result.topics, RESAMPLES) >= -1e-9  # (draws, readers)
        point = sum(d.mean(axis=1) >= -1e-9)
        print(f"| {name} | {point} of {len(d)} | " + " | ".join(f"{a:.0%}" for a in above.mean(axis=0))
              + f" | {above.all(axis=1).mean():.0%} |", flush=True)
    print()


def scales(repeats, untrained: dict, bias: int, folds: int) -> None:
    print("## The scale (readers not trained on train)\n")
    means, nested, chosen = [], [], []
    for runs in repeats:
        makes = [lambda s, r=r, runs=runs: without_gold([r], runs, s) for r in untrained.values()]
        m, n, c = scale_choice(makes, runs, bias, folds)
        means.append([[row[s] for s in SCALES] for row in m])
        nested.append(n)
        chosen.append(c)
    table = np.mean(means, axis=0)
    print_table("reader", [f"scale {s:g}" for s in SCALES], [*zip(untrained, table), ("mean", table.mean(axis=0))])
    print(f"\nNested grouped CV over the pooled readers (each outer fold takes the scale best on its training topics): "
          f"{np.mean(nested):.4f}; scales chosen per repeat {chosen} (shipped: SCALE = {SCALE:g})\n", flush=True)


def partial(repeats, untrained: dict, bias: int, folds: int, parts: int = PARTS) -> None:
    """The default at each scale on the dev-only topics with every question judged; with the reader's judgements
    on one question in `parts` only (a seeded partition of the questions; each part judged and estimated on in a
    pass of its own, only its questions scored; every question is scored once); and with every question judged
    and scored but the estimate resting on one part's judgements (a pass per part), which tells the two changes
    of the second apart: fewer options to estimate on, and questions whose neighbours are not judged."""
    print("## Partly judged topics: the scale\n")
    print(f"The dev-only topics as above (\"all judged\"); the same with the reader's judgements on one question in "
          f"{parts} (\"part judged\": the questions of each repeat partitioned at random into {parts} parts; in each "
          "pass one part is judged, the gold-free estimate rests on its open options, and only its questions are "
          "scored, as in the test-shaped copies below, where only the dev questions are judged; every question is "
          "scored once); and every question judged and scored with the estimate resting on one part's judgements "
          "(\"all judged, estimated on a part\": a pass per part, each scoring every question). The gold-free "
          "default at each scale, readers not trained on train, means over the repeats.\n")
    arms = {"all judged": "all", "part judged": "part", "all judged, estimated on a part": "estimate"}
    tables, nested, chosen = ({arm: [] for arm in arms} for _ in range(3))
    for i, runs in enumerate(repeats):
        print(f"partial: repeat {i + 1} of {len(repeats)}", file=sys.stderr, flush=True)
        evidence = [option_evidence(*run) for run in runs]
        qids = sorted(q.qid for analyses, _ in runs for a in analyses for q in a.topic.questions)
        random.Random(f"partial/{i}").shuffle(qids)
        split = [set(qids[g::parts]) for g in range(parts)]
        for arm, kind in arms.items():
            pooled: dict[float, list] = {s: [] for s in SCALES}
            topics, rows = [], []
            for reader in untrained.values():
                row = {s: [] for s in SCALES}
                for part in [None] if kind == "all" else split:
                    for s in SCALES:
                        if kind == "estimate":
                            setting, judged = estimated_on(reader, part, runs, s, evidence), None
                        else:
                            judging = reader if part is None else reader.for_questions(part)
                            setting, judged = without_gold([judging], runs, s, evidence=evidence), part
                        scores, t = fused_scores(runs, setting, bias, folds, judged)
                        row[s].append(scores)
                        pooled[s].append(scores)
                        if s == SCALES[0]:
                            topics.append(t)
                rows.append([np.concatenate(row[s]).mean() for s in SCALES])
            n, c = nested_choice({s: np.concatenate(v) for s, v in pooled.items()}, np.concatenate(topics), folds)
            tables[arm].append(rows)
            nested[arm].append(n)
            chosen[arm].append(Counter(c))
    for arm in arms:
        table = np.mean(tables[arm], axis=0)
        print(f"### {arm}\n")
        print_table("reader", [f"scale {s:g}" for s in SCALES], [*zip(untrained, table), ("mean", table.mean(axis=0))])
        counts = sum(chosen[arm], Counter())
        print(f"\nNested grouped CV over the pooled readers: {np.mean(nested[arm]):.4f}, the scale chosen in the "
              f"{sum(counts.values())} outer folds: " + ", ".join(f"{s:g} in {counts[s]}" for s in SCALES if counts[s])
              + f" (shipped: SCALE = {SCALE:g})\n", flush=True)


def estimated_on(reader, part: set[str], runs, scale: float, evidence):
    """The reader's judgements of every question, weighed by the gold-free estimate on those of `part` only."""
    def weighed(analyses, edges, known):
        (cal,) = estimate_without_gold([reader.for_questions(part)], *known, TrustSettings(scale=scale))
        return (cal.apply(reader),)
    return per_run(runs, weighed, evidence)


def shrinkage(repeats, untrained: dict, trained: dict, nested: dict[str, list[float]], bias: int, folds: int) -> None:
    print("## Shrinkage towards a fixed weight (measured, not shipped)\n")
    print("The default's log-odds pulled part of the way towards the reader's raw log-odds at a fixed weight; "
          "against each reader's nested fixed weight, means over the repeats.\n")
    print("| shrinkage | towards weight | not trained on train: at or above | mean | lowest | trained on train: at or "
          "above | mean | lowest |")
    print("|---|---|---|---|---|---|---|---|")
    for shrink in SHRINKS:
        for toward in TOWARDS:
            cells = []
            for group in (untrained, trained):
                diffs = [np.mean([fused_scores(runs, shrunk([reader], runs, shrink, toward), bias, folds)[0].mean()
                                  for runs in repeats]) - np.mean(nested[stem]) for stem, reader in group.items()]
                cells += [f"{sum(d >= -1e-9 for d in diffs)} of {len(diffs)}", f"{np.mean(diffs):+.4f}",
                          f"{min(diffs):+.4f}"]
            print(f"| {shrink:g} | {toward} | " + " | ".join(cells) + " |", flush=True)
    print()


def shrunk(readers, runs, shrink: float, toward: int):
    """The gold-free default with each judgement's log-odds pulled `shrink` of the way towards its raw log-odds
    at the fixed weight `toward`."""
    default = without_gold(readers, runs)

    def setting(analyses, edges, training):
        out = []
        for r in default(analyses, edges, training):
            pulled = {k: replace(j, calibrated=round((1 - shrink) * j.log_odds() + shrink * toward / r.weight
                                                     * replace(j, calibrated=None).log_odds()))
                      for k, j in r.judgements.items()}
            out.append(replace(r, judgements=pulled))
        return tuple(out)
    return setting


def guard(analyses, pieces, runs, untrained: dict, test_shapes, bias: int, folds: int, seed: int = 0) -> None:
    print("## The guard: few open options\n")
    print("Topics of k dev questions (each dev-only topic's questions in a seeded order, cut into topics of k), each "
          "answered and calibrated on its own with the structure model trained for the test split's shapes, as a "
          "user's own small topic is answered; then the dev-only topics of the first repeat in runs of m topics, "
          "each run calibrated on its own. The estimate without the guard against fixed weights.\n")
    copies = blend_copies(analyses, test_shapes)
    for k in SMALL_SIZES:
        small = []
        for piece in pieces:
            whole = next(a for a in analyses if a.topic.topic_id == piece.topic.topic_id)
            index = {q.qid: i for i, q in enumerate(whole.topic.questions)}
            order = [index[q.qid] for q in piece.topic.questions]
            random.Random(f"{seed}/{piece.topic.topic_id}/{k}").shuffle(order)
            small += [subset_analysis(whole, order[i:i + k]) for i in range(0, len(order), k)]
        edges = structure_edges(analyses, small, folds, copies=copies)
        _guard_table(f"topics of {k} ({len(small)} topics)", [([p], [e]) for p, e in zip(small, edges)], untrained,
                     bias, folds)
    for m in RUN_SIZES:
        (topics, edges), = runs
        grouped = [(topics[i:i + m], edges[i:i + m]) for i in range(0, len(topics), m)]
        _guard_table(f"runs of {m} dev-only topic{'s' * (m > 1)} ({len(grouped)} runs)", grouped, untrained, bias,
                     folds)


def _guard_table(title: str, runs, untrained: dict, bias: int, folds: int) -> None:
    print(f"### {title}\n")
    print("| reader | open options per run | " + " | ".join(f"weight {w}" for w in SMALL_WEIGHTS) +
          " | no gold, without the guard | with the guard (default) |")
    print("|---|---|" + "---|" * (len(SMALL_WEIGHTS) + 2))
    rows = []
    evidence = [option_evidence(*run) for run in runs]
    structure = fused_scores(runs, structure_only, bias, folds)[0].mean()
    for stem, reader in untrained.items():
        n = np.mean([len(open_keys(reader, *known)) for known in evidence])
        row = [fused_scores(runs, fixed_weight([reader], w), bias, folds)[0].mean() if w else structure
               for w in SMALL_WEIGHTS]
        row.append(fused_scores(runs, without_gold([reader], runs, min_open=0, evidence=evidence), bias,
                                folds)[0].mean())
        row.append(fused_scores(runs, without_gold([reader], runs, evidence=evidence), bias, folds)[0].mean())
        rows.append(row)
        print(f"| {stem} | {n:.0f} | " + " | ".join(f"{v:.4f}" for v in row) + " |", flush=True)
    print("| mean | | " + " | ".join(f"{v:.4f}" for v in np.mean(rows, axis=0)) + " |")
    print(f"\n(shipped: MIN_OPEN = {MIN_OPEN}, FALLBACK_WEIGHT = {FALLBACK_WEIGHT})\n")


def several(repeats, readers: dict, bias: int, folds: int) -> None:
    print("## Several readers at once\n")
    print("| readers | each alone | best fixed weight each, nested CV | `calibrate` (gold of other topics) | no gold, "
          "joint EM (default) |")
    print("|---|---|---|---|---|")
    for combo in COMBINATIONS:
        if not all(c in readers for c in combo):
            continue
        chosen = [readers[c] for c in combo]
        alone = " / ".join(f"{reader_alone(repeats[0], r):.4f}" for r in chosen)
        row = np.mean([[nested_weight(runs, chosen, bias, folds, WEIGHTS)[0].mean(),
                        fused_scores(runs, with_gold(chosen, runs), bias, folds)[0].mean(),
                        fused_scores(runs, without_gold(chosen, runs), bias, folds)[0].mean()] for runs in repeats],
                      axis=0)
        print(f"| {' + '.join(combo)} | {alone} | " + " | ".join(f"{v:.4f}" for v in row) + " |", flush=True)
