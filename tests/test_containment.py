"""Hostile runs contained: work bounded by the input's size or by --time-limit over a topic,
caches keyed by what determines their content and trusted only when no one else can write them, untrusted
files refused in one line that names them, workers and schedulers that fail or hang contained, and nothing raw
reaching a terminal or an XML file."""

import json
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from causalgraph.cli import answer
from causalgraph.data import Question, Topic, load_split
from causalgraph.graph.topic import build_graph, candidate_pairs
from causalgraph.reason.facts import topic_facts
from causalgraph.reason.solve import GATED, RELAXABLE, TopicProgram, solve_topic
from causalgraph.run import parallel
from causalgraph.run.parallel import Outcome, map_ordered

from .conftest import NONE, assert_valid_solution, question_row, write_questions
from .test_safety import answer_demo, fail_renaming_onto

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def demo_copy(tmp_path, demo_dir):
    """A writable copy of the demo data folder."""
    return shutil.copytree(demo_dir, tmp_path / "demo")


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


# --- workers and schedulers that fail or hang are contained ---

def nap(n: int) -> int:
    """Note this worker's pid in $NAP_DIR, then sleep: a topic that takes long."""
    Path(os.environ["NAP_DIR"], str(os.getpid())).write_text("")
    time.sleep(60)
    return n


