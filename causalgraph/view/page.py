"""One topic's event graph as a self-contained interactive HTML page.

Nodes are events (targets as boxes, other options as ellipses); an edge E -> T is a candidate cause, coloured
and sized by its edge score. Edges chosen by the answer set glow green, edges a rule excluded are dashed.
Hovering shows full texts, scores, rule atoms and evidence sentences; picking a question highlights its
target and options and shows what the program used to answer it (the `--explain` record of the question).
Beside them, the events the documents tell (evidence/events.py): small grey nodes, a cue's edge between two of
them with its sentence on hover, and a dotted line from a question event to the document events that stand for
it; hidden behind a checkbox on a topic with more than DOCUMENT_EVENTS_SHOWN of them.
pyvis builds the vis-network data and ships the vis-network library, which is inlined; the page template is
our own, as pyvis's loads Bootstrap from a CDN.
"""

from __future__ import annotations

import html
from pathlib import Path

import networkx as nx
import pyvis
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from pyvis.network import Network

from ..config import TEMPLATES_DIR
from ..data import Question, Topic
from ..graph.topic import candidate_pairs
from ..readers.base import ReaderJudgements
from ..reason.explain import confidence_words, explain_question, summary
from ..reason.facts import Excluded, describe, log_odds
from ..reason.solve import Solution
from ..data.files import write_files
VIS_LIB = Path(pyvis.__file__).resolve().parent / "templates" / "lib" / "vis-9.1.2"
LOW, MID, HIGH = (207, 216, 220), (106, 159, 212), (8, 48, 107)  # edge colour at P(cause) 0, 0.5, 1
OPTIONS = {
    "layout": {"randomSeed": 7},
    "physics": {
        "solver": "forceAtlas2Based",
        "forceAtlas2Based": {"gravitationalConstant": -90, "springLength": 150, "avoidOverlap": 0.4},
        "stabilization": {"iterations": 400},
    },
    "interaction": {"hover": True, "tooltipDelay": 150},
    "edges": {"arrows": {"to": {"enabled": True, "scaleFactor": 0.6}}, "smooth": {"type": "continuous"}},
    "nodes": {"font": {"size": 14, "color": "#222222"}, "widthConstraint": {"maximum": 170}, "margin": 8},
}
TARGET_COLOR = {"background": "#fdd0a2", "border": "#e6550d"}
OPTION_COLOR = {"background": "#deebf7", "border": "#3182bd"}
CHOSEN_GLOW = {"enabled": True, "color": "rgba(26,152,80,0.85)", "size": 14, "x": 0, "y": 0}
DOCUMENT_COLOR = {"background": "#f0f0f0", "border": "#969696"}
DOCUMENT_EVENTS_SHOWN = 30  # more document events than this start hidden


