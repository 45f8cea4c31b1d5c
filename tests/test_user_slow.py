"""Checks on the shared user-style topics (../shared/user-dev); slow, run with `pytest -m slow`."""

import json
from pathlib import Path

import pytest

from causalgraph.cli import answer

pytestmark = pytest.mark.slow

USER_DEV = Path(__file__).resolve().parents[2] / "shared" / "user-dev"


@pytest.fixture(scope="module")
def explained(tmp_path_factory) -> list[dict]:
    """Every user-dev question answered as a user answers a folder of topics (priors none), with its whys."""
    if not USER_DEV.is_dir():
        pytest.skip(f"{USER_DEV} is not here: the user-style topics sit beside the repository, never inside it")
    out = tmp_path_factory.mktemp("user-dev")
    assert answer.main(["--data", str(USER_DEV), "--out", str(out / "p.jsonl"), "--explain", str(out / "why.jsonl"),
                        "--quiet", "--no-cache"]) == 0
    return [json.loads(line) for line in (out / "why.jsonl").read_text().splitlines()]


def test_a_distractor_from_another_topic_is_never_raised_by_the_documents(explained):
    """An event of another topic (that topic's target, or offered there more often than here) is not told in
    this topic's documents: what the documents and their statements contribute to it is never positive (the
    issue "Read a user's own topic")."""
    targets, offered = {}, {}
    for row in explained:
        targets.setdefault(row["target"], row["topic_id"])
        for text in (row["target"], *(o["text"] for o in row["options"].values())):
            counts = offered.setdefault(text, {})
            counts[row["topic_id"]] = counts.get(row["topic_id"], 0) + 1

    def foreign(text: str, topic: int) -> bool:
        counts = sorted(offered[text].values(), reverse=True)
        home = max(offered[text], key=offered[text].get) if len(counts) == 1 or counts[0] > counts[1] else None
        return targets.get(text, topic) != topic or home not in (None, topic)

    checked = 0
    for row in explained:
        for option in row["options"].values():
            if "event" in option and foreign(option["text"], row["topic_id"]):  # the None option is no event
                checked += 1
                read = [e["log_odds"] for e in option.get("evidence", []) if e["group"] in ("documents", "statements")]
                assert all(v <= 0 for v in read), (row["id"], option["text"], read)
    assert checked >= 5