NAPPING_RUN = """
import sys
from causalgraph.cli.common import run_command
from causalgraph.run.parallel import Outcome, map_ordered
from tests.test_containment import nap

def main(argv):
    for outcome in map_ordered(nap, list(range(6)), workers=2):
        print(outcome)
    return 0

sys.exit(run_command(main))
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads worker processes from /proc")
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_the_workers_die_with_the_run(tmp_path, how):
    run = subprocess.Popen([sys.executable, "-c", NAPPING_RUN], cwd=ROOT, env={**os.environ, "NAP_DIR": str(tmp_path)},
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.1)
    workers = [int(p.name) for p in tmp_path.iterdir()]
    assert len(workers) == 2 and all(map(alive, workers))
    run.send_signal(how)
    _, err = run.communicate(timeout=30)
    if how == signal.SIGTERM:
        assert (run.returncode, err) == (143, "terminated; nothing written\n")
    deadline = time.monotonic() + 10
    while any(map(alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(map(alive, workers))


def test_a_malformed_dask_address_is_one_line(demo_copy, tmp_path, capsys):
    assert answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl"), "--dask-address", "notanaddress") == 2
    err = capsys.readouterr().err
    assert err == ("error: --dask-address notanaddress: no Dask scheduler reached "
                   "(missing port number in address 'notanaddress')\n")


def test_a_dask_address_that_accepts_and_says_nothing_times_out(monkeypatch):
    pytest.importorskip("dask.distributed", reason="dask is not installed (pip install '.[dask]')")
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    held = []
    threading.Thread(target=lambda: held.extend(silent.accept() for _ in range(8)), daemon=True).start()
    monkeypatch.setattr(parallel, "DASK_CONNECT_TIMEOUT", 1.0)
    address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=f"--dask-address {address}: no Dask scheduler reached"):
        next(map_ordered(abs, [1], scheduler="dask", address=address))
    assert time.monotonic() - start < 10
    silent.close()


def test_the_local_dask_cluster_has_no_more_workers_than_items(monkeypatch):
    distributed = pytest.importorskip("dask.distributed", reason="dask is not installed (pip install '.[dask]')")
    asked = []

    def cluster(**kwargs):
        asked.append(kwargs["n_workers"])
        raise RuntimeError("enough")

    monkeypatch.setattr(distributed, "LocalCluster", cluster)
    for items in ([1], [1, 2, 3]):
        with pytest.raises(RuntimeError, match="enough"):
            next(map_ordered(abs, items, workers=12, scheduler="dask"))
    assert asked == [1, 3]


# --- work bounded by the input's size, or by --time-limit over the whole topic ---

def clash_topic(pairs: int) -> Topic:
    """Questions in pairs that the priors and consistency set against each other: q{i}a repeats B{i} as an
    option for A{i}, q{i}b repeats A{i} for B{i}, and two events cannot cause each other. Each question alone
    is answerable; the whole topic is not."""
    questions = []
    for i in range(pairs):
        a, b = f"Event A{i} happened.", f"Event B{i} happened."
        questions += [Question(f"q{i}a", 1, a, (b, b, f"Filler C{i}.", f"Filler D{i}.")),
                      Question(f"q{i}b", 1, b, (a, a, f"Filler E{i}.", f"Filler F{i}."))]
    return Topic(1, questions)


def test_the_time_limit_caps_all_the_searches_of_a_topic(monkeypatch):
    graph = build_graph(clash_topic(200))
    scores = dict.fromkeys(candidate_pairs(graph), 0.5)
    searches = []
    real_solve = TopicProgram.solve
    monkeypatch.setattr(TopicProgram, "solve", lambda self, *a, **k: searches.append(1) or real_solve(self, *a, **k))
    unlimited = solve_topic(graph, scores)
    # the topic, its 400 questions in rounds over the groups that share no event (not one search each), the
    # relaxed topic
    assert 2 < len(searches) < 50
    searches.clear()
    start = time.monotonic()
    limited = solve_topic(graph, scores, time_limit=0.05)
    assert time.monotonic() - start < 5 and len(searches) < 50
    assert unlimited.dropped == ("consistency",) and all(unlimited.answers.values())
    assert_valid_solution(graph, limited)  # the answer may depend on timing, as the README says


def test_a_search_stopped_at_the_deadline_still_gives_the_unsat_core():
    # cancelled as it proved the topic unsatisfiable, clingo gives no core: then branch-and-bound proves it again,
    # so that the relaxation has groups to drop (an empty core once sent a limited topic to be solved unlimited)
    graph = build_graph(clash_topic(2))
    program = TopicProgram(topic_facts(graph, dict.fromkeys(candidate_pairs(graph), 0.5), set()))
    for _ in range(500):
        found = program.solve(GATED, None, time.monotonic())
        assert found.unsatisfiable and set(RELAXABLE) & set(found.core)


# --- a question that cannot be answered takes only itself down (see also test_hostile_inputs) ---

def test_a_question_without_an_answer_under_the_rules_leaves_the_rest_of_its_topic_answered(tmp_path, caplog):
    rows = [question_row("q1", 1, "The dam failed.", ["Rain fell.", "Gates jammed.", "A cup was won.", "Snow fell."]),
            question_row("q2", 1, "The town flooded.", ["The town flooded.", NONE, "The town flooded.", NONE]),
            question_row("q3", 1, "The town flooded.", ["The dam failed.", "Rain fell.", "Rain fell.", "Snow fell."])]
    write_questions(tmp_path / "data" / "sample" / "questions.jsonl", rows)
    out = tmp_path / "p.jsonl"
    assert answer_demo(tmp_path / "data", "--out", str(out), "--without", "none") == 0
    answers = {r["id"]: r["answer"] for r in map(json.loads, out.read_text().splitlines())}
    assert answers["q2"] == "" and answers["q1"] and "B" in answers["q3"] and "C" in answers["q3"]
    assert "topic 1: question q2 has no answer under the rules even without the relaxable rule groups" in caplog.text


# --- caches keyed by what determines their content, and trusted only when no one else can write them ---

def test_the_crossencoder_digest_covers_every_weights_file(tmp_path):
    from causalgraph.readers.crossencoder import model_digest

    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    digests = {model_digest(folder)}
    for name in ("pytorch_model.bin", "model-00001-of-00002.safetensors", "model.safetensors.index.json",
                 "tokenizer.json", "causalgraph.json"):
        (folder / name).write_bytes(b"one")
        digests.add(model_digest(folder))
        (folder / name).write_bytes(b"two")
        digests.add(model_digest(folder))
    assert len(digests) == 11 and model_digest("org/hub-name") == "org/hub-name"


def test_changed_bin_weights_are_judged_again_not_read_from_the_cache(demo_dir, tmp_path):
    from causalgraph.readers.crossencoder import CrossEncoderReader, PairModel

    [demo] = load_split(demo_dir, "sample")
    folder = tmp_path / "m"
    PairModel(seed=1).model.save_pretrained(folder, safe_serialization=False)  # pytorch_model.bin
    PairModel(seed=1).tokenizer.save_pretrained(folder)
    first = CrossEncoderReader(folder, cache_dir=tmp_path / "cache").judge([demo], progress=False)
    PairModel(seed=2).model.save_pretrained(folder, safe_serialization=False)
    second = CrossEncoderReader(folder, cache_dir=tmp_path / "cache").judge([demo], progress=False)
    fresh = CrossEncoderReader(folder).judge([demo], progress=False)
    assert second.judgements == fresh.judgements != first.judgements


@pytest.mark.parametrize("settings, message", [
    ("[1, 2]", "expected a JSON object"), ('{"encoder": 5}', "encoder must be a model name or path, got 5"),
    ('{"evidence": "yes"}', "evidence must be true or false, got 'yes'"), ("{bad", "line 1: bad JSON"),
])
def test_a_bad_crossencoder_settings_file_is_one_line_naming_it(tmp_path, capsys, settings, message):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "causalgraph.json").write_text(settings)
    assert answer.main(["--demo", "--quiet", "--crossencoder", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {folder / 'causalgraph.json'}") and message in err and err.count("\n") == 1


def test_a_pickled_crossencoder_is_not_run_and_is_one_line(tmp_path, capsys):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "bert", "vocab_size": 10, "hidden_size": 8,
                                                    "num_hidden_layers": 1, "num_attention_heads": 1,
                                                    "intermediate_size": 8}))
    (folder / "pytorch_model.bin").write_bytes(pickle.dumps(Planted(tmp_path / "ran")))
    from causalgraph.readers.crossencoder import PairModel

    PairModel(seed=1).tokenizer.save_pretrained(folder)
    capsys.readouterr()  # what loading the tokenizer's model printed
    assert answer.main(["--demo", "--quiet", "--crossencoder", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --crossencoder {folder}: cannot load the model (") and err.count("\n") == 1
    assert not (tmp_path / "ran").exists()


class Planted:
    """A pickle that, unpickled, makes the file `path`: what a planted cache entry or weights file would do."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))


