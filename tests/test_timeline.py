"""The documents' timeline: relative dates, mentions, before/after and causal edges with their sentences, the
export, the rules that use its edges, and the lab's `timeline` command."""

from __future__ import annotations

import datetime
import json

import networkx as nx
import pytest

from causalgraph.analysis.analyse import analyse_topic
from causalgraph.data import Document, load_labelled, load_split
from causalgraph.evidence.timeline import Edge, Timeline, graph_bytes
from causalgraph.graph.topic import build_graph
from causalgraph.reason.solve import SolverParams, solve_topic
from causalgraph.text.dates import PartialDate, anchor_date, relative_date
from causalgraph.text.extract import extract_topic
from lab.solver.timeline import main as timeline_main

from .conftest import question_row, write_questions
from .test_reason import CUP, FAIL, GATES, INQUIRY, RAIN, topic

SUNDAY = datetime.date(2025, 9, 28)


@pytest.mark.parametrize("text, expected", [
    ("The strike began on Tuesday", PartialDate(2025, 9, 23)),
    ("He resigned yesterday", PartialDate(2025, 9, 27)),
    ("Two days ago the bank failed", PartialDate(2025, 9, 26)),
    ("Talks collapsed last week", PartialDate(2025, 9, 21)),
    ("The vote is on Sunday", PartialDate(2025, 9, 28)),
    ("He resigned last Sunday", PartialDate(2025, 9, 21)),
    ("The vote will be held next Tuesday", PartialDate(2025, 9, 30)),
    ("Nothing dated here", None),
])
def test_relative_dates_resolve_against_the_document_date(text, expected):
    assert relative_date(text, SUNDAY) == expected


def test_days_later_counts_from_the_last_date_the_document_stated():
    assert relative_date("Three days later, the plant closed", SUNDAY) is None
    assert (relative_date("Three days later, the plant closed", SUNDAY, datetime.date(2024, 3, 5))
            == PartialDate(2024, 3, 8))


def test_the_anchor_is_the_publication_date_else_the_latest_full_date_stated():
    stated = [PartialDate(2024, 3, 3), PartialDate(2024, 3, 9), PartialDate(None, 4, 1), PartialDate(2024, 2, 30)]
    assert anchor_date("2025-01-02", stated) == datetime.date(2025, 1, 2)
    assert anchor_date("", stated) == datetime.date(2024, 3, 9)
    assert anchor_date("", [PartialDate(2024, None, None)]) is None


def test_sentences_carry_relative_dates_resolved_against_their_document():
    doc = Document("1", "", "On March 3, 2024 workers met. The union called a strike on Tuesday. "
                            "Three days later, the plant closed because of the strike.", date="2024-03-10")
    sentences = extract_topic([doc]).sentences
    assert [(s.date, s.relative) for s in sentences] == [
        (PartialDate(2024, 3, 3), False), (PartialDate(2024, 3, 5), True), (PartialDate(2024, 3, 8), True)]


def test_the_demo_timeline_orders_events_from_connectives_and_keeps_causal_cues(demo_dir):
    [demo] = load_split(demo_dir, "sample")
    analysis = analyse_topic(demo)
    timeline = analysis.timeline
    failed = "the riverton dam failed on march 7, 2024, flooding the lower town"
    evacuated = "residents of the lower town were evacuated on march 7, 2024"
    inquiry = "an inquiry into the maintenance of the dam opened on march 15, 2024"
    assert timeline.before[(failed, evacuated)].basis == "after"
    assert timeline.after(evacuated, failed) and not timeline.after(failed, evacuated)
    assert timeline.causes[(failed, inquiry)].basis == "in response to"
    [sentence] = timeline.causes[(failed, inquiry)].sentences
    assert "In response to the dam failure" in analysis.extraction.sentences[sentence].text
    assert all(timeline.mentions.values())


def test_the_timeline_exports_as_graphml_and_json(demo_dir, tmp_path):
    [demo] = load_split(demo_dir, "sample")
    graph = analyse_topic(demo).timeline_graph()
    kinds = {k for _, _, k in graph.edges(data="kind")}
    assert {"mentions", "in", "before", "causes"} <= kinds
    path = tmp_path / "t.graphml"
    path.write_bytes(graph_bytes(graph, path))
    back = nx.read_graphml(path)
    assert back.number_of_nodes() == graph.number_of_nodes()
    causes = [d for _, _, d in back.edges(data=True) if d["kind"] == "causes"]
    assert causes and "In response to" in causes[0]["evidence"]
    data = json.loads(graph_bytes(graph, "t.json"))
    assert len(data["edges"]) == graph.number_of_edges()
    with pytest.raises(ValueError, match="graphml or .json"):
        graph_bytes(graph, "t.csv")


