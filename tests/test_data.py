import json

import pytest

from causalgraph.data import (
    MAX_DOCUMENT_CHARS, DataError, load_answers, load_documents, load_questions, load_split, question_score,
)

from .conftest import question_row, write_questions

OPTS = ["Rain fell.", "The dam failed.", "None of the others are correct causes.", "A cup was won."]


@pytest.mark.parametrize(
    "predicted,gold,expected",
    [("A", "A", 1.0), ("A,C", "A,C", 1.0), ("A", "A,C", 0.5), ("A,B", "A,B,C", 0.5),
     ("A,B", "A", 0.0), ("B", "A,C", 0.0), ("A,B,C", "A,C", 0.0), ("", "A", 0.0)],
)
def test_official_score_hand_cases(predicted, gold, expected):
    as_set = lambda s: frozenset(x for x in s.split(",") if x)
    assert question_score(as_set(predicted), as_set(gold)) == expected


def test_loads_questions_with_gold_and_none_label(tmp_path):
    path = write_questions(tmp_path / "q.jsonl", [question_row("q-1", 3, "Flood.", OPTS, "B")])
    (q,) = load_questions(path)
    assert (q.qid, q.topic_id, q.gold, q.none_label) == ("q-1", 3, frozenset("B"), "C")


def test_bad_json_names_file_and_line(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(question_row("q-1", 1, "T.", OPTS)) + "\n{not json\n")
    with pytest.raises(DataError, match=r"q\.jsonl:line 2: bad JSON"):
        load_questions(path)


def test_missing_field_is_named(tmp_path):
    row = question_row("q-1", 1, "T.", OPTS)
    del row["option_C"]
    with pytest.raises(DataError, match="line 1: missing field 'option_C'"):
        load_questions(write_questions(tmp_path / "q.jsonl", [row]))


def test_label_outside_a_to_d_is_rejected(tmp_path):
    path = write_questions(tmp_path / "q.jsonl", [question_row("q-1", 1, "T.", OPTS, "A,E")])
    with pytest.raises(DataError, match="label 'E' is outside A-D"):
        load_questions(path)


def test_gold_file_label_outside_a_to_d(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text('{"id": "q-1", "answer": "A"}\n{"id": "q-2", "answer": "Z"}\n')
    with pytest.raises(DataError, match="line 2: label 'Z'"):
        load_answers(path)


def test_duplicate_ids_are_rejected(tmp_path):
    rows = [question_row("q-1", 1, "T.", OPTS), question_row("q-1", 1, "U.", OPTS)]
    with pytest.raises(DataError, match="duplicate question id 'q-1'"):
        load_questions(write_questions(tmp_path / "q.jsonl", rows))


def test_unknown_topic_is_rejected(tmp_path):
    write_questions(tmp_path / "test" / "questions.jsonl", [question_row("q-1", 1, "T.", OPTS)])
    with pytest.raises(DataError, match="unknown topic 7"):
        load_split(tmp_path, "test", topics=[7])


def test_docs_json_must_be_a_list(tmp_path):
    path = tmp_path / "docs.json"
    path.write_text('{"topic_id": 1}')
    with pytest.raises(DataError, match="expected a JSON list"):
        load_documents(path)


def test_public_repository_layout_and_shared_documents(tmp_path):
    write_questions(tmp_path / "train_data" / "questions.jsonl", [question_row("q-1", 1, "T.", OPTS, "A")])
    (tmp_path / "sample_data").mkdir()
    (tmp_path / "sample_data" / "docs.json").write_text(
        json.dumps([{"topic_id": 1, "topic": "t", "docs": [{"id": "d", "title": "x", "content": "Rain fell."}]}])
    )
    (topic,) = load_split(tmp_path, "train")
    assert topic.topic_id == 1 and [d.content for d in topic.documents] == ["Rain fell."]


def test_demo_topic_loads(demo_dir):
    (topic,) = load_split(demo_dir, "sample")
    assert len(topic.questions) == 8 and len(topic.documents) == 3
    assert any(q.none_label for q in topic.questions) and any(len(q.gold) == 2 for q in topic.questions)


def test_non_object_line_is_named(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(question_row("q-1", 1, "T.", OPTS)) + "\n[1, 2]\n")
    with pytest.raises(DataError, match=r"q\.jsonl:line 2: expected a JSON object"):
        load_questions(path)


def test_bytes_that_are_not_utf8_name_the_line(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_bytes(json.dumps(question_row("q-1", 1, "T.", OPTS)).encode() + b'\n{"id": "caf\xe9"}\n')
    with pytest.raises(DataError, match=r"q\.jsonl:line 2: not valid UTF-8 \(byte b'\\xe9' at offset"):
        load_questions(path)


def test_unicode_line_separators_inside_strings_stay_in_their_line(tmp_path):
    row = question_row("q-1", 1, "Talks\u2028ended\x85today.", OPTS)
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    assert load_questions(path)[0].target == "Talks ended today."  # one line; in an event's text, whitespace


def test_docs_topic_id_must_be_an_integer(tmp_path):
    path = tmp_path / "docs.json"
    path.write_text(json.dumps([{"topic_id": "seven", "docs": []}]))
    with pytest.raises(DataError, match=r"docs\.json:topic entry 1: topic_id must be an integer, got 'seven'"):
        load_documents(path)


def test_empty_document_is_skipped_with_a_warning(tmp_path, caplog):
    path = tmp_path / "docs.json"
    docs = [{"id": "d1", "content": "Rain fell."}, {"id": "d2", "content": "  ", "snippet": ""}]
    path.write_text(json.dumps([{"topic_id": 1, "docs": docs}]))
    assert [d.doc_id for d in load_documents(path)[1][1]] == ["d1"]
    assert ("docs.json:topic entry 1, document 2 (id 'd2'): empty document (no content or snippet); skipped"
            in caplog.text)


def test_huge_document_is_cut_with_a_warning(tmp_path, caplog):
    path = tmp_path / "docs.json"
    path.write_text(json.dumps([{"topic_id": 1, "docs": [{"id": "big", "content": "x" * (MAX_DOCUMENT_CHARS + 5)}]}]))
    (doc,) = load_documents(path)[1][1]
    assert len(doc.content) == MAX_DOCUMENT_CHARS
    assert f"document 1 (id 'big'): {MAX_DOCUMENT_CHARS + 5:,} characters; keeping the first" in caplog.text


def test_topic_without_documents_loads_with_none(tmp_path):
    write_questions(tmp_path / "test" / "questions.jsonl", [question_row("q-1", 11, "T.", OPTS)])
    (topic,) = load_split(tmp_path, "test")
    assert topic.topic_id == 11 and topic.documents == []
