"""Shared fixtures: the demo topic, a tiny data folder builder, generated topics, the path of the shared AER
data, and a fresh analysis cache folder for every test."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path

import pytest

from causalgraph.config import DEMO_DATA

AER = Path(__file__).resolve().parents[2] / "shared" / "aer"


def write_questions(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def question_row(qid: str, topic: int, target: str, options: list[str], gold: str | None = None) -> dict:
    row = {"topic_id": topic, "id": qid, "target_event": target}
    row.update({f"option_{label}": text for label, text in zip("ABCD", options)})
    if gold is not None:
        row["golden_answer"] = gold
    return row


NONE = "None of the others are correct causes."
SUBJECTS = ("The council", "Heavy rain", "A supplier", "The union", "Engineers", "The regulator", "Investors",
            "A storm")
VERBS = ("raised prices", "closed the bridge", "cut power", "filed a lawsuit", "halted trading", "issued a warning",
         "recalled a product", "opened an inquiry", "announced layoffs", "flooded the valley")
MONTHS = ("January", "March", "May", "July", "September", "November")


def generated_topic(topic_id: int, seed: int, events: int = 8, questions: int = 6) -> tuple[list[dict], dict]:
    """A small random topic: question rows (with gold) and a docs.json entry whose documents state the events."""
    rng = random.Random(seed)
    texts = sorted({f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} on {rng.choice(MONTHS)} {rng.randint(1, 28)}, 2023."
                    for _ in range(events * 3)})[:events]
    rows = []
    for i in range(questions):
        target, *options = rng.sample(texts, 5)
        if rng.random() < 0.3:
            options[rng.randrange(4)] = NONE
        gold = set(rng.sample("ABCD", rng.randint(1, 2)))
        gold = ",".join(sorted(gold - {label for label, o in zip("ABCD", options) if o == NONE} or gold))  # None alone
        rows.append(question_row(f"gen{topic_id}-{i}", topic_id, target, options, gold))
    docs = [{"id": f"gen{topic_id}-doc{j}", "title": f"Report {j}", "content": " ".join(rng.sample(texts, 4))}
            for j in range(3)]
    return rows, {"topic_id": topic_id, "topic": f"Generated topic {topic_id}", "docs": docs}


@pytest.fixture
def labelled(tmp_path) -> str:
    """A data folder of six generated labelled topics (train) and two unlabelled ones (test)."""
    topics = [generated_topic(i, seed=10 + i, events=8, questions=10) for i in range(1, 7)]
    root = write_data(tmp_path / "aer", "train", [r for rows, _ in topics for r in rows], [d for _, d in topics])
    unlabelled = [generated_topic(i, seed=i, questions=4)[0] for i in (40, 41)]
    for row in (r for rows in unlabelled for r in rows):
        del row["golden_answer"]
    write_data(root, "test", [r for rows in unlabelled for r in rows], [])
    return str(root)


def write_data(root: Path, split: str, rows: list[dict], doc_entries: list[dict]) -> Path:
    """A data folder with one split: questions.jsonl and docs.json."""
    write_questions(root / split / "questions.jsonl", rows)
    (root / split / "docs.json").write_text(json.dumps(doc_entries))
    return root


def assert_valid_solution(graph, solution, after=frozenset()) -> None:
    """The reasoner's invariants: 1-3 labels from A-D per question (unless priors was dropped); None only alone; never
    an option that is the target itself; one choice per (option event, target event) pair across the topic's questions
    unless consistency was dropped; no pair dated after its target unless temporal was dropped."""
    chosen_by_pair: dict[tuple[int, int], set[bool]] = {}
    for qid, slots in graph.graph["questions"].items():
        chosen = solution.answers[qid]
        assert chosen and chosen <= set("ABCD") and (len(chosen) <= 3
                                                     or "priors" in solution.dropped_for(qid)), (qid, chosen)
        assert slots.none_label not in chosen or chosen == {slots.none_label}, (qid, chosen)
        for label, event in slots.options.items():
            if event == slots.target:
                assert label not in chosen, (qid, label)
            elif qid not in solution.alone:
                chosen_by_pair.setdefault((event, slots.target), set()).add(label in chosen)
    if "consistency" not in solution.dropped:
        assert all(len(v) == 1 for v in chosen_by_pair.values()), chosen_by_pair
    if "temporal" not in solution.dropped:
        assert not any(True in chosen_by_pair.get(p, ()) for p in after)


@pytest.fixture(autouse=True)
def analysis_cache(tmp_path_factory, monkeypatch) -> Path:
    """Every test gets its own empty analysis cache, never the user's."""
    folder = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("CAUSALGRAPH_CACHE", str(folder))
    return folder


@pytest.fixture
def two_topics(tmp_path, demo_dir) -> Path:
    """A data folder (split "sample") with the demo topic and a generated topic 2."""
    rows = (demo_dir / "sample" / "questions.jsonl").read_text().splitlines()
    demo_rows = [json.loads(line) for line in rows if line.strip()]
    gen_rows, gen_docs = generated_topic(2, seed=7)
    demo_docs = json.loads((demo_dir / "sample" / "docs.json").read_text())
    return write_data(tmp_path / "data", "sample", demo_rows + gen_rows, demo_docs + [gen_docs])


@pytest.fixture
def demo_dir() -> Path:
    return DEMO_DATA


@pytest.fixture
def aer() -> Path:
    if not (AER / "train" / "questions.jsonl").is_file():
        pytest.skip(f"the AER data is not at {AER} (tests that need it read ../shared/aer)")
    return AER


@pytest.fixture(autouse=True)
def clingo_strict():
    """clingo's undefined-atom warnings, which the solver logs at debug level, fail the test."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(level=logging.DEBUG)
    handler.emit = records.append
    logger = logging.getLogger("causalgraph.reason.solve")
    level = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    yield
    logger.removeHandler(handler)
    logger.setLevel(level)
    undefined = [r.getMessage() for r in records if "AtomUndefined" in r.getMessage()]
    assert not undefined, f"clingo reported undefined atoms: {undefined}"
