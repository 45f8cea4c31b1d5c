"""Gold-free calibration against a real reader's dev answers (../shared/aer/readers-dev); slow, run with
`pytest -m slow`."""

import pytest

from causalgraph.data import load_split
from causalgraph.experiments.calibration import answer_analyses, answered_sets, gold_of
from causalgraph.experiments.inputs import cv_inputs
from causalgraph.learn.calibration import calibrate_readers
from causalgraph.learn.crossval import fold_scorers, held_out_edges
from causalgraph.readers.calibration import fit_with_gold
from causalgraph.readers.scores import load_reader_scores

pytestmark = pytest.mark.slow


def test_em_without_gold_finds_a_real_readers_reliability(aer):
    """GPT-4o zero-shot on dev: BENCHMARKS.md measured sensitivity 0.78 and specificity 0.89 from gold, and the
    same to 0.01 without it on whole held-out topics; the bound leaves 0.05."""
    topics, _ = cv_inputs(aer, 5, None)
    analyses = answer_analyses(topics, progress=False)
    scored, edges = held_out_edges(analyses, fold_scorers(analyses, 5))
    dev = {q.qid: q for t in load_split(aer, "dev") for q in t.questions}
    reader = load_reader_scores(aer / "readers-dev" / "gpt4o_zero_shot_no_docs.jsonl", dev)
    (free,) = calibrate_readers([reader], scored, edges)
    gold = fit_with_gold(reader, gold_of(answered_sets(scored, edges)))
    assert abs(free.calibration.sensitivity - gold.sensitivity) < 0.05
    assert abs(free.calibration.specificity - gold.specificity) < 0.05
