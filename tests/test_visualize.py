"""The topic page: its graph data, explanation panels, escaping of document text, no remote resources, CLI."""

import html
import subprocess
import sys
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest

from causalgraph.cli import visualize
from causalgraph.view import page as page_module
from causalgraph.data import load_split
from causalgraph.reason.explain import explain_question
from causalgraph.analysis.analyse import analyse_topic
from causalgraph.run.batch import answer_topic
from causalgraph.learn.crossval import fit_scorer
from causalgraph.learn.scorer import EdgeScorer, dump_scorer

from .pages import CLOSE, FAIL, GATES, IMG, INQUIRY, RAIN, SCRIPT, hostile_page, page_data


class Tags(HTMLParser):
    """Every start tag of a page with its attributes, and the text outside script and style elements."""

    def __init__(self, page: str):
        super().__init__()
        self.tags, self.text, self._raw = [], [], None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._raw = tag if tag in ("script", "style") else None

    def handle_endtag(self, tag):
        self._raw = None

    def handle_data(self, data):
        if self._raw is None:
            self.text.append(data)


@pytest.fixture(scope="module")
def demo():
    from causalgraph.config import DEMO_DATA

    topic = load_split(DEMO_DATA, "sample")[0]
    analysis = analyse_topic(topic)
    scorer = fit_scorer(EdgeScorer, [analysis])
    scores, solution = answer_topic(analysis, scorer)
    return SimpleNamespace(analysis=analysis, scorer=scorer, scores=scores, solution=solution)


def test_demo_page_draws_every_event_and_candidate_edge(demo, tmp_path):
    path = page_module.render_topic(demo.analysis, demo.scores, demo.solution, tmp_path / "demo.html")
    page = path.read_text(encoding="utf-8")
    data, graph = page_data(page), demo.analysis.graph
    questions_nodes = [n for n in data["nodes"] if n.get("group") != "document"]
    assert sorted(n["id"] for n in questions_nodes) == sorted(graph)
    assert sorted((e["from"], e["to"]) for e in data["edges"] if e.get("group") != "document") == sorted(graph.edges)
    targets = {n for n in graph if graph.nodes[n]["targets_of"]}
    assert {n["id"] for n in questions_nodes if n["shape"] == "box"} == targets
    questions = [q.qid for q in demo.analysis.topic.questions]
    assert list(data["questions"]) == sorted(questions)
    tags = Tags(page).tags
    assert [a["value"] for t, a in tags if t == "option"] == ["", *questions]
    assert [a["data-qid"] for t, a in tags if t == "section"] == ["", *questions]


def test_the_page_shows_the_document_events_and_their_sentences(demo, tmp_path, monkeypatch):
    joined = demo.analysis.document_graph()
    told = [n for n in joined if isinstance(n, tuple)]
    stated = [(a, b, d) for a, b, d in joined.edges(data=True) if d["kind"] == "stated"]
    assert told and stated
    # "the spillway gates jammed" is told as the cause of the failure in a document sentence ("after")
    assert any("jam" in joined.nodes[b]["text"] and "fail" in joined.nodes[a]["text"] or
               "jam" in joined.nodes[a]["text"] and "fail" in joined.nodes[b]["text"] for a, b, _ in stated)
    mentioned = {a for a, _, d in joined.edges(data=True) if d["kind"] == "mentioned"}
    assert mentioned and mentioned <= set(demo.analysis.graph)
    page = page_module.render_topic(demo.analysis, demo.scores, demo.solution, tmp_path / "d.html").read_text()
    data = page_data(page)
    shown = [n for n in data["nodes"] if n.get("group") == "document"]
    assert len(shown) == len(told) and not any(n["hidden"] for n in shown)
    edge = next(e for e in data["edges"] if e["id"].startswith("s"))
    a, b = (int(x) for x in edge["id"][1:].split("-"))
    assert joined.edges[("doc", a), ("doc", b)]["sentence"] in html.unescape(edge["title"])
    assert f"{len(told)} document events" in page
    # a large topic starts with them hidden behind the checkbox
    monkeypatch.setattr(page_module, "DOCUMENT_EVENTS_SHOWN", 0)
    page = page_module.render_topic(demo.analysis, demo.scores, demo.solution, tmp_path / "h.html").read_text()
    assert all(n["hidden"] for n in page_data(page)["nodes"] if n.get("group") == "document")
    assert 'id="documents" checked' not in page and 'id="documents"' in page


