"""The document timeline of a topic: each event's mentions in the documents, the dates they carry, and the
before/after and causal edges that dates, temporal connectives and causal cues give, each with the sentence
it comes from. Events are keyed by their normalised text, so a timeline serves any subset of the topic's
questions; `timeline_graph` lays it out as a networkx graph for export."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import numpy as np

from ..text.dates import PartialDate, date_text, is_after, parse_date
from ..text.extract import CueMatch, TopicExtraction
from .retrieve import Retrieval

MENTION_MIN = 0.6  # relevance (cosine + a share of BM25) a sentence needs to count as a mention of an event
MENTIONS = 3  # mentions kept per event, best first
CLAUSE_MIN = 0.6  # cosine a cue's clause needs with an event to stand for it


@dataclass(frozen=True)
class Edge:
    """An ordered relation between two events and where it comes from: `basis` is "dates" (the sentences
    dating each event) or the cue phrase of the one sentence that states it."""

    basis: str
    sentences: tuple[int, ...]


@dataclass(frozen=True)
class Timeline:
    """Per event (normalised text): mentions (sentence indices) and date (with the sentence giving it);
    `before[(a, b)]`: a happened before b; `causes[(a, b)]`: a sentence says a caused b."""

    mentions: dict[str, tuple[int, ...]] = field(default_factory=dict)
    dates: dict[str, tuple[PartialDate, int]] = field(default_factory=dict)
    before: dict[tuple[str, str], Edge] = field(default_factory=dict)
    causes: dict[tuple[str, str], Edge] = field(default_factory=dict)

    def after(self, cause: str, target: str) -> bool:
        """True when the documents place the cause after the target."""
        return (target, cause) in self.before


def build_timeline(extraction: TopicExtraction, texts: list[str], norms: list[str], retrieval: Retrieval,
                   event_vectors: np.ndarray, cue_vectors: dict[CueMatch, tuple[np.ndarray, np.ndarray]]) -> Timeline:
    """The timeline of the events (`texts`, `norms`: rows of the `retrieval` and of `event_vectors`) from the
    extraction's sentences and cue matches (`cue_vectors`: their clauses' vectors). An event's date is the one its own
    text states, else that of its best dated mention (sentence
    -1 in `dates` stands for the event's text)."""
    mentions: dict[str, tuple[int, ...]] = {}
    dates: dict[str, tuple[PartialDate, int]] = {}
    for e, norm in enumerate(norms):
        best = [s for s, r in retrieval.best(e, MENTIONS) if r >= MENTION_MIN]
        if best:
            mentions[norm] = tuple(best)
        dated = [(d, s) for s in best if (d := extraction.sentences[s].date) is not None]
        own = parse_date(texts[e])
        if own is not None:
            dates[norm] = (own, -1)
        elif dated:
            dates[norm] = dated[0]
    before: dict[tuple[str, str], Edge] = {}
    for a, (da, sa) in dates.items():
        for b, (db, sb) in dates.items():
            # two event texts: later(E,T,dates) in rules/temporal.lp
            if a != b and is_after(db, da) and max(sa, sb) >= 0:
                before[(a, b)] = Edge("dates", tuple(s for s in (sa, sb) if s >= 0))
    causes: dict[tuple[str, str], Edge] = {}
    if cue_vectors and len(event_vectors):
        for cue, (cause_vec, effect_vec) in cue_vectors.items():
            cause_sim, effect_sim = event_vectors @ cause_vec, event_vectors @ effect_vec
            # the two clauses stand for two different events: the pair that both clauses match best
            both = np.minimum(cause_sim[:, None], effect_sim[None, :])
            np.fill_diagonal(both, -np.inf)
            i, j = np.unravel_index(int(np.argmax(both)), both.shape)
            if both[i, j] < CLAUSE_MIN:
                continue
            edge = Edge(cue.cue, (cue.sentence,))
            before.setdefault((norms[i], norms[j]), edge)
            if cue.kind == "causal":
                causes.setdefault((norms[i], norms[j]), edge)
    conflicts = {p for p in before if (p[1], p[0]) in before}
    return Timeline(mentions, dates, {p: e for p, e in before.items() if p not in conflicts}, causes)


def timeline_graph(timeline: Timeline, extraction: TopicExtraction, documents,
                   texts: dict[str, str]) -> nx.MultiDiGraph:
    """Events, the sentences that mention them and their documents as one graph: `mentions` edges from
    sentence to event, `in` from sentence to document, and `before` and `causes` edges between events, each
    with its basis and the text of its sentences (attributes are strings and numbers, for GraphML)."""
    graph = nx.MultiDiGraph()
    for i, doc in enumerate(documents):
        graph.add_node(f"d{i}", kind="document", title=doc.title, date=doc.date, source=doc.source)
    used = sorted({s for ss in timeline.mentions.values() for s in ss}
                  | {s for e in [*timeline.before.values(), *timeline.causes.values()] for s in e.sentences})
    for s in used:
        sentence = extraction.sentences[s]
        graph.add_node(f"s{s}", kind="sentence", text=sentence.text,
                       date=date_text(sentence.date), relative_date=sentence.relative)
        graph.add_edge(f"s{s}", f"d{sentence.doc}", kind="in")
    for norm, text in sorted(texts.items()):
        date = timeline.dates.get(norm)
        graph.add_node(f"e:{norm}", kind="event", text=text, date=date_text(date[0]) if date else "")
        for s in timeline.mentions.get(norm, ()):
            graph.add_edge(f"s{s}", f"e:{norm}", kind="mentions")
    for kind, edges in (("before", timeline.before), ("causes", timeline.causes)):
        for (a, b), edge in sorted(edges.items()):
            if a in texts and b in texts:
                graph.add_edge(f"e:{a}", f"e:{b}", kind=kind, basis=edge.basis,
                               evidence=" | ".join(extraction.sentences[s].text for s in edge.sentences))
    return graph


def graph_format(path: str | os.PathLike) -> str:
    """The export format a path names by its suffix, "graphml" or "json"; ValueError for any other."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".graphml", ".json"):
        raise ValueError(f"{path}: the graph is written as .graphml or .json, not {suffix or 'no suffix'!r}")
    return suffix[1:]


# Characters that XML 1.0 does not allow in a document at all, escaped or not (most control characters).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _xml_text(value):
    """A string attribute with the characters XML cannot hold written as Python escapes (\\x1b); other values as
    they are."""
    return _NOT_XML.sub(lambda m: repr(m.group())[1:-1], value) if isinstance(value, str) else value


def xml_safe(graph: nx.Graph) -> nx.Graph:
    """A copy of the graph that GraphML can hold: node ids and string attributes without the characters XML 1.0
    forbids (ids have their backslashes doubled as well, so that two ids stay two)."""
    ids = {n: _xml_text(n.replace("\\", "\\\\")) if isinstance(n, str) else n for n in graph}
    safe = nx.relabel_nodes(graph, ids, copy=True)
    attributes = [safe.graph, *(d for _, d in safe.nodes(data=True)), *(d for *_, d in safe.edges(data=True))]
    for data in attributes:
        data.update({k: _xml_text(v) for k, v in data.items()})
    return safe


def graph_bytes(graph: nx.Graph, path: str | os.PathLike) -> bytes:
    """The graph as GraphML (a .graphml path; see xml_safe) or networkx node-link JSON (a .json path)."""
    if graph_format(path) == "graphml":
        return "\n".join(nx.generate_graphml(xml_safe(graph))).encode()
    return json.dumps(nx.node_link_data(graph, edges="edges"), indent=1, sort_keys=True).encode()
