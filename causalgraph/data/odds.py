"""Probabilities as log-odds, the one conversion that the scorer, the readers and their calibration share."""

from __future__ import annotations

import math
from typing import overload

import numpy as np


@overload
def logit(p: float, eps: float = 1e-6) -> float: ...
@overload
def logit(p: np.ndarray, eps: float = 1e-6) -> np.ndarray: ...
def logit(p, eps=1e-6):
    """log(p / (1 - p)) of a probability, or elementwise of an array of them, each first held within
    [eps, 1 - eps] so that a certain 0 or 1 stays finite."""
    if isinstance(p, np.ndarray):
        p = np.clip(p, eps, 1 - eps)
        return np.log(p / (1 - p))
    p = min(max(p, eps), 1 - eps)
    return math.log(p / (1 - p))
