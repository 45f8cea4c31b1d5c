"""Readers: other systems' answers or probabilities read from files, fused with the edge scores by
rules/readers.lp, and shown in the explanations and the page."""

import json

import pytest

from causalgraph.cli import answer
from causalgraph.data import DataError, Question, Topic, load_split
from causalgraph.graph.topic import build_graph
from causalgraph.readers.base import HARD_LOG_ODDS, Judgement, ReaderJudgements
from causalgraph.readers.scores import load_reader_scores
from causalgraph.reason.explain import explain_question
from causalgraph.reason.solve import SolverParams, solve_topic

T, A, B, C, D = "The dam failed.", "Rain fell.", "Gates jammed.", "A cup was won.", "A fair opened."
QUESTIONS = {"q1": Question("q1", 1, T, (A, B, C, D)), "q2": Question("q2", 1, B, (A, C, D, T))}


def write(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_hard_answers_become_verdicts_on_every_label(tmp_path):
    reader = load_reader_scores(write(tmp_path / "sys.jsonl",
                                      [{"id": "q1", "answer": "A,C"}, {"id": "q2", "answer": "B"}]), QUESTIONS)
    assert reader.reader == str(tmp_path / "sys.jsonl") and reader.weight == 100  # named by the path as given
    assert reader.judgements[("q1", "A")] == Judgement(verdict=True)
    assert reader.judgements[("q1", "B")] == Judgement(verdict=False)
    assert reader.judgements[("q1", "A")].log_odds() == HARD_LOG_ODDS


def test_probabilities_become_capped_log_odds(tmp_path):
    reader = load_reader_scores(write(tmp_path / "p.jsonl", [{"id": "q1", "probs": {"A": 0.5, "B": 1.0, "C": 0.0}}]),
                                QUESTIONS)
    assert [reader.judgements[("q1", x)].log_odds() for x in "ABC"] == [0, 600, -600]
    assert ("q1", "D") not in reader.judgements


def test_missing_questions_get_a_warning(tmp_path, caplog):
    reader = load_reader_scores(write(tmp_path / "p.jsonl", [{"id": "q1", "answer": "A"}]), QUESTIONS)
    assert {q for q, _ in reader.judgements} == {"q1"}
    assert "no judgement for 1 of the 2 questions answered" in caplog.text
    caplog.clear()
    load_reader_scores(write(tmp_path / "p.jsonl", [{"id": "q1", "answer": "A"}]), QUESTIONS, answered=["q2"])
    assert "no judgement for 1 of the 1 question answered; it gets" in caplog.text  # those answered (--topics) counted


def test_ids_of_no_answered_question_are_warned_about_or_refused(tmp_path, caplog):
    path = write(tmp_path / "p.jsonl", [{"id": "q1", "answer": "A"}, {"id": "x-1", "answer": "B"},
                                        {"id": "x-2", "answer": "C"}])
    reader = load_reader_scores(path, QUESTIONS)
    assert {q for q, _ in reader.judgements} == {"q1"}
    assert "2 ids match no question answered ('x-1', 'x-2'); not read" in caplog.text
    with pytest.raises(DataError, match=r"p.jsonl: no id matches a question answered \(1 ids: 'q9'\)"):
        load_reader_scores(write(tmp_path / "p.jsonl", [{"id": "q9", "answer": "A"}]), QUESTIONS)


@pytest.mark.parametrize("line, message", [
    ({"id": "q1", "answer": "E"}, "line 1: label 'E' is outside A-D"),
    ({"id": "q1", "probs": {"A": 1.5}}, "line 1: probability of A must be a number in [0, 1]"),
    ({"id": "q1", "probs": {"Z": 0.5}}, "line 1: label 'Z' is outside A-D in probs"),
    ({"id": "q1"}, "line 1: expected an 'answer' or a 'probs' field"),
    ({"id": "q1", "answer": "A", "probs": {"A": 0.1}}, "line 1: both 'answer' and 'probs'; give one"),
])
def test_bad_reader_lines_name_the_file_and_line(tmp_path, line, message):
    with pytest.raises(DataError, match=f"p.jsonl:{message}".replace("[", r"\[").replace("]", r"\]")):
        load_reader_scores(write(tmp_path / "p.jsonl", [line]), QUESTIONS)


def fused(weight):
    topic = Topic(1, list(QUESTIONS.values()))
    graph = build_graph(topic)
    ids = {graph.nodes[n]["text"]: n for n in graph}
    scores = {(ids[A], ids[T]): 0.9, (ids[B], ids[T]): 0.2, (ids[C], ids[T]): 0.1, (ids[D], ids[T]): 0.1,
              (ids[A], ids[B]): 0.9, (ids[C], ids[B]): 0.1, (ids[D], ids[B]): 0.1}
    reader = ReaderJudgements("sys", {("q1", "A"): Judgement(verdict=False), ("q1", "B"): Judgement(verdict=True)},
                              weight)
    return topic, graph, scores, reader, solve_topic(graph, scores, params=SolverParams(bias=0), readers=(reader,))


def test_a_confident_reader_moves_the_answer_and_weight_zero_does_not():
    assert fused(0)[-1].answers["q1"] == {"A"}
    topic, graph, scores, reader, solution = fused(300)
    assert solution.answers["q1"] == {"B"}
    record = explain_question(topic.questions[0], graph, scores, solution, (reader,))
    assert record["options"]["B"]["readers"] == [{"reader": "sys", "weight": 300,
                                                  "reliability": "not estimated: weight 300% given (--reader-weight)",
                                                      "probability": None, "verdict": True,
                                                  "log_odds": HARD_LOG_ODDS, "evidence": []}]
    assert record["options"]["C"]["readers"] == []


def test_answer_fuses_a_reader_file_and_explains_it(tmp_path, demo_dir, capsys):
    gold = {q.qid: ",".join(sorted(q.gold)) for q in load_split(demo_dir, "sample")[0].questions}
    reader = write(tmp_path / "gold-reader.jsonl", [{"id": q, "answer": a} for q, a in gold.items()])
    out, explain = tmp_path / "p.jsonl", tmp_path / "e.jsonl"
    common = ["--data", str(demo_dir), "--split", "sample", "--quiet", "--out", str(out)]
    assert answer.main([*common, "--explain", str(explain), "--reader-scores", str(reader), "--reader-weight",
                        "1000"]) == 0
    answers = {r["id"]: r["answer"] for r in map(json.loads, out.read_text().splitlines())}
    assert answers == gold  # a confident reader of the gold answers is followed wherever the rules allow
    record = json.loads(explain.read_text().splitlines()[0])
    assert all(opt["readers"][0]["reader"] == str(reader) for opt in record["options"].values())
    capsys.readouterr()
    assert answer.main(["--data", str(demo_dir), "--split", "sample", "--quiet", "--reader-scores", f"me={reader}",
                        "--reader-weight", "50"]) == 0
    printed = capsys.readouterr().out
    assert "readers: me yes (+147)" in printed and "readers: me no (-147)" in printed  # 294 x 50%
    assert printed.count("\nreader me: not estimated: weight 50% given "
                         "(--reader-weight)\n") == 1  # before the questions
    assert answer.main(["--data", str(demo_dir), "--split", "sample", "--quiet", "--reader-scores", f"me={reader}",
                        "--reader-weight", "33"]) == 0
    printed = capsys.readouterr().out  # 294 x 33% = 97.02: clingo's division truncates, and so does the printout
    assert "readers: me yes (+97)" in printed and "readers: me no (-97)" in printed
    for missing in (tmp_path / "none.jsonl", tmp_path):  # no such file; a folder
        with pytest.raises(SystemExit):
            answer.main([*common, "--reader-scores", str(missing)])
        assert (f"--reader-scores: {'no such file' if missing != tmp_path else str(tmp_path) + ' is a folder'}"
                in capsys.readouterr().err)
    for bad in ("9999999999", "-5"):  # beyond clingo's weights; a weight that reads every judgement backwards
        with pytest.raises(SystemExit):
            answer.main([*common, "--reader-scores", str(reader), "--reader-weight", bad])
