"""The checks that the commands' options and the library's arguments share: each says what is wrong with a value
(None when nothing is), and `checked_arguments` raises it as the library does, naming the argument. The rule
groups' check, which the solver makes too, lives with the groups (reason.groups.checked_groups)."""

from __future__ import annotations

from collections.abc import Iterable

from ..data import LABELS, Question, Topic
from ..reason.groups import MAX_CONSTANT, PRIORS

MAX_WORKERS = 1_000_000  # processes, as --workers takes (every positive option is at most 1e6)
MAX_TIME_LIMIT = 1e6  # seconds of solving per topic that --time-limit takes (as every positive option)
AUTO = "auto"  # the priors setting that the answered topics were built for (priors_for)


def weight_problem(value: int) -> str | None:
    """What is wrong with a weight of log-odds x 100: outside what clingo's 32-bit weights hold."""
    if abs(value) > MAX_CONSTANT:
        return f"must be within +-{MAX_CONSTANT:,} (clingo's weights are 32-bit), got {value}"
    return None


def reader_weight_problem(value: int) -> str | None:
    """What is wrong with a reader weight (percent): a weight's bounds, and below 0 (it would read every judgement
    backwards)."""
    if value < 0:
        return f"must be 0 or more (a negative weight reads every judgement backwards), got {value}"
    return weight_problem(value)


def _integer(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    return value


def checked_priors(priors: object, auto: bool = False) -> str:
    """A priors setting: one of reason.groups.PRIORS, or also AUTO (`auto`); ValueError naming those."""
    if priors in PRIORS or (auto and priors == AUTO):
        return str(priors)
    choices = ", ".join(map(repr, PRIORS))
    raise ValueError(f"priors must be {f'{AUTO!r} or ' if auto else ''}one of {choices}, got {priors!r}")


def checked_time_limit(limit: object) -> float | None:
    """`time_limit` (--time-limit): None, or seconds of solving per topic above 0 and at most MAX_TIME_LIMIT."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, float))
                              or not 0 < limit <= MAX_TIME_LIMIT):
        raise ValueError(f"time-limit must be a number of seconds above 0 and at most {MAX_TIME_LIMIT:g}, got "
                         f"{limit!r}")
    return limit


def checked_reader_weight(value: object) -> int | None:
    """`reader_weight` of the library (None: calibrated), checked as --reader-weight is."""
    if value is None:
        return None
    if problem := reader_weight_problem(_integer("reader_weight", value)):
        raise ValueError(f"reader_weight {problem}")
    return _integer("reader_weight", value)


def checked_workers(value: object) -> int:
    """`workers` of the library, checked as --workers is: a whole number of processes from 1 to MAX_WORKERS."""
    workers = _integer("workers", value)
    if not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be from 1 to {MAX_WORKERS:,}, got {workers}")
    return workers


def checked_topics(topics: object) -> list[Topic]:
    """`topics` of the library as a list: an iterable of Topic objects (load_topics, demo_topics), no topic id
    twice, each question a Question with four option texts."""
    if isinstance(topics, (Topic, str, bytes, dict)) or not isinstance(topics, Iterable):
        raise TypeError(f"topics must be an iterable of Topic objects (load_topics, demo_topics), got "
                        f"{type(topics).__name__}")
    found = list(topics)
    topic_ids: set[int] = set()
    for topic in found:
        if not isinstance(topic, Topic):
            raise TypeError(f"topics must hold Topic objects (load_topics, demo_topics), got {type(topic).__name__}")
        if topic.topic_id in topic_ids:
            raise ValueError(f"topics holds topic {topic.topic_id} twice")
        topic_ids.add(topic.topic_id)
        for question in topic.questions:
            where = f"topics: topic {topic.topic_id}"
            if not isinstance(question, Question):
                raise TypeError(f"{where} holds a {type(question).__name__}, not a Question")
            if len(question.options) != len(LABELS) or not all(isinstance(t, str)
                                                               for t in (question.target, *question.options)):
                raise ValueError(f"{where}, question {question.qid!r}: a target text and {len(LABELS)} option texts "
                                 f"are needed, got {len(question.options)} options")
    return found


def checked_topic_ids(ids: object) -> list[int] | None:
    """`topics` of load_topics: None (all of them), or an iterable of whole topic ids."""
    if ids is None:
        return None
    if isinstance(ids, (int, str, bytes)) or not isinstance(ids, Iterable):
        raise TypeError(f"topics must be an iterable of topic ids such as [1, 3], got {type(ids).__name__} {ids!r}")
    found = [_integer("each of topics", i) for i in ids]
    if any(i < 0 for i in found):
        raise ValueError(f"topics holds {min(found)}; a topic id is 0 or more")
    return found


def checked_document_chars(value: object) -> int:
    """`max_document_chars` of the library, checked as --max-document-chars is: 1 or more."""
    chars = _integer("max_document_chars", value)
    if chars < 1:
        raise ValueError(f"max_document_chars must be 1 or more, got {chars}")
    return chars


def priors_for(topics: Iterable[Topic]) -> str:
    """The priors setting that the topics were built for: "aer" for topics of AER data, "none" for a user's own
    (Topic.aer); ValueError for a mix of the two, whose answers would need both."""
    kinds = {topic.aer for topic in topics}
    if len(kinds) > 1:
        raise ValueError("topics of AER data and your own topics together: the benchmark's construction priors hold "
                         "for the first only; answer them apart, or choose priors='aer' or 'none'")
    return "aer" if kinds == {True} else "none"
