"""What a run tells the user about the topics it answers: those with little to go on, and what would help."""

from __future__ import annotations

from ..data import Topic
from ..data.load import MOST_RUNS

# From the size curve (docs/lab/scorer.md, "Topic size"): below this many questions a topic's own structure
# carries little, and a reader is what can add.
THIN_QUESTIONS = 10
# What a user can bring on any machine, offline included: no reader weights ship, and a hub name is no help
# where the hub cannot be reached.
HELPFUL_READERS = "--reader-scores FILE (another system's answers) or --llm-url URL (your endpoint)"


def thin_topics(topics: list[Topic], readers: bool, documents: bool = True) -> tuple[list[int], str | None]:
    """The ids of the answered topics with little to go on (fewer than THIN_QUESTIONS questions and no reader),
    and a one-line message naming them and what would help: their documents, where the scorer reads documents
    (`documents`) and a thin topic has none, and a reader the user brings; ([], None) when there are none."""
    if readers:
        return [], None
    thin = [t for t in topics if len(t.questions) < THIN_QUESTIONS]
    if not thin:
        return [], None
    ids = [t.topic_id for t in thin]
    name = lambda ts: (f"topic{'s' if len(ts) > 1 else ''} {', '.join(map(str, ts[:MOST_RUNS]))}"
                       + (f" and {len(ts) - MOST_RUNS:,} more" if len(ts) > MOST_RUNS else ""))
    bare = [t.topic_id for t in thin if not t.documents]
    whose = (f"{'their' if len(bare) > 1 else 'its'} documents" if bare == ids else f"the documents of {name(bare)}")
    helps = (f"{whose} (docs.json, or a topic file's `documents`), or a reader: " if documents and bare
             else "a reader: ")
    return ids, (f"{name(ids)}: fewer than {THIN_QUESTIONS} questions and no reader; what would help: "
                 f"{helps}{HELPFUL_READERS}")
