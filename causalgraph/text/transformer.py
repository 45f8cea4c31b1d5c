"""BERT and MPNet, the encoders of all-MiniLM-L6-v2 and all-mpnet-base-v2, in plain torch: the last hidden states
that `transformers`' BertModel and MPNetModel give, operation for operation (the same vectors, bit for bit), without
importing `transformers` (2.5 s and 150 MB at every start). Their modules and parameters carry transformers' names,
so a model.safetensors loads by name, and the tokenizer is the folder's tokenizer.json run by `tokenizers`."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

MODEL_TYPES = ("bert", "mpnet")
MPNET_PAD = 1  # MPNet's padding token, which its positions count from (transformers fixes it so, too)
MPNET_BUCKETS = 32  # MPNet's relative position buckets (transformers fixes them at 32, whatever the config says)
MPNET_DISTANCE = 128  # the distance beyond which MPNet's relative positions share a bucket


@dataclass(frozen=True)
class Config:
    """What a folder's config.json says of its network."""

    model_type: str
    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    max_position_embeddings: int
    layer_norm_eps: float
    type_vocab_size: int = 2  # BERT's segment table
    relative_attention_num_buckets: int = 32  # MPNet's relative positions

    @classmethod
    def read(cls, path: str | Path) -> Config | None:
        """The folder's config, or None where it is not a BERT or MPNet encoder run as here (GELU, absolute
        positions)."""
        try:
            raw = json.loads((Path(path) / "config.json").read_text())
            if (raw.get("model_type") not in MODEL_TYPES or raw.get("hidden_act") != "gelu"
                    or raw.get("position_embedding_type", "absolute") != "absolute"
                    or not (Path(path) / "tokenizer.json").is_file()):
                return None
            return cls(**{name: raw[name] for name in cls.__dataclass_fields__ if name in raw})
        except (OSError, ValueError, TypeError, AttributeError):
            return None


def _dense(config: Config, inner: int | None = None, outer: int | None = None) -> nn.Linear:
    return nn.Linear(inner or config.hidden_size, outer or config.hidden_size)


def _table(rows: int, size: int) -> nn.Embedding:
    """An embedding table with no initial values (an empty tensor: on the meta device, `Network.empty`, no memory
    either): its weights are read from a file next, and nn.Embedding's own initialisation (normal_) would load
    torch's meta kernels there, a second at every cold start."""
    return nn.Embedding.from_pretrained(torch.empty(rows, size), freeze=False)


class _Residual(nn.Module):
    """dense, then LayerNorm of it plus the input (BERT's SelfOutput and Output, MPNet's Output)."""

    def __init__(self, config: Config, inner: int | None = None):
        super().__init__()
        self.dense = _dense(config, inner)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, hidden: torch.Tensor, before: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(self.dense(hidden) + before)