def short_label(text: str, width: int = 40) -> str:
    """The first words of an event, cut at a word boundary to at most `width` characters."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    cut = text[: width - 1].rsplit(" ", 1)[0] or text[: width - 1]
    return cut.rstrip(" ,;:.") + "\u2026"


def score_color(p: float | None) -> str:
    """A hex colour from pale grey (P=0) through mid blue to dark blue (P=1); grey when unscored."""
    if p is None:
        return "#999999"
    low, high, f = (LOW, MID, 2 * p) if p < 0.5 else (MID, HIGH, 2 * p - 1)
    return "#" + "".join(f"{round(a + (b - a) * f):02x}" for a, b in zip(low, high))


def tooltip(*blocks: tuple[str, list[str]]) -> str:
    """HTML for a hover box: (heading, lines) blocks; every piece of text is escaped here."""
    parts = []
    for heading, lines in blocks:
        if lines:
            head = f"<b>{html.escape(heading)}</b><br>" if heading else ""
            parts.append(head + "<br>".join(html.escape(line) for line in lines))
    return "<br><br>".join(parts)


def evidence_of(evidence: dict | None, node: int | None) -> list[tuple[str, str]]:
    """The (document title, sentence) pairs retrieved for an event; none without evidence."""
    return [(str(title), str(sentence)) for title, sentence in (evidence or {}).get(node, ())]


def evidence_lines(items: list[tuple[str, str]]) -> list[str]:
    return [f"\u2022 {title}: {sentence}" if title else f"\u2022 {sentence}" for title, sentence in items]


def question_roles(graph: nx.DiGraph) -> dict[int, list[str]]:
    """For every node, where it appears: "target of q", "q option A"."""
    roles: dict[int, list[str]] = {n: [] for n in graph}
    for qid, slots in sorted(graph.graph["questions"].items()):
        roles[slots.target].append(f"target of {qid}")
        for label, event in sorted(slots.options.items()):
            roles[event].append(f"{qid} option {label}")
    return roles


def build_network(graph: nx.DiGraph, scores: dict[tuple[int, int], float], solution: Solution,
                  evidence: dict | None) -> Network:
    """The pyvis network of a topic: styled nodes and edges with escaped HTML hover texts."""
    net = Network(directed=True)
    roles = question_roles(graph)
    for n in sorted(graph):
        attrs = graph.nodes[n]
        is_target = bool(attrs["targets_of"])
        net.add_node(
            n,
            label=short_label(attrs["text"]),
            title=tooltip((f"event {n}", [attrs["text"]]), ("", roles[n]),
                          ("Evidence", evidence_lines(evidence_of(evidence, n)))),
            shape="box" if is_target else "ellipse",
            color=TARGET_COLOR if is_target else OPTION_COLOR,
        )
    for e, t in candidate_pairs(graph):
        p = scores.get((e, t))
        chosen = solution.chosen(e, t)
        rules = solution.pair_atoms(e, t)
        offered = [f"{q} option {label}" for q in graph.edges[e, t]["questions"]
                   for label, event in sorted(graph.graph["questions"][q].options.items()) if event == e]
        score = "unscored" if p is None else f"P(cause) = {p:.2f} (log-odds x 100: {log_odds(p)})"
        width = round(1 + 7 * (p or 0), 2) + (2 if chosen else 0)
        # a dash pattern that keeps its gaps visible under the round line caps of a wide edge
        dashes = [width + 8, width + 6] if any(isinstance(atom, Excluded) for atom in rules) else False
        net.add_edge(
            e,
            t,
            id=f"{e}-{t}",
            title=tooltip(
                (f"event {e} \u2192 event {t}", [graph.nodes[e]["text"], "\u2192 " + graph.nodes[t]["text"]]),
                ("", [score, "chosen as a cause" if chosen else "not chosen", *offered]),
                ("Rules", [f"{atom}: {describe(atom)}" for atom in rules]),
            ),
            color={"color": score_color(p), "highlight": "#1a9850", "hover": "#1a9850"},
            width=width,
            dashes=dashes,
            shadow=CHOSEN_GLOW if chosen else False,
            label="",  # the page writes chosenLabel on the edge while its question is picked
            chosenLabel=f"\u2713 {p:.2f}" if chosen and p is not None else "",
            font={"size": 11, "color": "#1a6b3a", "strokeWidth": 3, "align": "horizontal"},
        )
    return net


def add_document_events(net: Network, joined: nx.DiGraph, hidden: bool) -> None:
    """Add the document events of `joined` (TopicAnalysis.document_graph) and their edges to the network, hidden
    when `hidden`."""
    documents = sorted(n for n in joined if isinstance(n, tuple))
    for node in documents:
        attrs = joined.nodes[node]
        net.add_node(f"d{node[1]}", label=short_label(attrs["text"], 30), group="document", hidden=hidden,
                     title=tooltip((f"document event d{node[1]}", [attrs["text"]]),
                                   ("Told in",
                                    [f"{attrs['document']}{', dated ' + attrs['date'] if attrs['date'] else ''}: "
                                                f"{attrs['sentence']}"])),
                     shape="box", color=DOCUMENT_COLOR, font={"size": 11, "color": "#555555"}, margin=4)
    for a, b, attrs in sorted(joined.edges(data=True), key=lambda e: (str(e[0]), str(e[1]))):
        if attrs["kind"] == "stated":
            net.add_edge(f"d{a[1]}", f"d{b[1]}", id=f"s{a[1]}-{b[1]}", group="document", hidden=hidden,
                         title=tooltip((f"'{attrs['cue']}' ({attrs['cue_kind']})",
                                        [f"{attrs['document']}: {attrs['sentence']}"])),
                         color={"color": "#969696"}, width=1.5)
        elif attrs["kind"] == "mentioned":
            net.add_edge(a, f"d{b[1]}", id=f"m{a}-{b[1]}", group="document", hidden=hidden, dashes=[2, 4],
                         arrows={"to": {"enabled": False}},
                         title=tooltip(("",
                                        [f"the document event stands for event {a} (cosine "
                                         f"{attrs['similarity']:.2f})"])),
                         color={"color": "#bdbdbd"}, width=1)


def question_view(question: Question, graph: nx.DiGraph, scores: dict[tuple[int, int], float], solution: Solution,
                  evidence: dict | None, readers: tuple[ReaderJudgements, ...] = (),
                  moved: dict[tuple[int, int], list[dict]] | None = None) -> dict:
    """The explanation panel of one question: its --explain record (readers' judgements included, and what in the
    documents moved each option's score, from `moved`) with the evidence sentences of each event (`mentions`), its
    confidence in words, and a summary of what decided its answer."""
    record = explain_question(question, graph, scores, solution, readers, moved)
    target = record["target_event"]
    options = [{"label": label, "evidence": [], **opt, "mentions": evidence_of(evidence, opt.get("event"))}
               for label, opt in record["options"].items()]
    return {
        "record": record,
        "options": options,
        "summary": summary(record),
        "confidence": confidence_words(record["confidence"]),
        "gold": None if question.gold is None else ",".join(sorted(question.gold)),
        "target_evidence": evidence_of(evidence, target),
    }


def topic_page(topic: Topic, graph: nx.DiGraph, scores: dict[tuple[int, int], float], solution: Solution,
               evidence: dict | None = None, readers: tuple[ReaderJudgements, ...] = (),
               moved: dict[tuple[int, int], list[dict]] | None = None, joined: nx.DiGraph | None = None) -> str:
    """The HTML page of a topic: vis-network inlined, no remote resources, all document text escaped; with the
    document events of `joined` (TopicAnalysis.document_graph) where it is given."""
    net = build_network(graph, scores, solution, evidence)
    documents = sum(isinstance(n, tuple) for n in joined) if joined is not None else 0
    collapsed = documents > DOCUMENT_EVENTS_SHOWN
    if joined is not None:
        add_document_events(net, joined, collapsed)
    questions = [question_view(q, graph, scores, solution, evidence, readers, moved) for q in topic.questions]
    slots = graph.graph["questions"]
    data = {
        "nodes": net.nodes,
        "edges": net.edges,
        "options": OPTIONS,
        "questions": {
            q.qid: {"target": slots[q.qid].target, "options": slots[q.qid].options,
                    "edges": [f"{e}-{slots[q.qid].target}" for e in slots[q.qid].options.values()
                              if graph.has_edge(e, slots[q.qid].target)]}
            for q in topic.questions
        },
    }
    env = Environment(loader=FileSystemLoader(TEMPLATES_DIR), autoescape=select_autoescape(["html"]))
    return env.get_template("topic.html").render(
        vis_js=Markup((VIS_LIB / "vis-network.min.js").read_text(encoding="utf-8")),
        vis_css=Markup((VIS_LIB / "vis-network.css").read_text(encoding="utf-8")),
        topic=topic,
        graph=graph,
        solution=solution,
        questions=questions,
        data=data,
        short_label=short_label,
        n_chosen=len(solution.causes),
        document_events=documents,
        document_edges=sum(kind == "stated" for *_, kind in joined.edges(data="kind")) if joined is not None else 0,
        collapsed=collapsed,
    )


def render_topic(analysis, scores: dict[tuple[int, int], float], solution: Solution, path: str | Path,
                 readers: tuple[ReaderJudgements, ...] = (),
                 moved: dict[tuple[int, int], list[dict]] | None = None) -> Path:
    """Write the page of an analysed and solved topic; evidence is shown when the analysis has `evidence`, and
    what moved each option's score where `moved` gives it (run.batch.pair_evidence)."""
    path = Path(path)
    evidence = getattr(analysis, "evidence", None)
    joined = analysis.document_graph() if hasattr(analysis, "document_graph") else None
    write_files({path: topic_page(analysis.topic, analysis.graph, scores, solution, evidence, readers, moved, joined)})
    return path
