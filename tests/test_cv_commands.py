"""train, ablation and the lab's encoders end to end on a small generated data set (real spaCy, MiniLM, clingo); the
data folder is conftest's `labelled` fixture."""

from causalgraph.cli import ablation, train
from causalgraph.learn.bands import BAND_LIMITS, BIASES, NONE_STRUCTURE, WEIGHTS
from causalgraph.learn.scorer import load_scorer, reads_documents
from lab.scorer import encoders


def test_train_writes_a_scorer_and_its_model_card(labelled, tmp_path, capsys):
    out = tmp_path / "scorer.joblib"
    assert train.main(["--data", labelled, "--folds", "3", "--out", str(out), "--quiet"]) == 0
    scorer, encoder = load_scorer(out)
    assert encoder == "all-MiniLM-L6-v2" and all(b.bias in BIASES and b.structure in WEIGHTS for b in scorer.bands)
    assert [b.questions for b in scorer.bands] == list(BAND_LIMITS) and reads_documents(scorer)
    plain = load_scorer(out, "none")[0]  # --priors none: no None-structure feature
    assert not set(NONE_STRUCTURE) & set(plain.features) and set(NONE_STRUCTURE) <= set(scorer.features)
    card = out.with_suffix(".md").read_text()
    assert "whole held-out topics: AER score" in card and "cut into topics of 1 question: AER score" in card
    assert "--priors aer: nested grouped CV" in card and "--priors none: nested grouped CV" in card
    assert "--folds 3 --resize-to test" in card and "6 topics" in card and "(4-4 questions" in card
    assert "documents\n  for topics 1-6" in card  # read from the data, not a fixed range
    environment = next(line for line in card.splitlines() if line.startswith("- Environment: Python "))
    assert "scikit-learn " in environment and "spacy " in environment and "not installed" not in environment


def test_ablation_prints_both_regimes(labelled, capsys):
    assert ablation.main(["--data", labelled, "--folds", "3", "--bias", "50"]) == 0
    captured = capsys.readouterr()
    printed = captured.out
    assert printed.count("| full program |") == 2 and "| without consistency |" in printed
    err = captured.err  # progress on stderr, at every step:
    assert "analysing" in err and "loading spaCy and all-MiniLM-L6-v2" in err  # the models load (cold cache)
    assert "cutting each topic into copies of the test split's topic shapes and of every size: done in" in err
    assert err.count("training the scorers of 3 folds") >= 2 and err.count("solving: without consistency") >= 2


def test_encoders_prints_one_row_per_encoder(labelled, capsys):
    assert encoders.main(["--data", labelled, "--folds", "3", "--encoders", "all-MiniLM-L6-v2", "--resize-to",
                          "none"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| all-MiniLM-L6-v2 |")]
    assert len(rows) == 1 and rows[0].count("|") == 6
