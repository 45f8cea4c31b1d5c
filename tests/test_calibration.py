"""Reader calibration: the gold-free EM recovers a reader's reliability, correlated readers share a vote, files
are checked, and `calibrate` and `answer --reader-calibration` work end to end on generated data."""

import json
import random

import pytest

from causalgraph.cli import answer, calibrate
from causalgraph.data import DataError
from causalgraph.learn.calibration import load_calibrations, match_calibrations, write_calibrations
from causalgraph.readers.base import Judgement, ReaderJudgements
from causalgraph.readers.calibration import (ReaderCalibration, estimate_without_gold, fit_with_gold,
                                             fit_all_with_gold)

from .conftest import generated_topic, write_data


def synthetic(n=800, seed=0):
    """Options with a hidden truth, a noisy structure prior, and the None questions' options settled false."""
    rng = random.Random(seed)
    truth, prior, settled = {}, {}, {}
    for i in range(n):
        key = (f"q{i // 4}", "ABCD"[i % 4])
        truth[key] = rng.random() < 0.3
        prior[key] = min(max((0.65 if truth[key] else 0.25) + rng.uniform(-0.2, 0.2), 0.01), 0.99)
        if (i // 4) % 3 == 0:
            truth[key] = False
            settled[key] = False
    return truth, prior, settled


def voter(name, truth, sens, spec, seed):
    rng = random.Random(seed)
    return ReaderJudgements(name, {k: Judgement(verdict=(rng.random() < sens) if t else (rng.random() > spec))
                                   for k, t in truth.items()})


def test_em_without_gold_recovers_a_readers_sensitivity_and_specificity():
    truth, prior, settled = synthetic()
    (cal,) = estimate_without_gold([voter("r", truth, 0.8, 0.9, 1)], prior, settled)
    gold = fit_with_gold(voter("r", truth, 0.8, 0.9, 1), truth)
    assert abs(cal.sensitivity - gold.sensitivity) < 0.06 and abs(cal.specificity - gold.specificity) < 0.04
    assert cal.kind == "answers" and cal.method.startswith("no gold") and cal.options == len(truth)
    assert cal.log_odds(Judgement(verdict=True)) > 100 > -100 > cal.log_odds(Judgement(verdict=False))


def test_a_reader_that_guesses_carries_almost_nothing_and_a_good_one_more():
    truth, prior, settled = synthetic()
    guess, good = estimate_without_gold([voter("guess", truth, 0.5, 0.5, 2), voter("good", truth, 0.95, 0.95, 3)],
                                        prior, settled)
    assert abs(guess.log_odds(Judgement(verdict=True))) < 40
    assert good.log_odds(Judgement(verdict=True)) > 200 and "1 other reader" in good.method


def test_correlated_readers_share_one_vote():
    truth, prior, settled = synthetic()
    same = voter("a", truth, 0.8, 0.9, 4)
    twin = ReaderJudgements("b", same.judgements)
    other = voter("c", truth, 0.8, 0.9, 5)
    a, b, c = estimate_without_gold([same, twin, other], prior, settled)
    assert a.discount == b.discount and a.discount < 0.6 and c.discount > 0.8
    assert a.weight == round(150 * a.discount) and a.weight_for(1) == round(100 * a.discount)
    assert ReaderJudgements("a", same.judgements, calibration=a).for_questions(["q1"]).weight == a.weight_for(1)


def test_probabilities_are_recalibrated_not_counted_as_votes():
    truth, prior, settled = synthetic()
    rng = random.Random(6)
    probs = ReaderJudgements("p", {k: Judgement(probability=min(max((0.6 if t else 0.3) + rng.uniform(-0.25, 0.25), 0), 1))
                                   for k, t in truth.items()})
    (cal,) = estimate_without_gold([probs], prior, settled)
    assert cal.kind == "probabilities" and cal.slope > 0
    assert cal.log_odds(Judgement(probability=0.8)) > cal.log_odds(Judgement(probability=0.2))
    applied = cal.apply(probs)
    key = next(iter(probs.judgements))
    assert applied.judgements[key].log_odds() == cal.log_odds(probs.judgements[key])
    assert applied.weight == cal.weight and applied.calibration is cal


def test_gold_fit_with_two_readers_discounts_their_shared_errors():
    truth, _, _ = synthetic()
    same = voter("a", truth, 0.7, 0.9, 7)
    a, b = fit_all_with_gold([same, ReaderJudgements("b", same.judgements)], truth)
    assert a.discount < 0.6 and a.method == "gold answers"


def test_calibration_files_round_trip_and_bad_ones_name_the_file(tmp_path):
    cal = ReaderCalibration("r", "answers", "gold answers", 40, sensitivity=0.8, specificity=0.9, scale=2.0)
    good = tmp_path / "cal.json"
    good.write_text(write_calibrations([cal], {"split": "dev"}))
    assert load_calibrations(good) == {"r": cal}
    bad = {
        "not JSON": "{",
        "nested too deeply": "[" * 100_000 + "]" * 100_000,
        "expected {\"readers\"": json.dumps([1]),
        "missing field 'kind'": json.dumps({"readers": [{"reader": "r", "method": "m", "options": 1}]}),
        "kind must be one of": json.dumps({"readers": [{**cal.as_record(), "kind": "votes"}]}),
        "strictly between 0 and 1": json.dumps({"readers": [{**cal.as_record(), "sensitivity": 1.0}]}),
        "must be a finite number": json.dumps({"readers": [{**cal.as_record(), "scale": "high"}]}),
        "unknown field": json.dumps({"readers": [{**cal.as_record(), "colour": 1}]}),
        "a second calibration": json.dumps({"readers": [cal.as_record(), cal.as_record()]}),
        "no reader calibrated": json.dumps({"readers": []}),
    }
    for i, (message, text) in enumerate(bad.items()):
        path = tmp_path / f"bad{i}.json"
        path.write_text(text)
        with pytest.raises(DataError) as err:
            load_calibrations(path)
        assert str(path) in str(err.value) and message in str(err.value) and "\n" not in str(err.value)


def test_a_calibration_matches_its_reader_by_name_or_as_the_only_one(tmp_path):
    cal = ReaderCalibration("dev-run", "answers", "gold answers", 40, sensitivity=0.8, specificity=0.9)
    one = [ReaderJudgements("test.jsonl")]
    assert match_calibrations(one, {"dev-run": cal}, "cal.json")["test.jsonl"].sensitivity == 0.8
    with pytest.raises(DataError, match="not among the readers given"):
        match_calibrations([ReaderJudgements("x"), ReaderJudgements("y")], {"dev-run": cal}, "cal.json")


@pytest.fixture
def labelled(tmp_path):
    """Train and dev splits of six generated topics, and a reader's dev answers: gold with a few labels flipped."""
    topics = [generated_topic(i, seed=20 + i, events=8, questions=8) for i in range(1, 7)]
    train = [r for rows, _ in topics for r in rows[:5]]
    dev = [r for rows, _ in topics for r in rows[5:]]
    root = write_data(tmp_path / "aer", "train", train, [d for _, d in topics])
    write_data(root, "dev", dev, [])
    rng = random.Random(0)
    lines = []
    for row in dev:
        gold = set(row["golden_answer"].split(","))
        chosen = {label for label in "ABCD" if (label in gold) != (rng.random() < 0.1)} or {"A"}
        lines.append(json.dumps({"id": row["id"], "answer": ",".join(sorted(chosen))}))
    reader = tmp_path / "reader.jsonl"
    reader.write_text("\n".join(lines) + "\n")
    return root, reader


def test_calibrate_writes_what_answer_reads(labelled, tmp_path, capsys):
    root, reader = labelled
    out = tmp_path / "cal.json"
    assert calibrate.main(["--data", str(root), "--split", "dev", "--reader-scores", f"mine={reader}", "--out", str(out),
                           "--folds", "3", "--resize-to", "none", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "| structure model alone |" in printed and "gold of the other folds' topics, scale 1.5" in printed
    (cal,) = load_calibrations(out).values()
    assert cal.reader == "mine" and cal.sensitivity > 0.5 and cal.method.startswith("gold answers")
    explain = tmp_path / "explain.jsonl"
    assert answer.main(["--data", str(root), "--split", "dev", "--reader-scores", str(reader), "--reader-calibration",
                        str(out), "--explain", str(explain), "--quiet"]) == 0
    record = json.loads(explain.read_text().splitlines()[0])
    judged = [r for option in record["options"].values() for r in option.get("readers", [])]
    assert judged and all(r["weight"] == cal.weight and "gold answers" in r["reliability"] for r in judged)


def test_answer_calibrates_without_gold_unless_a_weight_is_given(labelled, tmp_path):
    root, reader = labelled
    explain = tmp_path / "explain.jsonl"
    assert answer.main(["--data", str(root), "--split", "dev", "--reader-scores", str(reader), "--explain", str(explain),
                        "--quiet"]) == 0
    judged = [r for line in explain.read_text().splitlines() for o in json.loads(line)["options"].values()
              for r in o.get("readers", [])]
    assert judged and all("no gold" in r["reliability"] for r in judged)
    assert answer.main(["--data", str(root), "--split", "dev", "--reader-scores", str(reader), "--reader-weight", "70",
                        "--explain", str(explain), "--quiet"]) == 0
    judged = [r for line in explain.read_text().splitlines() for o in json.loads(line)["options"].values()
              for r in o.get("readers", [])]
    assert judged and all(r["weight"] == 70 and "--reader-weight" in r["reliability"] for r in judged)


def test_bad_calibration_option_is_one_line(labelled, tmp_path, capsys):
    root, reader = labelled
    bad = tmp_path / "bad.json"
    bad.write_text("{]")
    assert answer.main(["--data", str(root), "--split", "dev", "--reader-scores", str(reader), "--reader-calibration",
                        str(bad), "--out", str(tmp_path / "p.jsonl"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and str(bad) in err and "\n" not in err and "Traceback" not in err
    assert not (tmp_path / "p.jsonl").exists()
    with pytest.raises(SystemExit) as usage:  # a calibration without a reader to apply it to
        answer.main(["--data", str(root), "--split", "dev", "--reader-calibration", str(bad), "--out", str(tmp_path / "p.jsonl")])
    assert usage.value.code == 2 and "needs a reader" in capsys.readouterr().err


def test_the_library_weighs_readers_as_answer_does():
    import causalgraph as cg

    topics = cg.demo_topics()
    reader = ReaderJudgements("gold-ish", {(q.qid, label): Judgement(verdict=label in q.gold)
                                           for t in topics for q in t.questions for label in "ABCD"})
    calibrated = list(cg.Reasoner.load(readers=(reader,)).answer(topics))
    record = calibrated[0].explanation["options"]["A"]["readers"][0]
    assert "no gold" in record["reliability"] and record["weight"] == 150  # eight questions
    fixed = list(cg.Reasoner.load(readers=(reader,), reader_weight=40).answer(topics))
    assert fixed[0].explanation["options"]["A"]["readers"][0]["weight"] == 40
    cal = ReaderCalibration("any", "answers", "gold answers", 40, sensitivity=0.9, specificity=0.9, scale=1.0)
    given = list(cg.Reasoner.load(readers=(reader,), reader_calibration={"any": cal}).answer(topics))
    assert given[0].explanation["options"]["A"]["readers"][0]["reliability"].startswith("sensitivity 0.90")
