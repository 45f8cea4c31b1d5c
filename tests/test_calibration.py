"""Reader calibration: on the open options only, the gold-free EM recovers a reader's reliability where its votes
follow the structure model as real readers' do, probabilities get a Platt map that favours "cause" only as far
as the open options show, few open options fall back to the default weight, correlated readers share a vote,
files are checked, and `calibrate` and `answer --reader-calibration` work end to end on generated data."""

import json
import math
import random

import pytest

from causalgraph.cli import answer, calibrate
from causalgraph.data import DataError
from causalgraph.readers.base import Judgement, ReaderJudgements
from causalgraph.readers.trust import (ReaderCalibration, TrustSettings, load_calibrations, match_calibrations,
                                       write_calibrations)
from causalgraph.readers.trust.calibration import DEPENDENCE, FALLBACK_WEIGHT, MIN_OPEN, SCALE
from causalgraph.readers.trust.options import estimate_without_gold, fit_all_with_gold, fit_with_gold

from .conftest import generated_topic, write_data


def synthetic(n=2400, seed=0):
    """Options with a calibrated structure prior and a hidden truth drawn from it; every third question offers
    None, and its options are settled as no cause."""
    rng = random.Random(seed)
    truth, prior, settled = {}, {}, {}
    for i in range(n):
        key = (f"q{i // 4}", "ABCD"[i % 4])
        prior[key] = 1 / (1 + math.exp(-rng.gauss(-1.0, 1.5)))
        truth[key] = rng.random() < prior[key]
        if (i // 4) % 3 == 0:
            truth[key] = settled[key] = False
    return truth, prior, settled


def logit(p):
    return math.log(p / (1 - p))


def voter(name, truth, prior, sens, spec, seed, dependence=DEPENDENCE):
    """Votes that follow the structure log-odds x with `dependence`: a yes with probability
    sigmoid(logit(sens) + dependence x) on a cause, sigmoid(logit(1 - spec) + dependence x) on any other option."""
    rng = random.Random(seed)
    judgements = {}
    for k, t in truth.items():
        z = (logit(sens) if t else logit(1 - spec)) + dependence * logit(prior[k])
        judgements[k] = Judgement(verdict=rng.random() < 1 / (1 + math.exp(-z)))
    return ReaderJudgements(name, judgements)


def test_em_without_gold_recovers_a_dependent_readers_error_rates_on_the_open_options():
    truth, prior, settled = synthetic()
    reader = voter("r", truth, prior, 0.8, 0.9, 1)
    (cal,) = estimate_without_gold([reader], prior, settled)
    assert cal.kind == "answers" and cal.method.startswith("no gold") and cal.options == len(prior) - len(settled)
    gold = fit_with_gold(reader, truth, prior, settled)
    assert abs(gold.dependence - DEPENDENCE) < 0.1 and abs(gold.cause - logit(0.8)) < 0.3
    assert abs(cal.sensitivity - gold.sensitivity) < 0.06 and abs(cal.specificity - gold.specificity) < 0.04
    (independent,) = estimate_without_gold([reader], prior, settled, TrustSettings(dependence=0.0))
    assert independent.sensitivity > gold.sensitivity + 0.05  # agreement with the structure read as reliability
    assert cal.log_odds(Judgement(verdict=True)) > 100 > -100 > cal.log_odds(Judgement(verdict=False))
    text = cal.reliability()
    assert f"on {cal.options} open options" in text and "sensitivity" in text and f"weight {cal.weight}%" in text



def test_em_can_fit_each_readers_dependence_though_without_gold_it_is_barely_identified():
    truth, prior, settled = synthetic()
    fitted = [estimate_without_gold([voter("r", truth, prior, 0.8, 0.9, 1, dependence=d)], prior, settled,
                                    TrustSettings(dependence=None))[0].dependence for d in (0.0, 0.8)]
    assert fitted[0] < fitted[1] and fitted[0] != DEPENDENCE
    assert fitted[0] > 0.2  # a reader erring apart from the structure model still looks dependent (BENCHMARKS.md)

def test_settled_options_do_not_count():
    truth, prior, settled = synthetic()
    coin = voter("coin", truth, prior, 0.5, 0.5, 2)  # as likely to say yes to a cause as to any other option
    guess = ReaderJudgements("guess", {k: Judgement(verdict=False) if k in settled else j
                                       for k, j in coin.judgements.items()})  # and perfect where the rules decide
    (cal,) = estimate_without_gold([guess], prior, settled)
    assert abs(cal.log_odds(Judgement(verdict=True))) < 40 and abs(cal.log_odds(Judgement(verdict=False))) < 40


def test_a_reader_that_guesses_carries_almost_nothing_and_a_good_one_more():
    truth, prior, settled = synthetic()
    guess, good = estimate_without_gold([voter("guess", truth, prior, 0.5, 0.5, 2),
                                         voter("good", truth, prior, 0.95, 0.95, 3)], prior, settled)
    assert abs(guess.log_odds(Judgement(verdict=True))) < 40
    assert good.log_odds(Judgement(verdict=True)) > 200 and "1 other reader" in good.method


def test_a_reader_found_no_better_than_chance_gets_no_weight():
    truth, prior, settled = synthetic()
    contrary = voter("contrary", truth, prior, 0.3, 0.3, 8)  # says the opposite, following the structure model
    (cal,) = estimate_without_gold([contrary], prior, settled)
    assert cal.sensitivity + cal.specificity < 1 and cal.weight == 0 and "no better than chance" in cal.reliability()


def test_few_open_options_fall_back_to_the_default_weight():
    truth, prior, settled = synthetic(n=4 * 3 * (MIN_OPEN // 8))
    reader = voter("r", truth, prior, 0.9, 0.9, 4)
    (cal,) = estimate_without_gold([reader], prior, settled)
    assert cal.fallback and cal.weight == FALLBACK_WEIGHT and cal.options < MIN_OPEN
    assert cal.reliability().startswith("not estimated") and f"fewer than the {MIN_OPEN}" in cal.reliability()
    key = next(iter(reader.judgements))
    assert cal.log_odds(reader.judgements[key]) == reader.judgements[key].log_odds()  # its raw log-odds


def test_correlated_readers_share_one_vote():
    truth, prior, settled = synthetic()
    same = voter("a", truth, prior, 0.8, 0.8, 4)
    twin = ReaderJudgements("b", same.judgements)
    other = voter("c", truth, prior, 0.8, 0.8, 5)
    a, b, c = estimate_without_gold([same, twin, other], prior, settled)
    assert a.discount == b.discount and a.discount < 0.6 and c.discount > 0.8
    assert a.weight == round(100 * SCALE * a.discount) and "for errors shared with other readers" in a.reliability()
    assert ReaderJudgements("a", same.judgements, calibration=a).for_questions(["q1"]).weight == 100  # as given


def probability_reader(name, truth, prior, means, spread, seed):
    """Log-odds spread normally around means[truth], following the structure log-odds with the dependence."""
    rng = random.Random(seed)
    delta = DEPENDENCE * spread / 1.7
    return ReaderJudgements(name, {k: Judgement(probability=1 / (1 + math.exp(-(rng.gauss(means[t], spread)
                                                                                 + delta * logit(prior[k])))))
                                   for k, t in truth.items()})


def test_probabilities_get_a_platt_map_that_favours_cause_only_as_the_open_options_show():
    truth, prior, settled = synthetic()
    low = probability_reader("low", truth, prior, {True: 0.0, False: -4.0}, 1.5, 6)  # informative, running low
    (cal,) = estimate_without_gold([low], prior, settled)
    assert cal.kind == "probabilities" and cal.spread > 0
    assert cal.log_odds(Judgement(probability=0.8)) > cal.log_odds(Judgement(probability=0.2))
    assert cal.log_odds(Judgement(probability=0.5)) > 100  # shown: a cause's log-odds run near 0
    flat = probability_reader("flat", truth, prior, {True: 2.0, False: 2.0}, 1.0, 7)  # confident, uninformative
    (cal,) = estimate_without_gold([flat], prior, settled)
    assert all(abs(cal.log_odds(Judgement(probability=p))) < 60 for p in (0.5, 0.88, 0.95))
    applied = cal.apply(flat)
    key = next(iter(flat.judgements))
    assert applied.judgements[key].log_odds() == cal.log_odds(flat.judgements[key])
    assert applied.weight == cal.weight and applied.calibration is cal


def test_gold_fit_with_two_readers_discounts_their_shared_errors():
    truth, prior, settled = synthetic()
    same = voter("a", truth, prior, 0.7, 0.9, 7)
    a, b = fit_all_with_gold([same, ReaderJudgements("b", same.judgements)], truth, prior, settled)
    assert a.discount < 0.6 and a.method == "gold answers"


def test_calibration_files_round_trip_and_bad_ones_name_the_file(tmp_path):
    cal = ReaderCalibration("r", "answers", "gold answers", 400, cause=1.4, other=-2.2, sensitivity=0.8,
                            specificity=0.9, scale=2.0)
    good = tmp_path / "cal.json"
    good.write_text(write_calibrations([cal], {"split": "dev"}))
    assert load_calibrations(good) == {"r": cal}
    user = ReaderCalibration("u", "answers", "gold answers of mine", 42, answers_right=0.9, scale=1.0, regime="none")
    good.write_text(write_calibrations([user]))
    assert load_calibrations(good) == {"u": user}  # the regime "none": no sensitivity, no cause
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
        "missing field 'cause'": json.dumps({"readers": [{k: v for k, v in cal.as_record().items() if k != "cause"}]}),
        "needs a positive spread": json.dumps({"readers": [{**cal.as_record(), "kind": "probabilities"}]}),
        "fallback must be true or false": json.dumps({"readers": [{**cal.as_record(), "fallback": "yes"}]}),
        "answers_right must lie strictly between 0 and 1": json.dumps({"readers": [{**user.as_record(),
                                                                                    "answers_right": 1}]}),
        "answers_right belongs to the regime 'none'": json.dumps({"readers": [{**user.as_record(), "regime": "aer"}]}),
    }
    for i, (message, text) in enumerate(bad.items()):
        path = tmp_path / f"bad{i}.json"
        path.write_text(text)
        with pytest.raises(DataError) as err:
            load_calibrations(path)
        assert str(path) in str(err.value) and message in str(err.value) and "\n" not in str(err.value)


def test_a_calibration_matches_its_reader_by_name_or_as_the_only_one(tmp_path):
    cal = ReaderCalibration("dev-run", "answers", "gold answers", 400, cause=1.4, other=-2.2, sensitivity=0.8,
                            specificity=0.9)
    one = [ReaderJudgements("test.jsonl")]
    assert match_calibrations(one, {"dev-run": cal}, "cal.json")["test.jsonl"].sensitivity == 0.8
    with pytest.raises(DataError, match="not among the readers given"):
        match_calibrations([ReaderJudgements("x"), ReaderJudgements("y")], {"dev-run": cal}, "cal.json")


@pytest.fixture
def labelled(tmp_path):
    """Train and dev splits of six generated topics, and a reader's dev answers (enough open options for an
    estimate): gold with a few labels flipped."""
    topics = [generated_topic(i, seed=20 + i, events=10, questions=30) for i in range(1, 7)]
    train = [r for rows, _ in topics for r in rows[:10]]
    dev = [r for rows, _ in topics for r in rows[10:]]
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
    assert calibrate.main(["--data", str(root), "--split", "dev", "--reader-scores", f"mine={reader}", "--out",
                           str(out),
                           "--folds", "3", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "| structure model alone |" in printed and "gold of the other folds' topics, scale 1.5" in printed
    (cal,) = load_calibrations(out).values()
    assert cal.reader == "mine" and not cal.fallback and cal.sensitivity > 0.5 and cal.method.startswith("gold answers")
    explain = tmp_path / "explain.jsonl"
    assert answer.main(["--data", str(root), "--split", "dev", "--reader-scores", str(reader), "--reader-calibration",
                        str(out), "--explain", str(explain), "--quiet"]) == 0
    record = json.loads(explain.read_text().splitlines()[0])
    judged = [r for option in record["options"].values() for r in option.get("readers", [])]
    assert judged and all(r["weight"] == cal.weight and "gold answers" in r["reliability"] for r in judged)


def test_answer_calibrates_without_gold_unless_a_weight_is_given(labelled, tmp_path):
    root, reader = labelled
    explain = tmp_path / "explain.jsonl"
    assert answer.main(["--data", str(root), "--split", "dev", "--reader-scores", str(reader), "--explain",
                        str(explain),
                        "--quiet"]) == 0
    judged = [r for line in explain.read_text().splitlines() for o in json.loads(line)["options"].values()
              for r in o.get("readers", [])]
    assert judged and all("no gold" in r["reliability"] and "open options" in r["reliability"] for r in judged)
    assert answer.main(["--data", str(root), "--split", "dev", "--topics", "1", "--reader-scores", str(reader),
                        "--explain", str(explain), "--quiet"]) == 0  # one topic: too few open options
    judged = [r for line in explain.read_text().splitlines() for o in json.loads(line)["options"].values()
              for r in o.get("readers", [])]
    assert judged and all(r["weight"] == FALLBACK_WEIGHT and "not estimated" in r["reliability"] for r in judged)
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
        answer.main(["--data", str(root), "--split", "dev", "--reader-calibration", str(bad), "--out",
                     str(tmp_path / "p.jsonl")])
    assert usage.value.code == 2 and "needs a reader" in capsys.readouterr().err


def test_the_library_weighs_readers_as_answer_does():
    import causalgraph as cg

    topics = cg.demo_topics()
    reader = ReaderJudgements("gold-ish", {(q.qid, label): Judgement(verdict=label in q.gold)
                                           for t in topics for q in t.questions for label in "ABCD"})
    calibrated = list(cg.Reasoner.load(readers=(reader,)).answer(topics))
    record = calibrated[0].explanation["options"]["A"]["readers"][0]
    assert "not estimated" in record["reliability"] and record["weight"] == FALLBACK_WEIGHT  # eight questions
    fixed = list(cg.Reasoner.load(readers=(reader,), reader_weight=40).answer(topics))
    assert fixed[0].explanation["options"]["A"]["readers"][0]["weight"] == 40
    cal = ReaderCalibration("any", "answers", "gold answers", 400, cause=2.0, other=-2.0, sensitivity=0.9,
                            specificity=0.9, scale=1.0)
    given = list(cg.Reasoner.load(readers=(reader,), reader_calibration={"any": cal}).answer(topics))
    assert given[0].explanation["options"]["A"]["readers"][0]["reliability"].startswith("sensitivity 0.90")
