"""The per-topic event graph: one node per distinct event text, candidate cause edges between them."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from ..data import LABELS, Topic, is_none_option, normalize_text


@dataclass(frozen=True)
class QuestionSlots:
    """A question as graph node ids: its target, the event behind each label, and the None label if offered."""

    qid: str
    target: int
    options: dict[str, int]
    none_label: str | None


def build_graph(topic: Topic) -> nx.DiGraph:
    """Nodes are events (ids in order of first appearance); an edge E -> T means E is offered as a cause of T.

    Node attributes: `text`, `norm`, `targets_of` (question ids where it is the target), `option_of`.
    Edge attributes: `questions` (question ids offering the pair), `none_questions` (those that offer None).
    `graph.graph["questions"]` maps question id to its QuestionSlots.
    """
    graph = nx.DiGraph(topic_id=topic.topic_id, title=topic.title, questions={})
    ids: dict[str, int] = {}

    def node(text: str) -> int:
        norm = normalize_text(text)
        if norm not in ids:
            ids[norm] = len(ids)
            graph.add_node(ids[norm], text=text.strip(), norm=norm, targets_of=[], option_of=[])
        return ids[norm]

    for q in topic.questions:
        target = node(q.target)
        graph.nodes[target]["targets_of"].append(q.qid)
        options = {}
        for label, text in zip(LABELS, q.options):
            if is_none_option(text):
                continue
            event = node(text)
            options[label] = event
            graph.nodes[event]["option_of"].append(q.qid)
            if event == target:
                continue
            if not graph.has_edge(event, target):
                graph.add_edge(event, target, kind="candidate", questions=[], none_questions=[])
            edge = graph.edges[event, target]
            if q.qid not in edge["questions"]:
                edge["questions"].append(q.qid)
                if q.none_label:
                    edge["none_questions"].append(q.qid)
        graph.graph["questions"][q.qid] = QuestionSlots(q.qid, target, options, q.none_label)
    return graph


def candidate_pairs(graph: nx.DiGraph) -> list[tuple[int, int]]:
    """Every (cause candidate, target) edge, in a deterministic order."""
    return sorted((e, t) for e, t, kind in graph.edges(data="kind") if kind == "candidate")


def gold_pair_labels(topic: Topic, graph: nx.DiGraph) -> dict[tuple[int, int], bool]:
    """Whether each candidate pair is a gold cause, read from the topic's gold answers."""
    labels = {}
    for q in topic.questions:
        if q.gold is None:
            continue
        slots = graph.graph["questions"][q.qid]
        for label, event in slots.options.items():
            if event != slots.target:
                labels[(event, slots.target)] = label in q.gold
    return labels
