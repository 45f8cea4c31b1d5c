"""`python -m causalgraph.train --reader crossencoder`: fine-tune the cross-encoder reader with grouped-by-topic
CV, measure it alone and fused with the structure model inside the answer set program, and (with --out) fit
it on every labelled topic and write it as a model folder."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold
from tqdm import tqdm

from ..data import load_labelled, question_score
from ..learn.crossval import fold_scorers, held_out_regimes, resized_sets
from ..learn.fusion import nested_choice, question_topics, scores_by_weight
from ..readers.base import Judgement
from ..readers.crossencoder import SETTINGS_FILE, PairModel, distinct_examples, option_inputs
from ..run.output import check_outputs, write_files
from .common import data_files, describe_held, labelled_analyses, shipped_bias


def fit_model(args: argparse.Namespace, inputs: list, progress: str) -> PairModel:
    examples = distinct_examples([i for topic in inputs for i in topic])
    return PairModel(args.base, seed=args.seed).fit(examples, epochs=args.epochs, class_weight=True, progress=progress)


def reader_alone(scored, judgements: dict[tuple[str, str], Judgement]) -> float:
    """The reader's own score: the options it gives P >= 0.5, or its most probable one when it gives none."""
    by_question: dict[str, dict[str, float]] = {}
    for (qid, label), j in judgements.items():
        by_question.setdefault(qid, {})[label] = j.probability
    scores = []
    for a in scored:
        for q in a.topic.questions:
            probs = by_question.get(q.qid, {})
            chosen = frozenset(l for l, p in probs.items() if p >= 0.5) or frozenset([max(probs, key=probs.get)] if probs else [])
            scores.append(question_score(chosen, q.gold))
    return float(np.mean(scores))


def crossencoder_main(args: argparse.Namespace, topics: list, shapes: list) -> int:
    folder = args.out
    if folder is not None:
        try:
            check_outputs({"--out": folder / "model.safetensors"}, data_files(args.data))
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    import torch

    torch.set_num_threads(2)
    start = time.time()
    analyses = labelled_analyses(topics, args.encoder)
    extra, held = resized_sets(analyses, shapes)
    models, bias = fold_scorers(analyses, args.folds, extra=extra), shipped_bias()
    evidence_topics = load_labelled(args.data, evidence=True) if args.evidence else topics
    inputs = [option_inputs(t, args.encoder, evidence=args.evidence, gold=True)
              for t in tqdm(evidence_topics, desc="retrieving evidence", unit="topic")]
    ids = np.array([t.topic_id for t in evidence_topics])
    judgements: dict[tuple[str, str], Judgement] = {}
    for k, (train, test) in enumerate(GroupKFold(n_splits=args.folds).split(ids, groups=ids)):
        model = fit_model(args, [inputs[i] for i in train], f"fold {k + 1}/{args.folds}")
        for i in test:
            p = model.predict_proba([x.example for x in inputs[i]])
            judgements.update({(x.qid, x.label): Judgement(probability=float(v)) for x, v in zip(inputs[i], p)})
    flat = [x for topic in inputs for x in topic]
    auc = roc_auc_score([x.example.label for x in flat], [judgements[(x.qid, x.label)].probability for x in flat])
    passages = "BM25 + encoder passages from the documents (topics 1-10) and train-evidence/ (11-36)" if args.evidence else "question text alone"
    print(f"cross-encoder from {args.base}, {args.epochs} epochs, class-weighted, seed {args.seed}, {passages}; "
          f"grouped {args.folds}-fold CV: option AUC {auc:.3f} over {len(flat)} real options "
          f"({time.time() - start:.0f}s)", flush=True)

    print("| held-out topics | structure alone | reader alone | fused (weight chosen per outer fold) | weights |")
    print("|---|---|---|---|---|")
    names = {"whole": "whole", "test-shaped": f"cut to the test shapes ({describe_held(held, shapes)})" if shapes else ""}
    for regime, scored, edges in held_out_regimes(analyses, models, held):
        by_weight = scores_by_weight(scored, edges, judgements, bias, "crossencoder")
        fused, chosen = nested_choice(by_weight, question_topics(scored), args.folds)
        print(f"| {names[regime]} | {by_weight[0].mean():.4f} | {reader_alone(scored, judgements):.4f} | {fused:.4f} | {chosen} |", flush=True)
    if folder is not None:
        model = fit_model(args, inputs, "all topics")
        with tempfile.TemporaryDirectory() as tmp:
            model.save(tmp)
            files = {folder / p.name: p.read_bytes() for p in Path(tmp).iterdir() if p.is_file()}
        files[folder / SETTINGS_FILE] = json.dumps({"encoder": args.encoder, "evidence": args.evidence,
                                                    "base": args.base, "epochs": args.epochs, "seed": args.seed}, indent=1)
        files[folder / "README.md"] = (f"# Cross-encoder reader\n\nFine-tuned from `{args.base}` on every labelled topic "
                                       f"({passages}), {args.epochs} epochs, class-weighted, seed {args.seed}, fp16.\n"
                                       f"Grouped {args.folds}-fold CV option AUC {auc:.3f}.\n\nCommand: `python -m causalgraph.train "
                                       f"--reader crossencoder --data {args.data} --folds {args.folds} --epochs {args.epochs} --out {folder}`\n")
        write_files(files)
        print(f"wrote {folder} ({sum(len(b) for b in files.values()) / 2**20:.1f} MiB) in {time.time() - start:.0f}s")
    return 0
