"""train, ablation and encoders end to end on a small generated data set (real spaCy, MiniLM, clingo)."""

import pytest

from causalgraph.cli import ablation, encoders, train
from causalgraph.learn.crossval import BIAS_GRID
from causalgraph.learn.scorer import load_scorer

from .conftest import generated_topic, write_data


@pytest.fixture
def labelled(tmp_path):
    topics = [generated_topic(i, seed=10 + i, events=8, questions=10) for i in range(1, 7)]
    root = write_data(tmp_path / "aer", "train", [r for rows, _ in topics for r in rows], [d for _, d in topics])
    unlabelled = [generated_topic(i, seed=i, questions=4)[0] for i in (40, 41)]
    for row in (r for rows in unlabelled for r in rows):
        del row["golden_answer"]
    write_data(root, "test", [r for rows in unlabelled for r in rows], [])
    return str(root)


def test_train_writes_a_scorer_and_its_model_card(labelled, tmp_path, capsys):
    out = tmp_path / "scorer.joblib"
    assert train.main(["--data", labelled, "--folds", "3", "--out", str(out)]) == 0
    scorer, encoder = load_scorer(out)
    assert encoder == "all-MiniLM-L6-v2" and scorer.bias in BIAS_GRID
    card = out.with_suffix(".md").read_text()
    assert "whole held-out topics: AER score" in card and "the split's topics: 4-4 questions" in card
    assert "--folds 3 --resize-to test" in card and "6 topics" in card
    assert "in topics with documents (1-6)" in card  # read from the data, not a fixed range


def test_ablation_prints_both_regimes(labelled, capsys):
    assert ablation.main(["--data", labelled, "--folds", "3", "--bias", "50"]) == 0
    captured = capsys.readouterr()
    printed = captured.out
    assert printed.count("| full program |") == 2 and "| without consistency |" in printed
    assert "analysing" in captured.err and captured.err.count("programs") >= 2  # progress bars on stderr


def test_encoders_prints_one_row_per_encoder(labelled, capsys):
    assert encoders.main(["--data", labelled, "--folds", "3", "--encoders", "all-MiniLM-L6-v2", "--resize-to", "none"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| all-MiniLM-L6-v2 |")]
    assert len(rows) == 1 and rows[0].count("|") == 6
