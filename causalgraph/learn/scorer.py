"""The edge scorer: a scikit-learn estimator of P(E directly caused T) over named pair features."""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from ..data import DataError
from ..data.odds import logit
from ..analysis.table import FEATURE_GROUPS, FEATURES, SECOND, PairTable, second_frame, second_reading, table_blank
from ..evidence.features import GROUPS as EVIDENCE_GROUPS
from ..evidence.reading import READ_FEATURES
from ..graph.features import QUESTION_FEATURES, STRUCTURE_FEATURES
from ..reason.solve import SolverParams

BACKGROUND = 64  # candidate pairs at most that a group compared with the topic's candidates is taken from


def pair_frame(tables: list[PairTable]) -> pd.DataFrame:
    """The feature rows of several topics' candidate pairs, one named column per feature."""
    if not tables:
        return pd.DataFrame(columns=list(FEATURES), dtype=float)
    return pd.concat([t.frame() for t in tables], ignore_index=True)


class EdgeScorer(ClassifierMixin, BaseEstimator):
    """Gradient-boosted trees over the named pair `features` (a DataFrame's columns, so their order cannot drift;
    None: every column of X, of any array-like, as scikit-learn's `check_estimator` passes them). The structural
    features interact strongly, which a linear model cannot use. `bias` is the precision bias (log-odds x 100) that the
    solver subtracts from every selected label; `train` chooses it by grouped CV."""

    def __init__(self, features: tuple[str, ...] | None = QUESTION_FEATURES, max_iter: int = 150,
                 learning_rate: float = 0.05,
                 max_leaf_nodes: int = 8, bias: int = 0, random_state: int = 0):
        self.features = features
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.bias = bias
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # the trees send missing values down a learned branch
        return tags

    def _columns(self, X):
        """The feature columns of X: the named ones of a frame, or all of X where `features` is None."""
        if self.features is None:
            return X
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"EdgeScorer reads named features: X must be a DataFrame, got {type(X).__name__}")
        return X[list(self.features)]

    def fit(self, X: pd.DataFrame, y, sample_weight=None) -> EdgeScorer:
        """Fit on a frame of pair features (see `pair_frame`) and labels (0/1 or bool: cause or not)."""
        if y is None:
            raise ValueError("EdgeScorer requires y to be passed, but the target y is None")
        y = np.asarray(y)
        check_classification_targets(y)
        self.model_ = HistGradientBoostingClassifier(
            max_iter=self.max_iter, learning_rate=self.learning_rate, max_leaf_nodes=self.max_leaf_nodes,
            random_state=self.random_state,
        )
        X = self._columns(X)
        if isinstance(X, pd.DataFrame) and (unknown := X.columns[X.isna().all()]).size:
            # a feature never known in training (a group of documents none of the topics had) is constant to the
            # trees; scikit-learn cannot bin a column of NaN alone
            X = X.assign(**dict.fromkeys(unknown, 0.0))
        self.model_.fit(X, y.astype(int) if y.dtype == bool else y, sample_weight=sample_weight)
        self.classes_ = self.model_.classes_
        self.n_features_in_, self.n_iter_ = self.model_.n_features_in_, self.model_.n_iter_
        if hasattr(self.model_, "feature_names_in_"):
            self.feature_names_in_ = self.model_.feature_names_in_
        return self

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """(n, 2): P(not a cause), P(cause) per pair. One OpenMP thread: for a topic's few dozen pairs, two threads
        made predict 25 times slower on the 2-core machine, with the same probabilities."""
        check_is_fitted(self, "model_")
        if isinstance(X, pd.DataFrame) and len(X) == 0:
            return np.zeros((0, len(self.classes_)))
        with threadpool_limits(limits=1):
            return self.model_.predict_proba(self._columns(X))

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        check_is_fitted(self, "model_")
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def bias_for(self, questions: int) -> int:
        """The precision bias for a topic of this many questions: the scorer's one."""
        return self.bias


@dataclass(frozen=True)
class SizeBand:
    """How a topic of at most `questions` questions (None: any number) weighs the structure scorer's log-odds
    (`structure`, the evidence scorer's is 1 - structure), and the precision bias it is answered with."""

    questions: int | None
    structure: float
    bias: int