@pytest.mark.parametrize("entry", [{"not": "a list"}, [["demo-1", "Z", 0.5, []]], [["demo-1", "A", 7.5, []]],
                                   [["demo-1", "A", 0.5, "evidence"]], [[1, 2]]])
def test_a_crossencoder_cache_entry_of_another_shape_is_recomputed(demo_dir, tmp_path, caplog, entry):
    from causalgraph.readers.crossencoder import CrossEncoderReader, PairModel

    [demo] = load_split(demo_dir, "sample")
    PairModel(seed=1).save(tmp_path / "m")
    reader = CrossEncoderReader(tmp_path / "m", cache_dir=tmp_path / "cache")
    first = reader.judge([demo], progress=False)
    [path] = (tmp_path / "cache" / "crossencoder").iterdir()
    path.write_text(json.dumps(entry))
    assert reader.judge([demo], progress=False).judgements == first.judgements
    assert json.loads(path.read_text()) != entry  # replaced


def test_the_llm_cache_asks_a_second_endpoint_serving_a_model_of_the_same_name(tmp_path):
    from causalgraph.readers.llm import LLMReader

    from . import hostile
    from .hostile import HostileServer

    question = Question("q1", 1, "The dam failed.", ("Rain fell.", "Gates jammed.", "A cup was won.", NONE))
    with HostileServer([hostile.good]) as first, HostileServer([hostile.good]) as second:
        LLMReader(first.url, "same", retries=0, cache_dir=tmp_path).judge_question(question, [])
        LLMReader(second.url, "same", retries=0, cache_dir=tmp_path).judge_question(question, [])
        LLMReader(first.url, "same", retries=0, cache_dir=tmp_path).judge_question(question, [])
    assert (len(first.calls), len(second.calls)) == (1, 1)