class _Intermediate(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.dense = _dense(config, outer=config.intermediate_size)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return nn.functional.gelu(self.dense(hidden))


def _heads(x: torch.Tensor, size: int) -> torch.Tensor:
    return x.view(*x.shape[:-1], -1, size).transpose(1, 2)


class _BertSelfAttention(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.size = config.hidden_size // config.num_attention_heads
        self.query, self.key, self.value = _dense(config), _dense(config), _dense(config)

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        q, k, v = (_heads(layer(hidden), self.size) for layer in (self.query, self.key, self.value))
        out = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.0,
                                                         scale=self.size ** -0.5, is_causal=False)
        return out.transpose(1, 2).contiguous().reshape(*hidden.shape[:-1], -1)


class _BertAttention(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.self = _BertSelfAttention(config)
        self.output = _Residual(config)

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        return self.output(self.self(hidden, mask), hidden)


class _MPNetSelfAttention(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.size = config.hidden_size // config.num_attention_heads
        self.q, self.k, self.v, self.o = _dense(config), _dense(config), _dense(config), _dense(config)

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor | None, bias: torch.Tensor) -> torch.Tensor:
        q, k, v = (_heads(layer(hidden), self.size) for layer in (self.q, self.k, self.v))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.size)
        scores += bias
        if mask is not None:
            scores = scores + mask
        out = torch.matmul(nn.functional.softmax(scores, dim=-1), v).permute(0, 2, 1, 3).contiguous()
        return self.o(out.view(*out.shape[:-2], -1))


class _MPNetAttention(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.attn = _MPNetSelfAttention(config)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor | None, bias: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(self.attn(hidden, mask, bias) + hidden)


class _Layer(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.attention = (_BertAttention if config.model_type == "bert" else _MPNetAttention)(config)
        self.intermediate = _Intermediate(config)
        self.output = _Residual(config, config.intermediate_size)

    def forward(self, hidden: torch.Tensor, *context) -> torch.Tensor:
        attended = self.attention(hidden, *context)
        return self.output(self.intermediate(attended), attended)


class _Embeddings(nn.Module):
    """Token and position embeddings (and BERT's segment embedding, every token in segment 0), normalised."""

    def __init__(self, config: Config):
        super().__init__()
        self.bert = config.model_type == "bert"
        self.word_embeddings = _table(config.vocab_size, config.hidden_size)
        self.position_embeddings = _table(config.max_position_embeddings, config.hidden_size)
        if self.bert:
            self.token_type_embeddings = _table(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        if self.bert:
            out = self.word_embeddings(ids) + self.token_type_embeddings(torch.zeros_like(ids))
            out = out + self.position_embeddings(torch.arange(ids.shape[1])[None, :])
        else:  # MPNet counts positions from MPNET_PAD + 1 over the real tokens (fairseq's make_positions)
            real = ids.ne(MPNET_PAD).int()
            positions = (torch.cumsum(real, dim=1).type_as(real) * real).long() + MPNET_PAD
            out = self.word_embeddings(ids) + self.position_embeddings(positions)
        return self.LayerNorm(out)


class _Encoder(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.layer = nn.ModuleList(_Layer(config) for _ in range(config.num_hidden_layers))
        self.relative = config.model_type == "mpnet"
        if self.relative:
            self.relative_attention_bias = _table(config.relative_attention_num_buckets, config.num_attention_heads)

    def position_bias(self, batch: int, length: int) -> torch.Tensor:
        """MPNet's relative position bias, per head, shared by its layers."""
        n = -(torch.arange(length)[None, :] - torch.arange(length)[:, None])
        buckets = MPNET_BUCKETS // 2
        bucket = (n < 0).to(torch.long) * buckets
        n = torch.abs(n)
        exact = buckets // 2
        large = exact + (torch.log(n.float() / exact) / math.log(MPNET_DISTANCE / exact)
                         * (buckets - exact)).to(torch.long)
        bucket += torch.where(n < exact, n, torch.min(large, torch.full_like(large, buckets - 1)))
        values = self.relative_attention_bias(bucket).permute([2, 0, 1]).unsqueeze(0)
        return values.expand((batch, -1, length, length)).contiguous()

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        context = (mask, self.position_bias(hidden.shape[0], hidden.shape[1])) if self.relative else (mask,)
        for layer in self.layer:
            hidden = layer(hidden, *context)
        return hidden


class Network(nn.Module):
    """A BERT or MPNet network without its pooler: token ids and their attention mask (1 real, 0 padding) to the
    last hidden states, as transformers' model(...)[0] gives them (BERT's attention by scaled_dot_product_attention
    with a boolean mask, MPNet's written out with an additive one, as transformers runs each). Its weights are
    read from a file (text.embed.read_model): its embedding tables have no initial values of their own."""

    def __init__(self, config: Config):
        super().__init__()
        self.config = config
        self.embeddings = _Embeddings(config)
        self.encoder = _Encoder(config)

    @classmethod
    def empty(cls, config: Config) -> Network:
        """The network on the meta device, in evaluation mode and frozen: parameters of the right shapes that hold
        no memory and no values, for weights read from a file next (`load_state_dict(..., assign=True)`)."""
        with torch.device("meta"):
            return cls(config).eval().requires_grad_(False)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        hidden = self.embeddings(input_ids)
        mask = None
        if not bool(attention_mask.all()):
            keep = attention_mask.bool()[:, None, None, :].expand(-1, 1, input_ids.shape[1], -1)
            mask = keep if self.config.model_type == "bert" else torch.where(
                keep, torch.tensor(0.0, dtype=hidden.dtype), torch.finfo(hidden.dtype).min)
        return self.encoder(hidden, mask)


class Tokenizer:
    """A folder's tokenizer.json, truncating each text to `max_length` tokens and padding a batch to its longest,
    as transformers' tokenizer(texts, padding=True, truncation="longest_first", max_length=...) does."""

    def __init__(self, path: str | Path, max_length: int):
        from tokenizers import Tokenizer as Fast

        folder = Path(path)
        self.fast = Fast.from_file(str(folder / "tokenizer.json"))
        pad = json.loads((folder / "tokenizer_config.json").read_text()).get("pad_token") if (
            folder / "tokenizer_config.json").is_file() else None
        pad = pad.get("content") if isinstance(pad, dict) else pad
        self.pad = self.fast.token_to_id(pad) if isinstance(pad, str) else None
        if self.pad is None:
            raise ValueError(f"{folder}: tokenizer_config.json names no padding token of its tokenizer")
        self.fast.enable_truncation(max_length=max_length, strategy="longest_first")
        self.fast.enable_padding(pad_id=self.pad, pad_token=pad)

    def __call__(self, texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """Token ids and attention mask, (texts, longest) each."""
        batch = self.fast.encode_batch(texts)
        return (torch.tensor([e.ids for e in batch], dtype=torch.long),
                torch.tensor([e.attention_mask for e in batch], dtype=torch.long))
