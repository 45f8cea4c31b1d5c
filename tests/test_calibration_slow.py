"""Gold-free calibration against a real reader's dev answers (../shared/aer/readers-dev) on the dev-only topics;
slow, run with `pytest -m slow`."""

import pytest

from causalgraph.data import load_split
from causalgraph.measure.calibration import answer_analyses, gold_of, judged_topics, structure_edges
from causalgraph.measure.inputs import cv_inputs
from causalgraph.readers.trust import TrustSettings
from causalgraph.readers.trust.options import estimate_without_gold, fit_with_gold
from causalgraph.readers.scores import load_reader_scores
from causalgraph.run.pipeline import option_evidence

pytestmark = pytest.mark.slow


def test_em_without_gold_finds_a_real_readers_reliability_on_the_open_options(aer):
    """GPT-4o zero-shot on the open options of the dev-only topics, with the shipped kind of structure model:
    BENCHMARKS.md measured sensitivity 0.82 and specificity 0.91 from gold, 0.92 and 0.95 without it, and 0.98
    and 0.98 from the EM that takes the reader to err apart from the structure model. The bounds: the estimate
    stays within 0.12 and 0.06 of gold, and the dependence takes at least 0.03 of the over-trust away."""
    topics, _ = cv_inputs(aer, 5, None, evidence=True)
    analyses = answer_analyses(topics, progress=False)
    dev = {q.qid: q for t in load_split(aer, "dev") for q in t.questions}
    pieces = judged_topics(analyses, set(dev))
    edges = structure_edges(analyses, pieces, 5)
    prior, settled = option_evidence(pieces, edges)
    reader = load_reader_scores(aer / "readers-dev" / "gpt4o_zero_shot_no_docs.jsonl", dev)
    (free,) = estimate_without_gold([reader], prior, settled)
    gold = fit_with_gold(reader, gold_of([(pieces, edges)]), prior, settled)
    assert abs(free.sensitivity - gold.sensitivity) < 0.12 and abs(free.specificity - gold.specificity) < 0.06
    (independent,) = estimate_without_gold([reader], prior, settled, TrustSettings(dependence=0.0))
    assert independent.sensitivity > free.sensitivity + 0.03
