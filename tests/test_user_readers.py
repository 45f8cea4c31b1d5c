"""A reader on a user's own topics: the trust of the regime "none" (its estimate, and the benchmark's path left as
it was), a folder of topic folders and topic files answered in one run with one reader file, and `calibrate` on
a user's own labelled topics writing the calibration that `answer` then uses."""

import json
import random
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from causalgraph.cli import answer, calibrate
from causalgraph.data import DataError, load_data
from causalgraph.readers.base import Judgement, ReaderJudgements
from causalgraph.readers.trust import AnswerChannel, ReaderCalibration, TrustSettings, load_calibrations, weigh_readers
from causalgraph.readers.trust.channel import answer_log_odds, estimate_answers_without_gold
from causalgraph.readers.trust.options import estimate_without_gold

from .conftest import question_row, write_questions
from .test_own_topic import EXAMPLE, example_as_one_topic


def structure_and_reader(error: float, seed: int = 0):
    """50 questions of four options, one to three of them causes, whose structure probabilities lean towards the
    truth (wrongly on a fifth of the options), and a reader whose answer is wrong, by one label dropped, added or
    swapped, on a share `error` of the questions."""
    rng = random.Random(seed)
    prior, judgements = {}, {}
    for i in range(50):
        causes = set(rng.sample("ABCD", rng.choice((1, 1, 2, 3))))
        for label in "ABCD":
            leans = (label in causes) != (rng.random() < 0.2)
            prior[(f"q{i}", label)] = rng.uniform(0.6, 0.95) if leans else rng.uniform(0.05, 0.4)
        given = set(causes)
        if rng.random() < error:
            others = sorted(set("ABCD") - causes)
            given = (causes - {min(causes)} if len(causes) > 1 and rng.random() < 0.5
                     else causes | {rng.choice(others)})
        judgements.update({(f"q{i}", label): Judgement(verdict=label in given) for label in "ABCD"})
    return prior, ReaderJudgements("r", judgements)


def test_the_trust_of_a_user_topic_follows_how_often_the_reader_is_right():
    rates, carried = [], []
    for error in (0.0, 0.3, 0.7):
        prior, reader = structure_and_reader(error)
        # a calibrated structure, and the EM's estimate as it comes (no stretch)
        cal = estimate_answers_without_gold(reader, prior, {}, AnswerChannel(temperature=1.0, stretch=1.0))
        assert cal.regime == "none" and cal.options == 50 and not cal.fallback
        rates.append(cal.answers_right)
        fused = answer_log_odds(cal, reader, prior, {})
        carried.append(sum(abs(j.calibrated) for j in fused.judgements.values()))
        assert all(j.calibrated >= 0 for k, j in fused.judgements.items() if j.verdict)  # a yes never lowers
    assert rates[0] > rates[1] > rates[2] and rates[0] > 0.7
    assert carried[0] > carried[1] > carried[2] > 0
    assert "its answers right on" in cal.reliability() and "regime 'none'" in cal.reliability()


def test_an_option_the_rules_settle_counts_as_certain():
    prior, reader = structure_and_reader(0.0)
    wrong = {k: not j.verdict for k, j in reader.judgements.items()}  # the rules say the opposite of the reader
    assert (estimate_answers_without_gold(reader, prior, wrong).answers_right
            < estimate_answers_without_gold(reader, prior, {}).answers_right)


def test_an_answer_that_is_no_possible_one_counts_as_wrong_and_carries_nothing():
    prior, reader = structure_and_reader(0.0)
    empty = {**reader.judgements, **{("q0", label): Judgement(verdict=False) for label in "ABCD"}}
    cal = estimate_answers_without_gold(replace(reader, judgements=empty), prior, {})
    assert cal.options == 50 and cal.answers_right < estimate_answers_without_gold(reader, prior, {}).answers_right
    fused = answer_log_odds(cal, replace(reader, judgements=empty), prior, {})
    assert all(fused.judgements[("q0", label)].calibrated == 0 for label in "ABCD")