def mix(structure: np.ndarray, evidence: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """P(cause) from the two scorers' probabilities, their log-odds weighed `weight` and 1 - `weight`."""
    z = weight * logit(structure) + (1 - weight) * logit(evidence)
    return 1 / (1 + np.exp(-z))


@dataclass(frozen=True)
class SizeBlend:
    """Two edge scorers, one over the question structure, one over the documents' evidence (and the size
    counts), whose log-odds are mixed by the size of the topic: the structure carries large topics, the
    evidence small ones (docs/lab/scorer.md, "Topic size"). `bands` are in increasing size, the last for any size;
    `train` chooses each band's weight and precision bias by grouped CV. A topic without documents is scored by
    the structure scorer alone."""

    structure: EdgeScorer
    evidence: EdgeScorer
    bands: tuple[SizeBand, ...]

    @property
    def features(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*(self.structure.features or ()), *(self.evidence.features or ()))))

    def band(self, questions: int) -> SizeBand:
        return next(b for b in self.bands if b.questions is None or questions <= b.questions)

    def weights(self, X: pd.DataFrame) -> np.ndarray:
        """The structure scorer's weight for each row (its topic's band; 1 without documents)."""
        bands = np.array([self.band(int(n)).structure for n in X["topic_n_questions"]], dtype=float)
        return np.where(X["has_documents"].to_numpy() > 0, bands, 1.0)

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        if len(X) == 0:
            return np.zeros((0, 2))
        p = mix(self.structure.predict_proba(X)[:, 1], self.evidence.predict_proba(X)[:, 1], self.weights(X))
        return np.column_stack([1 - p, p])

    def bias_for(self, questions: int) -> int:
        return self.band(questions).bias


@dataclass(frozen=True)
class ReadingBlend:
    """Two edge scorers over the same features of the same pairs, `first` over the documents as the model's encoder
    reads them, `second` as `second_encoder` reads them (the table's second reading): the mean of their log-odds,
    times `sharpen` (a mean of two scorers is less extreme than either). The scorer of a user's own topics
    (learn/user.py): the two encoders err apart (docs/lab/user.md, "A second reading"). `bias`: its precision
    bias, chosen on held-out answers."""

    first: EdgeScorer
    second: EdgeScorer
    second_encoder: str
    sharpen: float
    bias: int

    @property
    def features(self) -> tuple[str, ...]:
        return tuple(self.first.features or ())

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        if len(X) == 0:
            return np.zeros((0, 2))
        names = list(self.second.features or ())
        if not {second_reading(f) for f in names} <= set(X.columns):
            raise ValueError("this scorer reads the documents twice: the table has no reading by "
                             f"{self.second_encoder}")
        second = self.second.predict_proba(second_frame(X, names))[:, 1]
        z = self.sharpen * (logit(self.first.predict_proba(X)[:, 1]) + logit(second)) / 2
        p = 1 / (1 + np.exp(-z))
        return np.column_stack([1 - p, p])

    def bias_for(self, questions: int) -> int:
        return self.bias


Scorer = EdgeScorer | SizeBlend | ReadingBlend


def second_encoder(scorer: Scorer) -> str | None:
    """The encoder of the scorer's second reading of the documents (ReadingBlend), or None."""
    return scorer.second_encoder if isinstance(scorer, ReadingBlend) else None


def reads_documents(scorer: Scorer) -> bool:
    """Whether the scorer uses any document feature; if not, answering need not read the documents."""
    return bool(set(scorer.features or ()) - set(STRUCTURE_FEATURES))


def reads_statements(scorer: Scorer) -> bool:
    """Whether the scorer uses the trained reader's statements (evidence/reading.py), which the analysis then reads."""
    return bool(set(scorer.features or ()) & set(READ_FEATURES))


def edge_scores(table: PairTable, scorer: Scorer) -> dict[tuple[int, int], float]:
    """P(cause) of every candidate edge of a topic."""
    return dict(zip(table.pairs, map(float, scorer.predict_proba(table.frame())[:, 1])))


