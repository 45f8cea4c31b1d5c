"""Copies of labelled topics cut to the shapes of the split to be answered."""

from causalgraph.learn.crossval import TopicShape, resized_copies
from causalgraph.data import load_split
from causalgraph.analysis.analyse import analyse_topic
from causalgraph.measure.inputs import describe_held, describe_shapes, target_shapes

from .conftest import generated_topic, write_data


def test_copies_take_the_shape_of_the_answered_split(tmp_path):
    rows, docs = generated_topic(1, seed=3, events=10, questions=24)
    topic = load_split(write_data(tmp_path, "train", rows, [docs]), "train")[0]
    offering = {q.qid for q in topic.questions if q.none_label is not None}
    assert 2 <= len(offering) <= 12
    copies = resized_copies([analyse_topic(topic)], [TopicShape(questions=6, none_offered=2)], copies=4)[0]
    for copy in copies:
        qids = [q.qid for q in copy.topic.questions]
        assert len(qids) == 6 and len(set(qids)) == 6
        assert len(offering.intersection(qids)) == 2
    assert describe_held([copies], [TopicShape(6, 3)]).endswith(
        "6-6 questions, 33% of them offering None; the split's topics: 6-6 questions, 50% of them offering None")
    # a shape asking for more None questions than the topic has takes them all, and fills up with others
    greedy = resized_copies([analyse_topic(topic)], [TopicShape(questions=20, none_offered=20)], copies=1)[0][0]
    assert offering <= {q.qid for q in greedy.topic.questions} and len(greedy.topic.questions) == 20


def test_target_shapes_read_the_questions_only(tmp_path):
    rows = generated_topic(1, seed=3, questions=10)[0] + generated_topic(2, seed=4, questions=5)[0]
    for row in rows:
        del row["golden_answer"]
    data = write_data(tmp_path, "test", rows, [])
    shapes = target_shapes(str(data), "test")
    assert [s.questions for s in shapes] == [10, 5]
    assert sum(s.none_offered for s in shapes) == sum(r[f"option_{l}"].startswith("None") for r in rows for l in "ABCD")
    assert describe_shapes(shapes).startswith("5-10 questions, ")
    assert target_shapes(str(data), None) == []
