"""The three kinds of error a command reports: the user's input, the environment, and a bug (said to be one)."""

import pytest

from causalgraph.cli import answer
from causalgraph.cli.common import BUG_EXIT, run_command
from causalgraph.config import DEFAULT_MODEL
from causalgraph.learn.scorer import dump_scorer, load_scorer


class FaultyScorer(load_scorer(DEFAULT_MODEL)[0].__class__):  # type: ignore[misc]
    """The shipped scorer with a fault in it: scoring raises ValueError, as a bug in the code would."""

    def predict_proba(self, X):
        raise ValueError("a fault put into the scorer")


@pytest.fixture(scope="module")
def faulty_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "faulty.joblib"
    scorers = {}
    for priors in ("aer", "none"):
        shipped, encoder = load_scorer(DEFAULT_MODEL, priors)
        scorers[priors] = FaultyScorer.__new__(FaultyScorer)
        scorers[priors].__dict__.update(shipped.__dict__)
    path.write_bytes(dump_scorer(scorers, encoder))
    return path


def test_a_value_error_in_a_worker_is_a_bug_not_bad_input(faulty_model, tmp_path, capsys):
    out = tmp_path / "p.jsonl"
    argv = ["--demo", "--model", str(faulty_model), "--workers", "2", "--no-cache", "--quiet", "--out", str(out)]
    assert run_command(answer.main, argv) == BUG_EXIT != 2 and not out.exists()
    err = capsys.readouterr().err
    assert "error: topic 1: a bug in causalgraph (ValueError: a fault put into the scorer); please report it" in err
    assert "Traceback" not in err
    assert run_command(answer.main, [*argv, "--debug"]) == BUG_EXIT  # the worker's traceback, then the line
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "in predict_proba" in err
    assert err.index("Traceback") < err.index("error: topic 1: a bug in causalgraph (ValueError")


def test_a_bug_outside_the_workers_says_so_too(monkeypatch, capsys):
    def broken(argv):
        raise KeyError("a fault in the command")

    assert run_command(broken, ["--debug"]) == BUG_EXIT
    err = capsys.readouterr().err
    assert "Traceback" in err and err.rstrip().splitlines()[-1] == (
        "error: a bug in causalgraph (KeyError: 'a fault in the command'); please report it with the traceback that "
        "--debug prints")


def test_the_environment_is_one_line_naming_the_resource(capsys):
    def full(argv):
        raise OSError(28, "No space left on device", "/data/out/p.jsonl")

    assert run_command(full, []) == 2
    assert capsys.readouterr().err == "error: /data/out/p.jsonl: No space left on device\n"