def test_a_label_not_judged_is_not_in_the_answer_and_none_comes_from_the_question():
    prior = {("q0", label): p for label, p in zip("ABC", (0.9, 0.2, 0.1))}  # D is None
    reader = ReaderJudgements("r", {("q0", "A"): Judgement(verdict=True)})  # D not judged: the answer is {A}
    cal = estimate_answers_without_gold(reader, prior, {})
    assert cal.options == 1 and not cal.fallback
    fused = answer_log_odds(cal, reader, prior, {})
    assert fused.judgements[("q0", "A")].calibrated > 0 and set(fused.judgements) == {("q0", "A")}


def test_a_calibration_of_the_other_regime_is_warned_about(caplog):
    prior, reader = structure_and_reader(0.0)
    user = ReaderCalibration("r", "answers", "gold answers of mine", 50, answers_right=0.9, scale=1.0, regime="none")
    aer = ReaderCalibration("r", "answers", "gold answers", 200, cause=1.4, other=-2.2, sensitivity=0.8,
                            specificity=0.9)
    (fused,) = weigh_readers((reader,), (prior, {}), TrustSettings(calibrations={"r": user}, regime="aer"))
    assert "made on a user's own topics (regime 'none'); these are answered under priors 'aer'" in caplog.text
    assert fused.calibration is user  # still read as the channel of whole answers it was fitted as
    weigh_readers((reader,), (prior, {}), TrustSettings(calibrations={"r": aer}, regime="none"))
    assert "made on the benchmark's topics (regime 'aer'); these are answered under priors 'none'" in caplog.text


def test_the_benchmark_regime_is_the_em_as_before():
    prior, reader = structure_and_reader(0.1)
    (cal,) = estimate_without_gold([reader], prior, {}, TrustSettings(min_open=1))
    assert cal.regime == "aer" and "EM" in cal.method


def without_ids() -> dict:
    """The example topic as a topic file's object whose questions leave their ids out."""
    topic = example_as_one_topic()
    return {**topic, "questions": [{k: v for k, v in q.items() if k != "id"} for q in topic["questions"]]}


def copy_example(folder: Path, prefix: str, topic_id: int) -> None:
    """The example topic folder copied with its question ids and topic id changed."""
    folder.mkdir(parents=True)
    rows = [json.loads(line) for line in (EXAMPLE / "questions.jsonl").read_text().splitlines()]
    write_questions(folder / "questions.jsonl",
                    [{**r, "id": r["id"].replace("kb", prefix), "topic_id": topic_id} for r in rows])
    docs = json.loads((EXAMPLE / "docs.json").read_text())
    (folder / "docs.json").write_text(json.dumps([{**d, "topic_id": topic_id} for d in docs]))


@pytest.fixture
def topics_folder(tmp_path) -> Path:
    """Two topic folders and two topic files that leave their ids out."""
    root = tmp_path / "mine"
    shutil.copytree(EXAMPLE, root / "a-bridge")
    copy_example(root / "b-bridge", "kc", 2)
    for stem in ("c-file", "d-file"):
        (root / f"{stem}.json").write_text(json.dumps(without_ids()))
    return root


def test_a_folder_of_topics_is_read_with_ids_apart(topics_folder):
    topics = load_data(topics_folder)
    assert [t.topic_id for t in topics] == [1, 2, 3, 4]
    qids = [q.qid for t in topics for q in t.questions]
    assert len(qids) == len(set(qids)) == 24 and "c-file-q1" in qids and "d-file-q6" in qids


def test_ids_given_twice_in_a_folder_of_topics_name_both_places(tmp_path):
    shutil.copytree(EXAMPLE, tmp_path / "one")
    shutil.copytree(EXAMPLE, tmp_path / "two")
    with pytest.raises(DataError, match=r"two: topic_id 1 is also in .*one; give the topics apart ids"):
        load_data(tmp_path)


def test_an_aer_root_is_still_told_apart(tmp_path):
    write_questions(tmp_path / "test" / "questions.jsonl", [question_row("q1", 1, "T.", ["A1.", "B1.", "C1.", "D1."])])
    shutil.copytree(EXAMPLE, tmp_path / "mine")  # a topic folder beside the splits does not make it a user's folder
    assert [q.qid for t in load_data(tmp_path) for q in t.questions] == ["q1"]


