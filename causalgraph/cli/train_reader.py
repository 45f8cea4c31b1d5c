"""`causalgraph train --reader crossencoder`: fine-tune the cross-encoder reader with grouped-by-topic
CV, measure it alone and fused with the structure model inside the answer set program, and (with --out) fit
it on every labelled topic and write it as a model folder."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from ..data import load_labelled
from ..measure.crossencoder import fit_reader, fusion_rows, held_out_judgements
from ..measure.inputs import describe_held, labelled_analyses, shipped_bias
from ..learn.crossval import fold_scorers, resized_sets
from ..readers.crossencoder import SETTINGS_FILE, option_inputs
from ..data.files import write_files
from .common import check_run_outputs


def crossencoder_main(args: argparse.Namespace, topics: list, shapes: list) -> int:
    folder = args.out
    if folder is not None:
        try:
            check_run_outputs(args, {"--out": folder / "model.safetensors", "its settings": folder / SETTINGS_FILE,
                                     "its README": folder / "README.md"})
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
    judgements, auc = held_out_judgements(inputs, [t.topic_id for t in evidence_topics], args.folds, args.base,
                                          args.epochs, args.seed)
    options = sum(len(topic) for topic in inputs)
    passages = ("BM25 + encoder passages from the documents (topics 1-10) and train-evidence/ (11-36)" if args.evidence
                else "question text alone")
    print(f"cross-encoder from {args.base}, {args.epochs} epochs, class-weighted, seed {args.seed}, {passages}; "
          f"grouped {args.folds}-fold CV: option AUC {auc:.3f} over {options} real options "
          f"({time.time() - start:.0f}s)", flush=True)

    print("| held-out topics | structure alone | reader alone | fused (weight chosen per outer fold) | weights |")
    print("|---|---|---|---|---|")
    names = {"whole": "whole", "test-shaped": f"cut to the test shapes ({describe_held(held, shapes)})"
             if held is not None else ""}
    for regime, structure, alone, fused, chosen in fusion_rows(analyses, models, held, judgements, bias, args.folds):
        print(f"| {names[regime]} | {structure:.4f} | {alone:.4f} | {fused:.4f} | {chosen} |", flush=True)
    if folder is not None:
        model = fit_reader(inputs, args.base, args.epochs, args.seed, "all topics")
        with tempfile.TemporaryDirectory() as tmp:
            model.save(tmp)
            files: dict[Path, str | bytes] = {folder / p.name: p.read_bytes() for p in Path(tmp).iterdir()
                                              if p.is_file()}
        files[folder / SETTINGS_FILE] = json.dumps({"encoder": args.encoder, "evidence": args.evidence,
                                                    "base": args.base, "epochs": args.epochs, "seed": args.seed},
                                                   indent=1)
        files[folder / "README.md"] = (f"# Cross-encoder reader\n\nFine-tuned from `{args.base}` on every labelled "
                                       f"topic ({passages}), {args.epochs} epochs, class-weighted, seed {args.seed}, "
                                       f"fp16.\nGrouped {args.folds}-fold CV option AUC {auc:.3f}.\n\nCommand: `python "
                                       f"-m causalgraph.train --reader crossencoder --data {args.data} --folds "
                                       f"{args.folds} --epochs {args.epochs} --out {folder}`\n")
        write_files(files)
        print(f"wrote {folder} ({sum(len(b) for b in files.values()) / 2**20:.1f} MiB) in {time.time() - start:.0f}s")
    return 0
