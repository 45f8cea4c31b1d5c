"""`python -m causalgraph.visualize`: one topic's event graph as a self-contained interactive HTML page.

Nodes are events (targets as boxes, other options as ellipses); an edge E -> T is a candidate cause, coloured
and sized by its edge score. Edges chosen by the answer set glow green, edges a rule excluded are dashed.
Hovering shows full texts, scores, rule atoms and evidence sentences; picking a question highlights its
target and options and shows what the program used to answer it (the `--explain` record of the question).
pyvis builds the vis-network data and ships the vis-network library, which is inlined; the page template is
our own, as pyvis's loads Bootstrap from a CDN.
"""

from __future__ import annotations

import argparse
import html
import logging
import sys
from pathlib import Path

import networkx as nx
import pyvis
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from pyvis.network import Network

from .answer import DEMO_DATA, parse_groups
from .data import SPLITS, DataError, Question, Topic, load_split
from .explain import RULE_TEXT, explain_question, option_rules, reason_line
from .graph import candidate_pairs
from .pipeline import analyse_topic, answer_topic
from .reason import SWITCHABLE, SolverParams, Solution, log_odds
from .scoring import EdgeScorer, load_scorer
from .train import DEFAULT_MODEL

TEMPLATES = Path(__file__).resolve().parent / "templates"
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


def describe_rule(atom: str) -> str:
    """What a rule atom of the answer set means, in words."""
    name, args = atom.split("(", 1)
    group = args.split(",", 1)[0]
    if name == "excluded":
        return RULE_TEXT.get(group, f"{group} rule")
    if name == "forced":
        return "no real option was chosen, so None is the answer"
    if name == "mediated":
        return "chosen together with a chain through another chosen cause"
    return name


def tooltip(*blocks: tuple[str, list[str]]) -> str:
    """HTML for a hover box: (heading, lines) blocks; every piece of text is escaped here."""
    parts = []
    for heading, lines in blocks:
        if lines:
            head = f"<b>{html.escape(heading)}</b><br>" if heading else ""
            parts.append(head + "<br>".join(html.escape(line) for line in lines))
    return "<br><br>".join(parts)


def evidence_of(evidence: dict | None, key) -> list[tuple[str, str]]:
    """The (document title, sentence) pairs recorded for a node or an (E, T) pair; none without evidence."""
    return [(str(title), str(sentence)) for title, sentence in (evidence or {}).get(key, ())]


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
        chosen = (e, t) in solution.causes
        rules = option_rules(solution, e, t)
        offered = [f"{q} option {label}" for q in graph.edges[e, t]["questions"]
                   for label, event in sorted(graph.graph["questions"][q].options.items()) if event == e]
        score = "unscored" if p is None else f"P(cause) = {p:.2f} (log-odds x 100: {log_odds(p)})"
        width = round(1 + 7 * (p or 0), 2) + (2 if chosen else 0)
        # a dash pattern that keeps its gaps visible under the round line caps of a wide edge
        dashes = [width + 8, width + 6] if any(atom.startswith("excluded") for atom in rules) else False
        net.add_edge(
            e,
            t,
            id=f"{e}-{t}",
            title=tooltip(
                (f"event {e} \u2192 event {t}", [graph.nodes[e]["text"], "\u2192 " + graph.nodes[t]["text"]]),
                ("", [score, "chosen as a cause" if chosen else "not chosen", *offered]),
                ("Rules", [f"{atom}: {describe_rule(atom)}" for atom in rules]),
                ("Evidence", evidence_lines(evidence_of(evidence, (e, t)))),
            ),
            color={"color": score_color(p), "highlight": "#1a9850", "hover": "#1a9850"},
            width=width,
            dashes=dashes,
            shadow=CHOSEN_GLOW if chosen else False,
            label=f"\u2713 {p:.2f}" if chosen and p is not None else "",
            font={"size": 11, "color": "#1a6b3a", "strokeWidth": 3, "align": "horizontal"},
        )
    return net


def question_view(question: Question, graph: nx.DiGraph, scores: dict[tuple[int, int], float], solution: Solution,
                  evidence: dict | None) -> dict:
    """The explanation panel of one question: its --explain record with rule meanings and evidence added."""
    record = explain_question(question, graph, scores, solution)
    target = record["target_event"]
    options = []
    for label, opt in record["options"].items():
        event = opt.get("event")
        pair = evidence_of(evidence, (event, target))
        options.append({
            "label": label,
            **opt,
            "rules": [(atom, describe_rule(atom)) for atom in opt["rules"]],
            "evidence": pair or evidence_of(evidence, event),
            "evidence_kind": "for the pair" if pair else "about the event",
        })
    return {
        "record": record,
        "options": options,
        "reason": reason_line(record),
        "gold": None if question.gold is None else ",".join(sorted(question.gold)),
        "target_evidence": evidence_of(evidence, target),
    }


def topic_page(topic: Topic, graph: nx.DiGraph, scores: dict[tuple[int, int], float], solution: Solution,
               evidence: dict | None = None) -> str:
    """The HTML page of a topic: vis-network inlined, no remote resources, all document text escaped."""
    net = build_network(graph, scores, solution, evidence)
    questions = [question_view(q, graph, scores, solution, evidence) for q in topic.questions]
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
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]))
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
    )


def render_topic(analysis, scores: dict[tuple[int, int], float], solution: Solution, path: str | Path) -> Path:
    """Write the page of an analysed and solved topic; evidence is shown when the analysis has `evidence`."""
    path = Path(path)
    page = topic_page(analysis.topic, analysis.graph, scores, solution, getattr(analysis, "evidence", None))
    path.write_text(page, encoding="utf-8")
    return path


def visualize_topic(topic: Topic, path: str | Path, scorer: EdgeScorer, encoder: str,
                    without: frozenset[str] = frozenset(), params: SolverParams = SolverParams()) -> Path:
    """Analyse, score and solve a topic, then write its page."""
    analysis = analyse_topic(topic, encoder)
    scores, solution = answer_topic(analysis, scorer, without, params)
    return render_topic(analysis, scores, solution, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m causalgraph.visualize", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--demo", action="store_true", help="the built-in demo topic")
    source.add_argument("--data", type=Path, help="AER data folder (../shared/aer or the public repository layout)")
    parser.add_argument("--split", default="test", choices=SPLITS)
    parser.add_argument("--topic", type=int, help="topic id (required with --data)")
    parser.add_argument("--out", type=Path, help="HTML page to write (default: topicN.html)")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="trained edge scorer (joblib)")
    parser.add_argument("--without", type=parse_groups, default=frozenset(),
                        help=f"rule groups to switch off: {','.join(SWITCHABLE)}")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    if args.data and args.topic is None:
        parser.error("give --topic with --data")
    data, split = (DEMO_DATA, "sample") if args.demo else (args.data, args.split)
    try:
        topics = load_split(data, split, None if args.topic is None else [args.topic])
        scorer, encoder = load_scorer(args.model)
    except (DataError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    topic = topics[0]
    out = args.out or Path(f"topic{topic.topic_id}.html")
    visualize_topic(topic, out, scorer, encoder, args.without)
    print(f"wrote {out}: topic {topic.topic_id}, {len(topic.questions)} questions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