def reader_file(path: Path, topics, extra: int = 0) -> Path:
    """The gold answers of the topics as one reader file, with `extra` ids of no topic."""
    lines = [{"id": q.qid, "answer": ",".join(sorted(q.gold))} for t in topics for q in t.questions]
    lines += [{"id": f"other-{i}", "answer": "A"} for i in range(extra)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_folder_of_topics_is_answered_in_one_run_with_one_reader_file(topics_folder, tmp_path, capsys, caplog):
    topics = load_data(topics_folder)
    scores = reader_file(tmp_path / "reader.jsonl", topics, extra=4)
    out = tmp_path / "answers.jsonl"
    assert answer.main(["--data", str(topics_folder), "--reader-scores", f"llm={scores}", "--out", str(out),
                        "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "4 ids match no question answered ('other-0', 'other-1', 'other-2', ...)" in caplog.text
    assert "answered 24 questions (4 of 4 topics)" in err and "regime 'none'" in err
    assert "reader llm: verdicts on 24 of 24 questions; " in err
    assert "analyses made for it)" in err and "; 0 analyses from the cache)" in err  # a fresh cache, said so
    got = {json.loads(line)["id"] for line in out.read_text().splitlines()}
    assert got == {q.qid for t in topics for q in t.questions}
    # --out may not overwrite a nested input
    assert answer.main(["--data", str(topics_folder), "--out", str(topics_folder / "c-file.json"), "--quiet"]) == 2
    assert "is an input of this run" in capsys.readouterr().err


def test_a_reader_file_of_no_answered_question_is_an_error(tmp_path, capsys):
    scores = tmp_path / "other.jsonl"
    scores.write_text(json.dumps({"id": "zz-1", "answer": "A"}) + "\n")
    assert answer.main(["--data", str(EXAMPLE), "--reader-scores", str(scores), "--quiet"]) == 2
    assert f"error: {scores}: no id matches a question answered (1 ids: 'zz-1')" in capsys.readouterr().err


def test_calibrate_on_own_labels_writes_what_answer_uses(tmp_path, capsys):
    root = tmp_path / "labelled"
    root.mkdir()
    for i in range(7):  # about 20 open options each: enough for an estimate together, not alone
        (root / f"t{i}.json").write_text(json.dumps(without_ids()))
    scores = reader_file(tmp_path / "reader.jsonl", load_data(root))
    out = tmp_path / "cal.json"
    small = tmp_path / "small"
    small.mkdir()
    shutil.copy(root / "t0.json", small)  # one topic, its ids those of the reader file (t0-q1, ...)
    assert calibrate.main(["--data", str(small), "--reader-scores", f"llm={scores}", "--out", str(out)]) == 2
    assert "fewer than the 100 an estimate needs" in capsys.readouterr().err and not out.exists()
    assert calibrate.main(["--data", str(root), "--reader-scores", f"llm={scores}", "--out", str(out)]) == 0
    (cal,) = load_calibrations(out).values()
    assert not cal.fallback and cal.regime == "none" and cal.method.startswith(f"gold answers of {root}")
    capsys.readouterr()
    assert answer.main(["--data", str(small), "--reader-scores", f"llm={scores}", "--reader-calibration",
                        str(out), "--out", str(tmp_path / "a.jsonl"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert cal.answers_right == 0.995 and cal.options == 42  # the gold itself: every answer right
    assert (f"reader llm: verdicts on 6 of 6 questions; its answers right on 100% of questions, estimated on 42 "
            f"questions (gold answers of {root})") in err


def test_the_stretch_moves_the_estimate_away_from_the_prior_mean():
    """The EM draws every reader's estimate towards the middle; `stretch` moves it back, within (0.005, 0.995)."""
    estimates = {}
    for error in (0.0, 0.7):
        prior, reader = structure_and_reader(error)
        plain, stretched = (estimate_answers_without_gold(reader, prior, {}, AnswerChannel(temperature=1.0, stretch=s))
                            .answers_right for s in (1.0, 1.5))
        mean = AnswerChannel().prior
        assert stretched == pytest.approx(min(max(mean + 1.5 * (plain - mean), 0.005), 0.995), abs=1e-4)
        estimates[error] = (plain, stretched)
    assert estimates[0.7][1] < estimates[0.7][0] < estimates[0.0][0] <= estimates[0.0][1]