def evidence_effects(table: PairTable, scorer: Scorer, scores: dict[tuple[int, int], float],
                     versus_candidates: tuple[str, ...] = ()) -> dict[tuple[int, int], dict[str, float]]:
    """For every candidate edge, how far each evidence group the scorer reads moves its log-odds: the log-odds
    (of its `scores`, `edge_scores` of the table) less those with the group's features blanked (as for a topic
    without documents). A group in `versus_candidates` is compared with the topic's candidates instead: the
    log-odds less their mean with the group's features taken in turn from each of up to BACKGROUND candidate
    pairs of the table (for a scorer that never saw the group blank, so that blanking would compare with a state
    it did not learn). An occlusion measure: it says which evidence the score rests on, not a decomposition."""
    X = table.frame()
    base = logit(np.array([scores[p] for p in table.pairs], dtype=float))
    blank = dict(zip(FEATURES, np.concatenate([np.zeros(len(STRUCTURE_FEATURES)), table_blank()])))
    effects: dict[tuple[int, int], dict[str, float]] = {p: {} for p in table.pairs}
    n = len(X)
    background = np.unique(np.linspace(0, n - 1, min(n, BACKGROUND)).round().astype(int))
    for group in EVIDENCE_GROUPS:
        names = [f for f in FEATURE_GROUPS[group] if f in set(scorer.features or ())]
        if not names or not n:
            continue
        names += [second_reading(f) for f in names if second_reading(f) in X]  # both readings at once
        if group in versus_candidates:
            rows = X.iloc[np.repeat(np.arange(n), len(background))].reset_index(drop=True)
            rows[names] = X[names].iloc[np.tile(background, n)].to_numpy()
            reference = logit(scorer.predict_proba(rows)[:, 1]).reshape(n, len(background)).mean(axis=1)
        else:
            reference = logit(scorer.predict_proba(X.assign(**{f: blank[f.removesuffix(SECOND)] for f in names}))[:, 1])
        for pair, d in zip(table.pairs, base - reference):
            effects[pair][group] = float(d)
    return effects


def dump_scorer(scorers: Mapping[str, Scorer], encoder: str) -> bytes:
    """Fitted scorers by construction-prior setting ("aer", "none"; see --priors), with the encoder name their
    similarity features were computed with, as joblib bytes."""
    buffer = io.BytesIO()
    joblib.dump({"scorers": scorers, "encoder": encoder, "features": FEATURES}, buffer)
    return buffer.getvalue()


def load_scorer(path: str | Path, priors: str = "aer") -> tuple[Scorer, str]:
    """Load (the scorer for the `priors` setting, encoder name); DataError naming the file when it is not a
    model file for these features, or holds no scorer for that setting."""
    return model_scorer(load_model(path), path, priors)


def model_scorer(saved: dict, path: str | Path, priors: str = "aer") -> tuple[Scorer, str]:
    """(the scorer for the `priors` setting, encoder name) of a model file's contents (`load_model`); DataError
    naming the file where it holds no scorer for that setting, or one for other features."""
    scorers = saved["scorers"]
    if priors not in scorers:
        raise DataError(path, None,
                        f"no scorer for --priors {priors} in this model (it has {', '.join(sorted(scorers))})")
    scorer = scorers[priors]
    if not scorer.features or not set(scorer.features) <= set(FEATURES):
        raise DataError(path, None, "made for other features; retrain with `python -m causalgraph.train`")
    return scorer, saved["encoder"]


def load_model(path: str | Path) -> dict:
    """A model file's contents, as `dump_scorer` wrote them ({"scorers", "encoder", "features"}); DataError
    naming the file when it holds no edge scorer."""
    try:
        saved = joblib.load(path)
    except FileNotFoundError:
        raise
    except Exception as err:
        raise DataError(path, None, f"not a causalgraph model file ({type(err).__name__}: {err})") from None
    scorers = saved.get("scorers") if isinstance(saved, dict) else None
    if not isinstance(scorers, dict) or not scorers or not all(isinstance(s, (EdgeScorer, SizeBlend, ReadingBlend))
                                                               for s in scorers.values()):
        raise DataError(path, None, "not a causalgraph model file (no edge scorer in it)")
    return saved


def with_scorer_bias(params: SolverParams, scorer: Scorer, questions: int) -> SolverParams:
    """`params`, with the scorer's CV-chosen precision bias for a topic of this many questions where `params`
    sets none."""
    return replace(params, bias=scorer.bias_for(questions)) if params.bias is None else params