def test_edges_show_score_choice_and_rejecting_rule():
    page = hostile_page()
    edges = {(e["from"], e["to"]): e for e in page_data(page.html())["edges"]}
    ids = page.ids
    chosen = edges[ids[GATES], ids[FAIL]]
    # the score is written on a chosen edge only while its question is picked (the script sets chosenLabel)
    assert chosen["shadow"]["enabled"] and chosen["chosenLabel"] == "\u2713 0.60" and not chosen["dashes"]
    assert all(e["label"] == "" for e in edges.values())
    assert "P(cause) = 0.60" in chosen["title"] and "chosen as a cause" in chosen["title"]
    rejected = edges[ids[INQUIRY], ids[FAIL]]
    assert rejected["dashes"] and not rejected["shadow"] and rejected["chosenLabel"] == ""
    assert "excluded(temporal,4,0): dated after the target" in rejected["title"]
    # colour and width grow with the score
    assert rejected["width"] > edges[ids[RAIN], ids[FAIL]]["width"] > chosen["width"] - 2
    assert page_module.score_color(0.0) == "#cfd8dc" and page_module.score_color(1.0) == "#08306b"
    assert page_module.score_color(0.9) != page_module.score_color(0.1)


def test_question_panel_shows_the_explain_record():
    page = hostile_page()
    text = " ".join("".join(Tags(page.html()).text).split())
    for q in page.topic.questions:
        record = explain_question(q, page.graph, page.scores, page.solution)
        assert f"Answer {record['answer']}" in text
        assert all(" ".join(option["why"].split()) in text for option in record["options"].values())
    # q1's RAIN is rejected because q2 answers None: said on q1's option, naming q2, and not on q2's own
    q1, q2 = (explain_question(q, page.graph, page.scores, page.solution) for q in page.topic.questions[:2])
    assert q1["options"]["A"]["why"].startswith("not chosen, though its evidence clears the precision bias by")
    assert "q2 offers the same pair and answers None" in q1["options"]["A"]["why"]
    assert "q2 offers" not in q2["options"]["A"]["why"] and "the question answers None" in q2["options"]["A"]["why"]
    assert "excluded(consistency,1,0): the pair is offered in a question that answers None" in text
    assert 'forced(none,"q2","D"): no real option was chosen, so None is the answer' in text
    assert "Confidence: the next best answer" in text
    assert "0.80 (139)" in text  # RAIN -> FAIL: P(cause) and log-odds x 100


def test_document_and_event_text_is_escaped():
    html = hostile_page().html()
    tags = Tags(html).tags
    assert [t for t, _ in tags if t in ("script", "img", "iframe")] == ["script", "script"]
    assert not any(a.get("onerror") for _, a in tags)
    assert SCRIPT not in html and IMG not in html and CLOSE not in html
    text = "".join(Tags(html).text)
    assert SCRIPT in text and IMG in text  # shown as text in the title, selector and panel
    data = page_data(html)  # hover texts are HTML with every document text escaped
    titles = " ".join(n["title"] for n in data["nodes"]) + " ".join(e["title"] for e in data["edges"])
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in titles
    assert "&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;" in titles
    assert "<script" not in titles and "<img" not in titles


def test_page_needs_no_network():
    tags = Tags(hostile_page().html()).tags
    assert not [t for t, a in tags if t == "link" or "src" in a]
    assert not [a for _, a in tags for k, v in a.items() if k in ("href", "src") and v and "//" in v]
    assert "vis.Network" in hostile_page().html()