def test_a_score_file_named_as_another_reader_is_refused(demo_copy, tmp_path, capsys):
    scores = tmp_path / "s.jsonl"
    scores.write_text("".join(json.dumps({"id": f"demo-{i}", "answer": "A"}) + "\n" for i in range(1, 9)))
    for given, other in ((["--crossencoder", str(tmp_path / "nowhere")], "crossencoder"),
                         (["--llm-url", "http://127.0.0.1:9/v1", "--llm-model", "m"], "llm:m")):
        assert answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl"), "--reader-scores", f"{other}={scores}",
                           *given) == 2
        assert capsys.readouterr().err == (f"error: --reader-scores: two readers are named {other!r}; give a score "
                                           "file another name as NAME=FILE\n")


def planted_cache(cache: Path, demo_copy: Path, tmp_path: Path) -> Path:
    """Answer the demo once into `cache`, then plant a pickle in place of its entry."""
    assert answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl"), "--cache-dir", str(cache)) == 0
    [entry] = cache.glob("*.pickle")
    entry.write_bytes(pickle.dumps(Planted(tmp_path / "ran")))
    return entry


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="file owners and modes are POSIX")
def test_a_cache_others_can_write_is_neither_read_nor_written(demo_copy, tmp_path, caplog):
    cache = tmp_path / "cache"
    entry = planted_cache(cache, demo_copy, tmp_path)
    expected = (tmp_path / "p.jsonl").read_text()
    cache.chmod(0o777)  # a folder anyone can write: the planted entry is not unpickled
    assert answer_demo(demo_copy, "--out", str(tmp_path / "q.jsonl"), "--cache-dir", str(cache)) == 0
    assert not (tmp_path / "ran").exists() and (tmp_path / "q.jsonl").read_text() == expected
    assert f"{cache} can be written by others than its owner (mode 777)" in caplog.text
    assert list(cache.glob("*.pickle")) == [entry]  # nor written
    cache.chmod(0o700)
    entry.chmod(0o666)  # the folder is safe, the entry is not: recomputed and replaced
    assert answer_demo(demo_copy, "--out", str(tmp_path / "q.jsonl"), "--cache-dir", str(cache)) == 0
    assert not (tmp_path / "ran").exists() and f"{entry} can be written by others" in caplog.text
    sticky = tmp_path / "sticky"
    sticky.mkdir(mode=0o777)
    sticky.chmod(0o1777)  # as /tmp: a folder above the cache may be sticky
    caplog.clear()
    assert answer_demo(demo_copy, "--out", str(tmp_path / "q.jsonl"), "--cache-dir", str(sticky / "mine")) == 0
    assert "written by others" not in caplog.text and list((sticky / "mine").glob("*.pickle"))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file away takes root")
def test_a_cache_entry_owned_by_another_user_is_not_read(demo_copy, tmp_path, caplog):
    entry = planted_cache(tmp_path / "cache", demo_copy, tmp_path)
    os.chown(entry, 65534, 65534)
    assert answer_demo(demo_copy, "--out", str(tmp_path / "q.jsonl"), "--cache-dir", str(tmp_path / "cache")) == 0
    assert not (tmp_path / "ran").exists() and "is owned by another user (uid 65534)" in caplog.text


# --- nothing raw reaches a terminal or an XML file ---

HOSTILE_ID = "q\x1b[2J\x1b]0;owned\x07\u202etxt.exe\u2028"


