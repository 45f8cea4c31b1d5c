"""The reader of causal statements: one encoder (all-MiniLM-L6-v2's BERT, run by text/transformer.py) fine-tuned
here on news that people annotated for causality, with three heads over its last hidden states:
- `sentence`: the probability that a text states a causal relation (its tokens' mean);
- `tags`: each token's part in a statement, cause or effect (BIO: TAGS);
- `pair`: given two events marked in a passage (`@ a @`, `# b #`), whether a caused b, b caused a, or neither
  (PAIR_CLASSES; its input the hidden states of the passage's mean and of the two opening markers).

The weights of the fine-tuned network ship in the package beside its card (models/reader/), in float16, all but
the word embeddings, which stay those of the installed base encoder."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from ..text.transformer import Network

TAGS = ("O", "B-C", "I-C", "B-E", "I-E")
PAIR_CLASSES = ("none", "a_causes_b", "b_causes_a")
MARKERS = {"a": ("@", "@"), "b": ("#", "#")}  # single tokens of BERT's vocabulary, around each marked event
FROZEN = ("encoder.embeddings.word_embeddings.weight",)  # kept as the base has them, so not shipped


@dataclass(frozen=True)
class Encoded:
    """A tokenized text: its token ids and each token's character span in the text ((0, 0) for [CLS], [SEP])."""

    ids: list[int]
    offsets: list[tuple[int, int]]


class Tokens:
    """The base encoder's tokenizer.json, with each token's character offsets; texts longer than `max_length`
    tokens are cut at the end (`frame`) or around two places (`window`)."""

    def __init__(self, folder: str | Path, max_length: int):
        from tokenizers import Tokenizer

        self.fast = Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
        self.fast.no_truncation()
        self.fast.no_padding()
        self.max_length = max_length
        special = [self.fast.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]")]
        if None in special:
            raise OSError(f"{folder}: its tokenizer.json is not BERT's (no [CLS], [SEP] or [PAD])")
        self.cls, self.sep, self.pad = (int(t) for t in special)  # type: ignore[arg-type]

    def encode_batch(self, texts: list[str]) -> list[Encoded]:
        """The texts' tokens, without [CLS] and [SEP]."""
        return [Encoded(list(e.ids), list(e.offsets)) for e in self.fast.encode_batch(texts, add_special_tokens=False)]

    def frame(self, encoded: Encoded, keep: list[int] | None = None) -> Encoded:
        """[CLS] tokens [SEP], the tokens those of `keep` (positions) where given, else the first that fit."""
        room = self.max_length - 2
        positions = keep if keep is not None else list(range(min(len(encoded.ids), room)))
        return Encoded([self.cls, *(encoded.ids[i] for i in positions), self.sep],
                       [(0, 0), *(encoded.offsets[i] for i in positions), (0, 0)])

    def window(self, encoded: Encoded, first: int, second: int) -> list[int]:
        """The positions kept of a text too long for the model, around the tokens `first` and `second`: the
        stretch that holds both, centred on them, or where they are too far apart, half the room around each."""
        room, n = self.max_length - 2, len(encoded.ids)
        if n <= room:
            return list(range(n))
        lo, hi = min(first, second), max(first, second)
        if hi - lo < room:
            start = max(0, min(n - room, (lo + hi) // 2 - room // 2))
            start = min(start, lo)
            return list(range(start, start + room))
        half = room // 2
        a = max(0, lo - half // 4)
        b = max(a + half, hi + half // 4 - (room - half))
        return list(range(a, a + half)) + list(range(b, min(n, b + room - half)))

    def batch(self, framed: list[Encoded]) -> tuple[torch.Tensor, torch.Tensor]:
        """Token ids and attention mask, padded to the longest."""
        longest = max(len(e.ids) for e in framed)
        ids = torch.full((len(framed), longest), self.pad, dtype=torch.long)
        mask = torch.zeros((len(framed), longest), dtype=torch.long)
        for i, e in enumerate(framed):
            ids[i, : len(e.ids)] = torch.tensor(e.ids)
            mask[i, : len(e.ids)] = 1
        return ids, mask


class ReaderNet(nn.Module):
    """The encoder and its three heads."""

    def __init__(self, encoder: Network):
        super().__init__()
        size = encoder.config.hidden_size
        self.encoder = encoder
        self.dropout = nn.Dropout(0.1)
        self.sentence = nn.Linear(size, 1)
        self.tags = nn.Linear(size, len(TAGS))
        self.pair = nn.Sequential(nn.Linear(3 * size, size), nn.GELU(), nn.Linear(size, len(PAIR_CLASSES)))

    def hidden(self, ids: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The last hidden states, and their mean over the real tokens."""
        states = self.encoder(ids, mask)
        weights = mask.unsqueeze(-1).to(states.dtype)
        return states, (states * weights).sum(1) / weights.sum(1).clamp(min=1)

    def sentence_logits(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.sentence(self.dropout(self.hidden(ids, mask)[1])).squeeze(-1)

    def tag_logits(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.tags(self.dropout(self.hidden(ids, mask)[0]))

    def pair_logits(self, ids: torch.Tensor, mask: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        """`a`, `b`: the position of each passage's two opening markers."""
        states, mean = self.hidden(ids, mask)
        rows = torch.arange(ids.shape[0])
        return self.pair(self.dropout(torch.cat([mean, states[rows, a], states[rows, b]], dim=-1)))


SETTINGS = "reader.json"
WEIGHTS = "reader.safetensors"


def save(net: ReaderNet, folder: Path, settings: dict) -> None:
    """The network's weights (all but FROZEN, in float16) and its settings, written to `folder`."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to(torch.float16).contiguous() for k, v in net.state_dict().items() if k not in FROZEN}
    save_file(state, str(folder / WEIGHTS))
    (folder / SETTINGS).write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n")


def base_network(base: str) -> tuple[Network, str]:
    """The float network of a base encoder (a shipped name or a local folder) and its folder."""
    from ..text.embed import read_model, resolve_model_path

    path = resolve_model_path(base)
    return read_model(path), path


def load(folder: Path) -> tuple[ReaderNet, dict, str]:
    """The network saved in `folder` on its base encoder's word embeddings, with its settings and the base's
    folder; raises OSError naming the file where it is missing or does not fit."""
    from safetensors.torch import load_file

    try:
        settings = json.loads((folder / SETTINGS).read_text())
        network, path = base_network(settings["base"])
        net = ReaderNet(network)
        state = load_file(str(folder / WEIGHTS))
    except (KeyError, ValueError) as err:
        raise OSError(f"{folder}: not a reader model ({err})") from err
    wanted = set(net.state_dict()) - set(FROZEN)
    if set(state) != wanted:
        raise OSError(f"{folder / WEIGHTS}: its tensors are not those of the reader on {settings['base']}")
    for name, parameter in net.state_dict().items():
        if name in state and tuple(state[name].shape) != tuple(parameter.shape):
            raise OSError(f"{folder / WEIGHTS}: {name} has shape {tuple(state[name].shape)}, not "
                          f"{tuple(parameter.shape)}")
    net.load_state_dict({k: v.float() for k, v in state.items()}, strict=False)
    for p in net.parameters():
        p.requires_grad_(False)
    return net.eval(), settings, path
