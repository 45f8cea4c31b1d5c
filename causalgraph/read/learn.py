"""Fine-tuning the reader (read/model.py) on the annotated corpora (read/corpora.py): one shared encoder, its
three heads trained together, batches of one head at a time in a seeded order."""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from torch import nn
from tqdm import tqdm

from .corpora import PairExample, SentenceExample, TagExample
from .model import FROZEN, TAGS, ReaderNet, base_network, save
from .reader import CausalReader

BATCH = 16
IGNORE = -100  # the tag of [CLS] and [SEP], not learned


@dataclass
class Corpus:
    """The examples of the three heads."""

    sentences: list[SentenceExample] = field(default_factory=list)
    tags: list[TagExample] = field(default_factory=list)
    pairs: list[PairExample] = field(default_factory=list)

    def where(self, keep) -> "Corpus":
        """The examples whose group `keep` accepts."""
        return Corpus([x for x in self.sentences if keep(x.group)], [x for x in self.tags if keep(x.group)],
                      [x for x in self.pairs if keep(x.group)])


@dataclass(frozen=True)
class Settings:
    """How the reader is trained."""

    base: str = "all-MiniLM-L6-v2"
    epochs: int = 2
    lr: float = 5e-5
    negatives: float = 1.0  # pairs with no causal link drawn per epoch, per causal pair (weighted back in the loss)
    max_length: int = 192
    seed: int = 0


def tag_ids(offsets: list[tuple[int, int]], spans: tuple[tuple[int, int, str], ...]) -> list[int]:
    """Each token's tag (TAGS) from the character spans: B on a span's first token, I on the rest."""
    out = []
    for s, e in offsets:
        if s == e:
            out.append(IGNORE)
            continue
        tag = "O"
        for ss, se, kind in spans:
            if ss <= s < se:
                tag = ("B-" if not out or out[-1] not in (TAGS.index(f"B-{kind}"), TAGS.index(f"I-{kind}"))
                       or s == ss else "I-") + kind
                break
        out.append(TAGS.index(tag))
    return out


def fit(corpus: Corpus, settings: Settings = Settings(), progress: bool = True,
        checkpoint: Path | None = None) -> CausalReader:
    """The reader fine-tuned from `settings.base` on the corpus (float weights; `checkpoint`, a folder written
    after each epoch)."""
    torch.manual_seed(settings.seed)
    rng = random.Random(settings.seed)
    network, base_path = base_network(settings.base)
    net = ReaderNet(network)
    for name, parameter in net.named_parameters():
        parameter.requires_grad_(name not in FROZEN)
    saved = asdict(settings)
    reader = CausalReader(net, saved, base_path)
    tokens = reader.tokens

    sentence_inputs = [tokens.frame(e) for e in tokens.encode_batch([x.text for x in corpus.sentences])]
    tag_inputs = [tokens.frame(e) for e in tokens.encode_batch([x.text for x in corpus.tags])]
    tag_targets = [tag_ids(e.offsets, x.spans) for e, x in zip(tag_inputs, corpus.tags)]
    # each pair both ways round: (a, b) as given, and swapped, its label turned with it
    swapped = {0: 0, 1: 2, 2: 1, -1: -1}
    ways = [reader.pair_inputs([(x.text, x.a, x.b) for x in corpus.pairs]),
            reader.pair_inputs([(x.text, x.b, x.a) for x in corpus.pairs])]
    linked = [i for i, x in enumerate(corpus.pairs) if x.label != 0]
    unlinked = [i for i, x in enumerate(corpus.pairs) if x.label == 0]
    draw = min(len(unlinked), round(settings.negatives * len(linked)))
    weight = len(unlinked) / draw if draw else 1.0

    def batches() -> list[tuple[str, list]]:
        """One epoch's batches: each a head and its examples, similar lengths together, in a seeded order."""
        out: list[tuple[str, list]] = []
        pairs = linked + rng.sample(unlinked, draw)
        pair_items = [(i, rng.random() < 0.5) for i in pairs]
        for head, items, length in (
                ("sentence", list(range(len(sentence_inputs))), lambda i: len(sentence_inputs[i].ids)),
                ("tags", list(range(len(tag_inputs))), lambda i: len(tag_inputs[i].ids)),
                ("pair", pair_items, lambda it: len(ways[it[1]][it[0]][0].ids))):
            rng.shuffle(items)
            for start in range(0, len(items), BATCH * 20):  # sort within chunks: less padding, still shuffled
                chunk = sorted(items[start : start + BATCH * 20], key=length)
                out += [(head, chunk[i : i + BATCH]) for i in range(0, len(chunk), BATCH)]
        rng.shuffle(out)
        return out

    total = settings.epochs * len(batches())
    optimiser = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=settings.lr, weight_decay=0.01)
    warmup = max(1, total // 16)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: min((step + 1) / warmup, max(0.0, (total - step) / max(1, total - warmup))))
    bce, ce = nn.BCEWithLogitsLoss(), nn.CrossEntropyLoss(ignore_index=IGNORE)
    bar = tqdm(total=total, desc="training the reader", unit="batch", disable=not progress)
    net.train()
    for epoch in range(settings.epochs):
        for head, items in batches():
            if head == "sentence":
                ids, mask = tokens.batch([sentence_inputs[i] for i in items])
                labels = torch.tensor([float(corpus.sentences[i].causal) for i in items])
                loss = bce(net.sentence_logits(ids, mask), labels)
            elif head == "tags":
                ids, mask = tokens.batch([tag_inputs[i] for i in items])
                targets = torch.full(ids.shape, IGNORE, dtype=torch.long)
                for row, i in enumerate(items):
                    targets[row, : len(tag_targets[i])] = torch.tensor(tag_targets[i])
                loss = ce(net.tag_logits(ids, mask).reshape(-1, len(TAGS)), targets.reshape(-1))
            else:
                inputs = [ways[way][i] for i, way in items]
                ids, mask = tokens.batch([x[0] for x in inputs])
                logits = net.pair_logits(ids, mask, torch.tensor([x[1] for x in inputs]),
                                         torch.tensor([x[2] for x in inputs]))
                loss = pair_loss(logits, [corpus.pairs[i].label if not way else swapped[corpus.pairs[i].label]
                                          for i, way in items], weight)
            optimiser.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            bar.update()
            bar.set_postfix(epoch=epoch + 1, loss=f"{loss.item():.3f}")
        if checkpoint is not None:
            save(net, checkpoint, {**saved, "epochs_done": epoch + 1})
    bar.close()
    net.eval()
    for parameter in net.parameters():
        parameter.requires_grad_(False)
    return reader


def pair_loss(logits: torch.Tensor, labels: list[int], unlinked_weight: float) -> torch.Tensor:
    """Cross-entropy over (none, a caused b, b caused a); a link of no given direction (-1) by the probability of
    either direction; unlinked pairs weighted back to their share of the corpus."""
    logp = torch.log_softmax(logits, -1)
    losses, weights = [], []
    for row, label in enumerate(labels):
        if label == -1:
            losses.append(-torch.logsumexp(logp[row, 1:], 0))
        else:
            losses.append(-logp[row, label])
        weights.append(unlinked_weight if label == 0 else 1.0)
    w = torch.tensor(weights)
    return (torch.stack(losses) * w).sum() / w.sum()