def test_terminal_escapes_and_bidi_overrides_in_ids_are_escaped_on_the_terminal(tmp_path):
    same = "The gates jammed."
    rows = [question_row(HOSTILE_ID, 1, "The dam failed.", [same, same, same, same]),  # answered alone, with a warning
            question_row("q2", 1, "The dam failed.", ["Rain fell.", same, "A cup was won.", NONE])]
    write_questions(tmp_path / "data" / "test" / "questions.jsonl", rows)
    pred = tmp_path / "p.jsonl"
    run = subprocess.run([sys.executable, "-m", "causalgraph.answer", "--data", str(tmp_path / "data"), "--out",
                          str(pred),
                          "--quiet"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": "q2", "answer": "D"}) + "\n")
    scored = subprocess.run([sys.executable, "-m", "causalgraph.evaluate", "--pred", str(pred), "--gold", str(gold)],
                            capture_output=True, text=True, cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr
    shown = r"q\x1b[2J\x1b]0;owned\x07\u202etxt.exe\u2028"
    for err in (run.stderr, scored.stderr):
        assert shown in err and not set(err) & {"\x1b", "\x07", "\u202e", "\u2028"}
        assert all(line.startswith(("WARNING: ", "answered ", "warning: ", "wrote ")) for line in err.splitlines())


def test_control_characters_in_texts_make_graphml_that_parses(demo_copy, tmp_path):
    import networkx as nx

    from lab.solver import timeline

    questions = demo_copy / "sample" / "questions.jsonl"
    questions.write_text(questions.read_text().replace("The", "Th\\u001be\\u0001\\\\", 1))
    docs = demo_copy / "sample" / "docs.json"
    docs.write_text(docs.read_text().replace('"title": "', '"title": "\\u0007\\u000b\\ufffe', 1))
    out = tmp_path / "t.graphml"
    assert timeline.main(["--data", str(demo_copy), "--split", "sample", "--graph-out", str(out), "--quiet"]) == 0
    graph = nx.read_graphml(out)
    texts = [d.get("text", d.get("title", "")) for _, d in graph.nodes(data=True)]
    assert any("Th\\x1be\\x01\\" in t for t in texts) and any("\\x07\\x0b\\ufffe" in t for t in texts)


def test_a_vast_topic_range_costs_no_more_than_a_small_one(demo_copy, tmp_path, capsys):
    from causalgraph.cli.common import parse_topics

    start = time.perf_counter()
    assert answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl"), "--topics", "1-999999999999") == 2
    assert capsys.readouterr().err.endswith("unknown topic 2 in split sample (its topics: 1)\n")
    assert 999999999999 in parse_topics("1-999999999999") and 10**12 not in parse_topics("1-999999999999")
    assert time.perf_counter() - start < 10
    with pytest.raises(SystemExit):
        answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl"), "--topics", "1-" + "9" * 19)
    assert "ids of at most 18 digits" in capsys.readouterr().err


def test_warnings_over_thousands_of_topics_stay_short(tmp_path, caplog):
    from causalgraph.data.load import warn_without_documents
    from causalgraph.run.advice import thin_topics

    topics = [Topic(t,
                    [Question(f"q{t}", t, "The dam failed.", ("Rain fell.", "Gates jammed.", "A cup was won.", NONE))])
              for t in range(1, 10_001, 2)]
    _, thin = thin_topics(topics, readers=False)
    assert thin.startswith("topics 1, 3, 5,") and " and 4,980 more: fewer than" in thin and len(thin) < 400
    warn_without_documents(topics)
    assert "topics 1, 3, 5," in caplog.text and "and 4,980 more have no documents" in caplog.text
    assert max(map(len, caplog.text.splitlines())) < 400


def test_parse_date_takes_linear_time():
    from causalgraph.text.dates import PartialDate, parse_date

    assert parse_date("taxes effective  May 1, then on May 3") == PartialDate(None, 5, 3)
    assert parse_date("effective May 1") is None and parse_date("Noneffective May 1") == PartialDate(None, 5, 1)
    text = ("May 1 " * 20_000)[:100_000]
    start = time.perf_counter()
    assert parse_date(text) == PartialDate(None, 5, 1)
    assert time.perf_counter() - start < 5  # 0.1 s here; the quadratic search took 85 s


def test_library_inputs_are_checked():
    import causalgraph as cg

    for bad in (-1, 0, float("nan"), float("inf"), "5", True):
        with pytest.raises(ValueError, match="time-limit must be a number of seconds above 0"):
            cg.Reasoner.load(time_limit=bad)
    assert cg.Reasoner.load(time_limit=0.5).settings.time_limit == 0.5


# --- small ones: endless inputs, long names, folders left behind, clashing options, huge documents ---

@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_an_endless_device_as_an_input_is_one_line(demo_copy, tmp_path, capsys):
    assert answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl"), "--reader-scores", "/dev/zero") == 2
    assert capsys.readouterr().err == "error: /dev/zero: is a character device, not a file to read\n"
    from causalgraph.data import DataError
    from causalgraph.readers.trust import load_calibrations

    with pytest.raises(DataError, match="^/dev/zero: is a character device, not a file to read$"):
        load_calibrations("/dev/zero")


def test_a_calibration_file_with_a_huge_number_names_the_file(tmp_path):
    from causalgraph.data import DataError
    from causalgraph.readers.trust import load_calibrations

    path = tmp_path / "cal.json"
    path.write_text('{"readers": [{"scale": ' + "7" * 5001 + "}]}")
    with pytest.raises(DataError, match=f"^{path}: not JSON") as err:
        load_calibrations(path)
    assert "\n" not in str(err.value) and len(str(err.value)) < 300


def test_an_output_with_a_long_legal_name_is_written(demo_copy, tmp_path):
    out = tmp_path / ("p" * 244 + ".jsonl")  # 250 bytes; the file system takes 255
    assert answer_demo(demo_copy, "--out", str(out)) == 0 and len(out.read_text().splitlines()) == 8
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["demo", out.name])


def test_a_failed_run_leaves_no_folder_behind(demo_copy, tmp_path, monkeypatch):
    out = tmp_path / "new" / "deeper" / "p.jsonl"
    failed = Outcome(1, OSError(28, "No space left on device", "/tmp/x"))  # a topic failed on a full disk
    monkeypatch.setattr(answer, "run_topics", lambda *a: ([], [failed]))
    assert answer_demo(demo_copy, "--out", str(out)) == 1 and not (tmp_path / "new").exists()
    monkeypatch.undo()
    fail_renaming_onto(out, monkeypatch)
    assert answer_demo(demo_copy, "--out", str(out)) == 2 and not (tmp_path / "new").exists()


def test_an_output_that_is_the_cache_folder_is_refused_before_any_work(demo_copy, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(answer, "run_topics", lambda *a: pytest.fail("topics answered before the outputs were checked"))
    same = tmp_path / "x"
    assert answer_demo(demo_copy, "--out", str(same), "--cache-dir", str(same)) == 2
    assert capsys.readouterr().err == f"error: --out {same}: --cache-dir {same} is a folder there; give them apart\n"
    assert answer_demo(demo_copy, "--out", str(same), "--cache-dir", str(same / "cache")) == 2
    assert not same.exists()


def test_visualize_reads_a_bounded_share_of_huge_documents(demo_copy, tmp_path, caplog):
    from causalgraph.cli import visualize

    docs = demo_copy / "sample" / "docs.json"
    entries = json.loads(docs.read_text())
    content = " ".join(d["content"] for d in entries[0]["docs"])
    entries[0]["docs"] = [{"id": f"d{i}", "title": f"Report {i}", "content": content} for i in range(2000)]
    docs.write_text(json.dumps(entries))
    total = 2000 * len(content)
    start = time.perf_counter()
    assert visualize.main(["--data", str(demo_copy), "--split", "sample", "--topics", "1", "--out",
                           str(tmp_path / "t.html"), "--max-topic-chars", "5000", "--quiet"]) == 0
    assert time.perf_counter() - start < 120
    assert (f"topic 1: its 2,000 documents hold {total:,} characters; the page reads the first 5,000 of them, in "
            f"{-(-5000 // len(content))} documents (--max-topic-chars)") in caplog.text
    assert visualize.capped(load_split(demo_copy, "sample")[0],
                            5000).documents[-1].content == content[:5000 % len(content)]
