"""The analysis cache: what its key depends on, atomic and shared writes, damaged entries (no model needed)."""

import pickle
import threading
from dataclasses import dataclass, replace

import pytest

from causalgraph.analysis import cache
from causalgraph.analysis.cache import AnalysisCache, code_version, encoder_version, topic_digest
from causalgraph.data import Document, Question, Topic
from causalgraph.text.extract import DocumentReading


@dataclass
class FakeAnalysis:
    topic_id: int
    payload: list


def make_topic(target="The dam failed.", content="Rain fell.") -> Topic:
    q = Question("q1", 4, target, ("Rain fell.", "Gates jammed.", "A cup was won.", "A fair opened."), frozenset("A"))
    return Topic(4, [q], [Document("d1", "Report", content)], "Dams")


@pytest.fixture
def counted(monkeypatch):
    """Replace analyse_topic with a cheap fake that counts its calls."""
    calls = []

    def analyse(topic, encoder, documents=True, store=None, seconds=None, second_encoder=None, statements=False):
        calls.append(topic.topic_id)
        return FakeAnalysis(topic.topic_id, list(range(1000)))

    monkeypatch.setattr(cache, "analyse_topic", analyse)
    monkeypatch.setattr(cache, "TopicAnalysis", FakeAnalysis)  # the entry type the cache checks
    return calls


def test_key_follows_questions_documents_and_gold():
    base = topic_digest(make_topic())
    assert topic_digest(make_topic(content="Rain fell hard."), documents=False) == topic_digest(make_topic(),
                                                                                                documents=False)
    assert topic_digest(make_topic()) == base
    assert topic_digest(make_topic(target="The dam broke.")) != base
    assert topic_digest(make_topic(content="Rain fell hard.")) != base
    changed_gold = make_topic()
    changed_gold.questions[0] = replace(changed_gold.questions[0], gold=frozenset("B"))
    assert topic_digest(changed_gold) != base