def test_the_timeline_command_exports_a_split(demo_dir, tmp_path, capsys):
    out = tmp_path / "g.json"
    assert timeline_main(["--data", str(demo_dir), "--graph-out", str(out)]) == 0
    assert "1 topic, " in capsys.readouterr().out
    assert any(n.startswith("t1:e:") for n in (node["id"] for node in json.loads(out.read_text())["nodes"]))
    assert timeline_main(["--data", str(demo_dir), "--graph-out", str(tmp_path / "g.txt")]) == 2
    assert "graphml or .json" in capsys.readouterr().err


def solve_with(t, probs, timeline, **params):
    graph = build_graph(t)
    ids = {graph.nodes[n]["text"]: n for n in graph}
    scores = {(ids[e], ids[c]): p for (e, c), p in probs.items()}
    return solve_topic(graph, scores, params=SolverParams(**params), timeline=timeline)


def norm(text: str) -> str:
    return build_graph(topic(("q", text, [RAIN, RAIN, RAIN, RAIN]))).nodes[0]["norm"]


def test_a_cause_the_documents_place_after_its_target_costs_doc_order():
    t = topic(("q1", FAIL, [INQUIRY, GATES, CUP, RAIN]))
    probs = {(INQUIRY, FAIL): 0.9, (GATES, FAIL): 0.6, (CUP, FAIL): 0.1, (RAIN, FAIL): 0.2}
    timeline = Timeline(before={(norm(FAIL), norm(INQUIRY)): Edge("dates", (0, 1))})
    assert solve_with(t, probs, timeline, doc_order=0).answers["q1"] == {"A", "B"}
    assert solve_with(t, probs, timeline, doc_order=1000).answers["q1"] == {"B"}


def test_a_cause_mediated_by_another_chosen_cause_costs_mediated():
    t = topic(("q1", FAIL, [RAIN, GATES, CUP, INQUIRY]))
    probs = {(RAIN, FAIL): 0.8, (GATES, FAIL): 0.9, (CUP, FAIL): 0.1, (INQUIRY, FAIL): 0.1}
    timeline = Timeline(causes={(norm(RAIN), norm(GATES)): Edge("led to", (3,))})
    assert solve_with(t, probs, timeline, mediated=0).answers["q1"] == {"A", "B"}
    assert solve_with(t, probs, timeline, mediated=1000).answers["q1"] == {"B"}


def test_document_dates_and_train_evidence_load(tmp_path, caplog):
    root = tmp_path / "data"
    write_questions(root / "train" / "questions.jsonl",
                    [question_row("q1", 1, FAIL, [RAIN, GATES, CUP, INQUIRY], "A"),
                     question_row("q2", 11, FAIL, [RAIN, GATES, CUP, INQUIRY], "B")])
    docs = [{"topic_id": 1, "docs": [{"id": "a", "title": "t", "content": "Rain fell.", "parsed_date": "2025-09-28"},
                                     {"id": "b", "title": "t", "content": "Gates jammed.", "parsed_date": "28/09/2025"},
                                     {"id": "c", "title": "t", "content": "Gates held.", "parsed_date": "2023-02-30"}]}]
    (root / "sample").mkdir()
    (root / "sample" / "docs.json").write_text(json.dumps(docs))
    (root / "train-evidence").mkdir()
    (root / "train-evidence" / "topics.json").write_text(json.dumps(
        [{"topic_id": "11", "doc_leads": [{"title": "Lead", "content": "Rain fell on the town."}],
          "passages": ["Gates jammed as the water rose.", "Gates jammed as the water rose."]}]))
    plain = {t.topic_id: t for t in load_labelled(root)}
    assert ([d.date for d in plain[1].documents] == ["2025-09-28", "", ""]
            and "date '2023-02-30' is no such day; ignored" in caplog.text)
    assert plain[11].documents == []
    with_evidence = {t.topic_id: t for t in load_labelled(root, evidence=True)}
    assert [d.title for d in with_evidence[11].documents] == ["Lead", "retrieved passage", "retrieved passage"]
    assert with_evidence[1].documents == plain[1].documents


def test_the_timeline_command_reports_order_and_cv_with_and_without_the_documents(two_topics, capsys):
    assert timeline_main(["--data", str(two_topics), "--folds", "2", "--resize-to", "none"]) == 0
    out = capsys.readouterr().out
    assert "| 1-10 (full documents) |" in out and "| dates |" in out and "| cues |" in out
    assert "| whole |" in out and "test shapes" not in out.split("## Grouped")[1]
