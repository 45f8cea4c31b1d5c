"""The feature table of a topic's candidate pairs: the question-structure features (graph/features.py), the
evidence feature groups (evidence/features.py), and some evidence compared with the question's other options."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np
import pandas as pd

from ..evidence.features import BLANK, EVIDENCE_FEATURES, GROUPS
from ..evidence.reading import READ_FEATURES
from ..evidence.statements import STATEMENT_FEATURES
from ..graph.features import QUESTION_FEATURES, SIZE_FEATURES, STRUCTURE_FEATURES, versus_other_options
from ..graph.topic import candidate_pairs

# Evidence features also compared with the other options of the same question (the pair's value less the best
# other option's), by group.
RELATIVE_EVIDENCE = {"documents": ("same_sentence", "nearby_sentences", "cue_forward", "cause_support"),
                     "dependency cues": ("dependency_cue_forward",), "statements": STATEMENT_FEATURES,
                     "read statements": READ_FEATURES}
RELATIVE_FEATURES = tuple(f"{n}_minus_best_other" for names in RELATIVE_EVIDENCE.values() for n in names)
FEATURES = STRUCTURE_FEATURES + EVIDENCE_FEATURES + RELATIVE_FEATURES
# Every feature by group: the question structure, the size counts, then the evidence groups.
FEATURE_GROUPS: dict[str, tuple[str, ...]] = {
    "question": QUESTION_FEATURES, "size": SIZE_FEATURES,
    **{g: names + tuple(f"{n}_minus_best_other" for n in RELATIVE_EVIDENCE.get(g, ())) for g, names in GROUPS.items()},
}


def table_blank() -> np.ndarray:
    """The evidence part of a table row of a pair without documents (evidence.features.BLANK, margins 0)."""
    return np.concatenate([BLANK, np.zeros(len(RELATIVE_FEATURES))])


SECOND = "@2"  # the suffix of a feature's column as the second reading of the documents gives it


def second_reading(name: str) -> str:
    """The column of a feature in the second reading (another encoder's) of the same pairs."""
    return name + SECOND


def second_frame(frame: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """The second reading's columns of a table's frame for the features `names`, under the features' own names
    (the input of a scorer fitted on that reading)."""
    return frame[[second_reading(n) for n in names]].set_axis(names, axis=1)


@dataclass(frozen=True)
class PairTable:
    """Feature rows for a topic's candidate pairs, in the order of `pairs`; `second`, where the documents were
    also read with a second encoder, the same features from that reading."""

    pairs: list[tuple[int, int]]
    structure: np.ndarray  # (n_pairs, len(STRUCTURE_FEATURES))
    evidence: np.ndarray  # (n_pairs, len(FEATURES) - len(STRUCTURE_FEATURES)); see evidence.features.BLANK
    second: np.ndarray | None = None  # (n_pairs, len(FEATURES))

    def frame(self) -> pd.DataFrame:
        """The rows with one named column per feature (FEATURES), the input of the edge scorer, and one per
        feature of the second reading (`second_reading`) where there is one."""
        rows = np.hstack([self.structure, self.evidence]).reshape(len(self.pairs), len(FEATURES))
        frame = pd.DataFrame(rows, columns=list(FEATURES))
        if self.second is not None:
            frame = pd.concat([frame, pd.DataFrame(self.second.reshape(len(self.pairs), len(FEATURES)),
                                                   columns=[second_reading(f) for f in FEATURES])], axis=1)
        return frame

    def with_second(self, other: "PairTable") -> "PairTable":
        """This table with `other`'s rows (the same pairs, read with another encoder) as its second reading."""
        if other.pairs != self.pairs:
            raise ValueError("a second reading must hold the same pairs in the same order")
        return PairTable(self.pairs, self.structure, self.evidence, np.hstack([other.structure, other.evidence]))


def pair_table(graph: nx.DiGraph, structure: np.ndarray, evidence: np.ndarray | None = None) -> PairTable:
    """The table of the graph's candidate pairs from their structure and EVIDENCE_FEATURES rows (in
    `candidate_pairs` order; None: no evidence, evidence.features.BLANK), with the relative evidence features
    added."""
    pairs = candidate_pairs(graph)
    if evidence is None:
        evidence = np.tile(BLANK, (len(pairs), 1))
    margins = []
    for name in (n for names in RELATIVE_EVIDENCE.values() for n in names):
        column = evidence[:, EVIDENCE_FEATURES.index(name)]
        margin, _ = versus_other_options(graph, dict(zip(pairs, column)))
        margins.append([margin[p] for p in pairs])
    relative = np.asarray(margins, dtype=np.float64).T.reshape(len(pairs), len(RELATIVE_FEATURES))
    return PairTable(pairs, structure, np.hstack([evidence, relative]))