def test_code_version_follows_the_analysis_code_only(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    for folder in ("text", "reason/rules", "view/templates", "analysis", "data", "graph", "evidence", "read"):
        (pkg / folder).mkdir(parents=True)
    files = {"config.py": "A = 1\n", "text/extract.py": "x = 1\n", "analysis/analyse.py": "y = 1\n",
             "analysis/table.py": "t = 1\n", "evidence/features.py": "f = 1\n",
             "analysis/cache.py": "z = 1\n", "reason/solve.py": "s = 1\n", "reason/rules/core.lp": "a.\n",
             "view/templates/topic.html": "<p>\n"}
    for name, text in files.items():
        (pkg / name).write_text(text)
    monkeypatch.setattr(cache, "PACKAGE_DIR", pkg)
    before = code_version.__wrapped__()
    # rule files, the solver, the cache itself and the page template do not change what analyse_topic computes
    for name in ("reason/rules/core.lp", "reason/solve.py", "view/templates/topic.html", "analysis/cache.py"):
        (pkg / name).write_text(files[name] + "# edited\n")
    assert code_version.__wrapped__() == before
    reading = code_version.__wrapped__(cache.READING_CODE)
    seen = {before}
    for name in ("evidence/features.py", "analysis/analyse.py", "analysis/table.py"):  # analysis, not reading
        (pkg / name).write_text(files[name] + "# edited\n")
        seen.add(code_version.__wrapped__())
    assert len(seen) == 4 and code_version.__wrapped__(cache.READING_CODE) == reading
    for name in ("text/extract.py", "config.py"):  # both
        (pkg / name).write_text(files[name] + "# edited\n")
        seen.add(code_version.__wrapped__())
        assert code_version.__wrapped__(cache.READING_CODE) != reading
    assert len(seen) == 6


def test_encoder_version_follows_the_model_files(tmp_path):
    model = tmp_path / "encoder"
    model.mkdir()
    (model / "weights.bin").write_bytes(b"\x00\x01")
    first = encoder_version.__wrapped__(str(model))
    (model / "weights.bin").write_bytes(b"\x00\x02")
    assert encoder_version.__wrapped__(str(model)) != first
    assert encoder_version("hub/name-a") != encoder_version("hub/name-b")


def test_different_encoders_use_different_entries(tmp_path):
    a, b = AnalysisCache.open(tmp_path, "hub/name-a"), AnalysisCache.open(tmp_path, "hub/name-b")
    assert a.path(make_topic()) != b.path(make_topic())
    twice = AnalysisCache.open(tmp_path, "hub/name-a", second="hub/name-b")  # a second reading is another analysis
    assert twice.path(make_topic()) != a.path(make_topic())
    document = make_topic().documents[0]  # but the same encoder's embeddings of a document are shared
    assert twice.document_key(document, "vectors", "hub/name-b") == b.document_key(document, "vectors")
    assert twice.document_key(document, "vectors") == a.document_key(document, "vectors")


def test_miss_then_hit(tmp_path, counted):
    store = AnalysisCache.open(tmp_path, "hub/name")
    first, hit = store.analyse(make_topic())
    again, hit_again = store.analyse(make_topic())
    assert (hit, hit_again, counted) == (False, True, [4])
    assert again == first
    store.analyse(make_topic(content="Other words."))
    assert counted == [4, 4]


def test_writes_leave_no_temporary_files(tmp_path, counted):
    AnalysisCache.open(tmp_path / "new" / "dir", "hub/name").analyse(make_topic())
    assert [p.name.startswith("topic-4-") for p in (tmp_path / "new" / "dir").iterdir()] == [True]


def test_each_document_is_read_once_whatever_topic_holds_it(tmp_path, monkeypatch):
    read = []

    def fake_read(documents):
        for d in documents:
            read.append(d.doc_id)
            yield DocumentReading((), ())

    monkeypatch.setattr(cache, "iter_readings", fake_read)
    store = AnalysisCache.open(tmp_path, "hub/name")
    one, two = Document("d1", "Report", "Rain fell."), Document("d2", "Report", "The dam failed.")
    assert len(store.read([one, two])) == 2 and read == ["d1", "d2"]
    assert store.read([two, one, Document("d3", "Other", "Rain fell.")]) == [DocumentReading((), ())] * 3
    assert read == ["d1", "d2", "d3"]  # only the new document is read
    assert store.document_key(one) != store.document_key(replace(one, date="2024-03-01"))  # the date anchors it


def test_parallel_writers_of_one_entry(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "TopicAnalysis", FakeAnalysis)
    store = AnalysisCache.open(tmp_path, "hub/name")
    topic, value = make_topic(), FakeAnalysis(4, list(range(200_000)))
    threads = [threading.Thread(target=store.store, args=(topic, value)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.load(topic) == value
    assert len(list(tmp_path.iterdir())) == 1


def test_damaged_entry_is_recomputed_with_a_warning(tmp_path, counted, caplog):
    store = AnalysisCache.open(tmp_path, "hub/name")
    store.path(make_topic()).write_bytes(b"not a pickle")
    analysis, hit = store.analyse(make_topic())
    assert not hit and analysis.topic_id == 4 and "unreadable cache entry" in caplog.text
    assert store.analyse(make_topic())[1]


@pytest.mark.parametrize("foreign", [{"format": 1, "analysis": None}, ["a", "list"], FakeAnalysis(4, [])])
def test_a_foreign_or_stale_entry_is_named_recomputed_and_replaced(tmp_path, counted, caplog, foreign):
    store = AnalysisCache.open(tmp_path, "hub/name")
    path = store.path(make_topic())
    path.write_bytes(pickle.dumps(foreign))
    analysis, hit = store.analyse(make_topic())
    assert not hit and counted == [4] and f"{path}: not a cache entry of this version" in caplog.text
    assert store.analyse(make_topic()) == (analysis, True) and counted == [4]


def test_unwritable_cache_folder_only_warns(tmp_path, counted, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("")
    analysis, hit = AnalysisCache.open(blocker / "cache", "hub/name").analyse(make_topic())
    assert analysis.topic_id == 4 and not hit and "cannot write to the cache folder" in caplog.text
