"""Readers calibrated against the topics being answered: what the structure model and the rules say of each
option, which is all that gold-free calibration (readers/calibration.py) needs."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from ..analysis.analyse import TopicAnalysis
from ..data import DataError
from ..data.load import read_text
from ..readers.base import ReaderJudgements
from ..readers.calibration import (MIN_OPEN, SCALE, Key, ReaderCalibration, UserTrust, answer_log_odds,
                                   estimate_user_trust, estimate_without_gold)
from ..reason.settled import settled_options
from ..reason.solve import SolverParams

log = logging.getLogger(__name__)

PRIOR_CLIP = 0.01  # structure probabilities are held within [0.01, 0.99] as priors


def option_evidence(analyses: Iterable[TopicAnalysis], edges: Iterable[Mapping[tuple[int, int], float]],
                    without: frozenset[str] = frozenset(), params: SolverParams = SolverParams()
                    ) -> tuple[dict[Key, float], dict[Key, bool]]:
    """For every real option of the analysed topics: the structure model's probability that it directly caused
    its target (the prior), and the options the rules settle whatever the evidence says, with their label
    (reason/settled.py: the real options of a question that offers None, a repeated option, a pair rejected
    where None is the answer, ...) under the rules the topics are answered with (`without`, `params`)."""
    prior: dict[Key, float] = {}
    settled: dict[Key, bool] = {}
    for analysis, scores in zip(analyses, edges):
        for qid, slots in analysis.graph.graph["questions"].items():
            for label, event in slots.options.items():
                p = scores.get((event, slots.target), PRIOR_CLIP)
                prior[(qid, label)] = min(max(p, PRIOR_CLIP), 1 - PRIOR_CLIP)
        settled.update(settled_options(analysis.graph, analysis.after, analysis.timeline, without, params))
    return prior, settled


def calibrate_readers(readers: Sequence[ReaderJudgements], analyses: Sequence[TopicAnalysis],
                      edges: Sequence[Mapping[tuple[int, int], float]], weight: int | None = None,
                      calibrations: Mapping[str, ReaderCalibration] | None = None,
                      scale: float = SCALE, min_open: int = MIN_OPEN,
                      evidence: tuple[dict[Key, float], dict[Key, bool]] | None = None,
                      without: frozenset[str] = frozenset(), params: SolverParams = SolverParams(),
                      regime: str = "aer", trust: UserTrust = UserTrust()) -> tuple[ReaderJudgements, ...]:
    """The readers as fusion weighs them. An explicit `weight` (percent) overrides everything: each reader's raw
    log-odds at that weight. Otherwise a reader named in `calibrations` (from gold, see `calibrate`) keeps its
    parameters, and the others are estimated without gold on the open options of these topics, all readers
    together (a reader judged on fewer than `min_open` of them gets the fallback weight), or, in the `regime`
    "none" (a user's own topics, priors "none"), each by how often its whole answers are right, estimated against
    the structure model and the rules (`trust`, readers/calibration.py: UserTrust); the rules that settle options
    are those the topics are answered with (`without`, `params`). `evidence`: these topics' `option_evidence`,
    where it is at hand."""
    if not readers:
        return ()
    if weight is not None:
        return tuple(ReaderJudgements(r.reader, r.judgements, weight) for r in readers)
    prior, settled = evidence or option_evidence(analyses, edges, without, params)
    made_on = {"aer": "the benchmark's topics", "none": "a user's own topics"}
    for cal in (calibrations or {}).values():
        if cal.regime != regime:
            log.warning("reader %s: its calibration was made on %s (regime %r); these are answered under priors %r",
                        cal.reader, made_on[cal.regime], cal.regime, regime)
    if regime == "none":  # a user's own topics: each reader by how often its answers are right (UserTrust)
        fitted = tuple((calibrations or {}).get(r.reader) or estimate_user_trust(r, prior, settled, trust)
                       for r in readers)
    else:
        fitted = estimate_without_gold(readers, prior, settled, scale, calibrations, min_open)
    for cal in fitted:
        log.info("reader %s: %s", cal.reader, cal.reliability())
    return tuple(answer_log_odds(cal, r, prior, settled, trust) if cal.answers_right is not None else cal.apply(r)
                 for cal, r in zip(fitted, readers))


def write_calibrations(calibrations: Iterable[ReaderCalibration], extra: dict | None = None) -> str:
    """The text of a calibration file: {"readers": [record, ...], ...extra}."""
    return json.dumps({"readers": [c.as_record() for c in calibrations], **(extra or {})}, indent=1) + "\n"


def load_calibrations(path: str | os.PathLike) -> dict[str, ReaderCalibration]:
    """The calibrations of a file written by `calibrate`, by reader name; DataError naming the file (and the
    entry) when it is not one."""
    path = Path(path)
    text = read_text(path)  # DataError naming a device, a pipe that never ends or bytes that are not UTF-8
    try:
        data = json.loads(text)
    except RecursionError:
        raise DataError(path, None, "JSON nested too deeply") from None
    except json.JSONDecodeError as err:
        raise DataError(path, f"line {err.lineno}", f"not JSON ({err.msg})") from None
    except ValueError as err:  # a number of more digits than int() reads
        raise DataError(path, None, f"not JSON ({err})") from None
    if not isinstance(data, dict) or not isinstance(data.get("readers"), list):
        raise DataError(path, None, 'expected {"readers": [...]} as written by `causalgraph calibrate`')
    out: dict[str, ReaderCalibration] = {}
    for i, record in enumerate(data["readers"]):
        cal = ReaderCalibration.from_record(record, path, f"readers[{i}]")
        if cal.reader in out:
            raise DataError(path, f"readers[{i}]", f"a second calibration of reader {cal.reader!r}")
        out[cal.reader] = cal
    if not out:
        raise DataError(path, None, "no reader calibrated")
    return out


def match_calibrations(readers: Sequence[ReaderJudgements], calibrations: Mapping[str, ReaderCalibration],
                       path: str | os.PathLike) -> dict[str, ReaderCalibration]:
    """The calibrations by the name of the reader they apply to: by name, or the file's only calibration when a
    single reader is given. DataError naming the file when a calibration matches no reader."""
    if len(calibrations) == 1 and len(readers) == 1:
        (cal,) = calibrations.values()
        return {readers[0].reader: replace(cal, reader=readers[0].reader)}
    names = {r.reader for r in readers}
    unmatched = sorted(set(calibrations) - names)
    if unmatched:
        raise DataError(path, None, f"calibrates reader {unmatched[0]!r}, which is not among the readers given "
                                    f"({', '.join(sorted(names)) or 'none'}); name it with --reader-scores NAME=FILE")
    return dict(calibrations)
