"""A hand-made topic whose texts try to inject HTML and script into its page, solved with real clingo."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import networkx as nx

from causalgraph.data import Document, Question, Topic
from causalgraph.graph.topic import build_graph
from causalgraph.reason.solve import Solution, solve_topic
from causalgraph.view.page import topic_page

SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=2">'
CLOSE = "</script><script>__pwned=3</script>"  # short enough to survive in a node label
NONE = "None of the others are correct causes."
FAIL = f"The dam failed {SCRIPT} on March 7."
GATES = f"Gates jammed {IMG} on March 6."
CUP = f"{CLOSE} A cup was won on March 3."
RAIN, INQUIRY, FLOOD = "Rain fell on March 2.", "An inquiry opened on March 15.", "The town flooded on March 7."


@dataclass
class Page:
    topic: Topic
    graph: nx.DiGraph
    scores: dict[tuple[int, int], float]
    solution: Solution
    evidence: dict
    ids: dict[str, int]

    def html(self, evidence: bool = True) -> str:
        return topic_page(self.topic, self.graph, self.scores, self.solution, self.evidence if evidence else None)


def hostile_page() -> Page:
    """q1 chooses GATES (RAIN is rejected by q2's None answer, INQUIRY is dated after the target);
    q2 answers None; q3 asks about FLOOD, an event no other question mentions."""
    questions = [
        Question("q1", 1, FAIL, (RAIN, GATES, CUP, INQUIRY)),
        Question("q2", 1, FAIL, (RAIN, CUP, INQUIRY, NONE)),
        Question("q3", 1, FLOOD, (FAIL, CUP, RAIN, INQUIRY)),
    ]
    topic = Topic(1, questions, [Document("d1", IMG, SCRIPT + " The gates jammed.")], title=f"Dam {SCRIPT}")
    graph = build_graph(topic)
    ids = {graph.nodes[n]["text"]: n for n in graph}
    probs = {(RAIN, FAIL): 0.8, (GATES, FAIL): 0.6, (CUP, FAIL): 0.1, (INQUIRY, FAIL): 0.9,
             (FAIL, FLOOD): 0.95, (CUP, FLOOD): 0.05, (RAIN, FLOOD): 0.2, (INQUIRY, FLOOD): 0.05}
    scores = {(ids[e], ids[t]): p for (e, t), p in probs.items()}
    solution = solve_topic(graph, scores, {(ids[INQUIRY], ids[FAIL])}, explain=True)
    evidence = {
        ids[GATES]: [(IMG, f"The gates jammed. {SCRIPT}")],
        ids[RAIN]: [(CLOSE, "Rain fell for days before the dam failed.")],
    }
    return Page(topic, graph, scores, solution, evidence, ids)


def page_data(page: str) -> dict:
    """The JSON the page's script draws the graph from."""
    return json.loads(re.search(r"var DATA = (.*);\n", page).group(1))
