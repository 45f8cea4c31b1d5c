"""causalgraph: a neuro-symbolic causal graph reasoner for abductive event reasoning (SemEval-2026 Task 12).

    import causalgraph as cg
    reasoner = cg.Reasoner.load()            # the shipped edge scorer and rules; readers as arguments
    for answer in reasoner.answer(cg.demo_topics()):
        print(answer.qid, answer.labels, answer.explanation)
    reading = cg.read("Two Maoists were killed when police returned fire.")  # the trained reader of statements

The names below are imported on first use, so that `import causalgraph` (and every command) starts fast.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_EXPORTS = {
    "Reasoner": "api", "load_topics": "api", "demo_topics": "api", "Answer": "run.batch",
    "SolverParams": "reason.solve", "ReaderJudgements": "readers.base", "Judgement": "readers.base",
    "Topic": "data", "Question": "data", "DataError": "data", "question_score": "data",
}
__all__ = ["Answer", "DataError", "Judgement", "Question", "ReaderJudgements", "Reasoner", "SolverParams", "Topic",
           "demo_topics", "load_topics", "question_score", "read"]


def __getattr__(name: str):
    if name == "read":  # the subpackage, callable as its function read(text, pairs)
        return importlib.import_module(".read", __name__)
    if name not in _EXPORTS:
        raise AttributeError(f"module 'causalgraph' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
