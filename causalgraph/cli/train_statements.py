"""`causalgraph train --reader-model FOLDER`: fine-tune the reader of causal statements (causalgraph.read) on the
Causal News Corpus and EventStoryLine, measure it under cross-validation grouped by document and by topic, and write
it with its model card."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..data import DataError
from ..data.files import write_files
from ..run.output import check_outputs
from .common import plural

CARD = "README.md"


def reader_card(args: argparse.Namespace, settings, lines: list[str], counts: dict[str, int], size: int,
                thresholds: dict[str, float] | None) -> str:
    """The model card: what the reader is, its data with their licenses, how it was trained, its figures."""
    from .cv import environment_line

    figures = "\n".join(f"    {line}" for line in lines) if lines else "    (not measured: --reader-folds 0)"
    return f"""# The reader of causal statements

- `{settings.base}` (BERT, 6 layers) fine-tuned with three heads on one encoder: whether a text states a causal
  relation (its tokens' mean), the cause and effect words (BIO tags), and which of two marked events caused the
  other (none, a caused b, b caused a). Loaded by `causalgraph.read.CausalReader`; `python -m causalgraph.read`.
- Data, read from `{args.causal_news}` and `{args.storyline}`:
  - the Causal News Corpus V2, train split (Tan et al., LREC 2022; `tanfiona/CausalNewsCorpus`; CC0 1.0):
    {plural(counts["sentences"], "sentence")}, {plural(counts["relations"], "annotated relation")};
  - EventStoryLine v0.9 (Caselli and Vossen, 2017; `tommasoc80/EventStoryLine`; CC BY 3.0; adapted: the CAT XML
    turned into JSON lines), 17 of its 22 topics: {plural(counts["storyline"], "pair")} of event mentions within
    and across sentences ({counts["linked"]} causally linked).
- Training: {settings.epochs} epochs, AdamW at {settings.lr:g} (linear warm-up and decay), batches of 16 of one head,
  every causal pair and {settings.negatives:g} unlinked pair per causal one drawn anew each epoch (weighted back to
  their share), each pair marked either way round at random, word embeddings frozen; seed {settings.seed}.
- Weights: float16, all but the word embeddings (those of the installed `{settings.base}`); read and `cg.read` run
  them in float, the answer path in int8.
- The pair head's odds of a link are scaled so that 0.5 reads as the threshold of the best held-out F1 on
  EventStoryLine's pairs (the cross-validation below; `link_thresholds` in reader.json), within a sentence and
  across sentences{f": {thresholds}" if thresholds else " (none: no cross-validation)"}.
- Command: `python -m causalgraph.train --reader-model {args.reader_model} --reader-folds \
{args.reader_folds}{" --force" if args.force else ""}`
{environment_line()}

Cross-validation, {args.reader_folds} folds: fold i holds out the i-th part of the Causal News Corpus's documents
and of EventStoryLine's topics, and a reader trained on the rest reads them:
{figures}

- Size: {size / 2**20:.1f} MiB.
"""


def reader_model_main(args: argparse.Namespace) -> int:
    """Train (and measure) the reader of causal statements, and write it to --reader-model."""
    from ..read.corpora import causal_news, storyline
    from ..read.learn import Corpus, Settings

    folder: Path = args.reader_model
    try:
        sentences, tags, pairs = causal_news(args.causal_news)
        story = storyline(args.storyline)
        check_outputs({"--reader-model": folder / "reader.safetensors"},
                      [args.causal_news / "train.jsonl", *(args.storyline / n for n in
                                                           ("train.jsonl", "train-text.jsonl", "train-pairs.jsonl"))])
    except (DataError, OSError, ValueError, KeyError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    import tempfile

    import torch

    from ..read.evaluate import figures, held_out, link_thresholds
    from ..read.learn import fit
    from ..read.model import save

    torch.set_num_threads(1)  # one thread trains this small network faster than two here (measured)
    start = time.time()
    corpus = Corpus(sentences, tags, pairs + story)
    settings = Settings(base=args.base, epochs=args.epochs, seed=args.seed)
    lines: list[str] = []
    thresholds: dict[str, dict[str, float]] = {}
    if args.reader_folds:
        rows = held_out(corpus, settings, args.reader_folds, not args.quiet)
        lines = figures(rows).lines()
        thresholds = {"link_thresholds": link_thresholds(rows)}
        print("\n".join(lines), flush=True)
    reader = fit(corpus, settings, not args.quiet)
    with tempfile.TemporaryDirectory() as tmp:
        save(reader.net, Path(tmp), {**reader.settings, **thresholds})
        files: dict[Path, str | bytes] = {folder / p.name: p.read_bytes() for p in Path(tmp).iterdir()}
    counts = {"sentences": len(sentences), "relations": len(pairs), "storyline": len(story),
              "linked": sum(x.label != 0 for x in story)}
    size = sum(len(b) for b in files.values())
    files[folder / CARD] = reader_card(args, settings, lines, counts, size, thresholds.get("link_thresholds"))
    write_files(files)
    print(f"wrote {folder} ({size / 2**20:.1f} MiB) in {time.time() - start:.0f}s")
    return 0