def test_evidence_is_shown_only_when_the_analysis_has_it(tmp_path):
    page = hostile_page()
    with_evidence = SimpleNamespace(topic=page.topic, graph=page.graph, evidence=page.evidence)
    without = SimpleNamespace(topic=page.topic, graph=page.graph)
    html = page_module.render_topic(with_evidence, page.scores, page.solution, tmp_path / "e.html").read_text()
    data = page_data(html)
    gates = next(n for n in data["nodes"] if n["id"] == page.ids[GATES])
    assert "Evidence" in gates["title"] and "The gates jammed." in gates["title"]
    rain = next(n for n in data["nodes"] if n["id"] == page.ids[RAIN])
    assert "Rain fell for days before the dam failed." in rain["title"]
    edges = [e for e in data["edges"] if e["from"] == page.ids[RAIN]]
    assert edges and not any("Evidence" in e["title"] for e in edges)  # evidence is retrieved per event, not per pair
    text = " ".join(Tags(html).text)
    assert "evidence about the event" in text and CLOSE in text
    bare = page_module.render_topic(without, page.scores, page.solution, tmp_path / "b.html").read_text()
    assert "Evidence" not in bare and "<details><summary>evidence" not in bare


def test_short_labels_cut_at_a_word():
    assert page_module.short_label("Heavy rain fell on Riverton for five days", 20) == "Heavy rain fell on\u2026"
    assert page_module.short_label("  Short   text ") == "Short text"


def test_cli_writes_the_demo_page(demo, tmp_path, capsys):
    model = tmp_path / "scorer.joblib"
    model.write_bytes(dump_scorer({"aer": demo.scorer}, "all-MiniLM-L6-v2"))
    out = tmp_path / "demo.html"
    assert visualize.main(["--demo", "--model", str(model), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "wrote" in captured.out and "writing the page" in captured.err  # the progress bar's last step
    assert len(page_data(out.read_text())["nodes"]) == demo.analysis.graph.number_of_nodes()


def test_cli_errors(tmp_path, two_topics, capsys):
    assert visualize.main(["--data", str(two_topics), "--split", "sample", "--out", "x.html"]) == 2  # no --topics
    assert "holds 2 topics; choose one with --topics (1, 2)" in capsys.readouterr().err
    assert visualize.main(["--data", str(two_topics), "--split", "sample", "--topics", "9", "--out", "x.html"]) == 2
    assert "unknown topic 9" in capsys.readouterr().err
    result = subprocess.run([sys.executable, "-m", "causalgraph", "visualize", "--help"], capture_output=True,
                            text=True)
    assert result.returncode == 0 and "--topics" in result.stdout
    # the help says what the page shows, not where the source is
    assert ".py" not in result.stdout and "what decided it" in " ".join(result.stdout.split())


def test_the_page_shows_each_readers_reliability_and_weight(demo, tmp_path):
    import json

    reader = tmp_path / "reader.jsonl"
    reader.write_text("".join(json.dumps({"id": q.qid, "answer": ",".join(sorted(q.gold))}) + "\n"
                              for q in demo.analysis.topic.questions))
    out = tmp_path / "demo.html"
    assert visualize.main(["--demo", "--out", str(out), "--reader-scores", f"mine={reader}", "--quiet"]) == 0
    text = " ".join(Tags(out.read_text()).text)
    assert "mine: yes" in text and "open options, fewer than the" in text and "the default weight 50%" in text


def test_visualize_with_a_reader_reads_each_document_once(demo, tmp_path, monkeypatch):
    """The reader is weighed on the topic's analysis and the page drawn from that same analysis: spaCy reads each
    document once in the run."""
    import json
    from collections import Counter

    import causalgraph.analysis.analyse as analyse

    read, real = Counter(), analyse.read_documents
    monkeypatch.setattr(analyse, "read_documents", lambda docs: read.update(d.doc_id for d in docs) or real(docs))
    reader = tmp_path / "reader.jsonl"
    reader.write_text("".join(json.dumps({"id": q.qid, "answer": ",".join(sorted(q.gold))}) + "\n"
                              for q in demo.analysis.topic.questions))
    out = tmp_path / "demo.html"
    assert visualize.main(["--demo", "--out", str(out), "--reader-scores", f"mine={reader}", "--quiet"]) == 0
    documents = demo.analysis.topic.documents
    assert documents and read == Counter(d.doc_id for d in documents)
