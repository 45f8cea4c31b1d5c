"""The commands read their options, and refuse bad input, before loading the solver and the models: `--help` and
an input error come back without importing scikit-learn, clingo, spaCy or torch (seconds at every start)."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("sklearn", "clingo", "spacy", "torch", "transformers", "pandas")
PROBE = """
import sys
from {module} import main
try:
    code = main({argv!r})
except SystemExit as exit:
    code = exit.code
print(code, *sorted(m for m in {heavy!r} if m in sys.modules))
"""


def loaded_after(command: str, argv: list[str]) -> tuple[str, list[str]]:
    """The exit code of the command on `argv` in a fresh interpreter, and which heavy modules it had imported. A
    command of the package by its name, one of the lab by its module (lab.scorer.sizes)."""
    module = command if command.startswith("lab.") else f"causalgraph.cli.{command}"
    probe = PROBE.format(module=module, argv=argv, heavy=HEAVY)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO).stdout
    code, *modules = out.split("\n")[-2].split()
    return code, modules


@pytest.mark.parametrize("command", ["answer", "read", "visualize", "evaluate", "train", "ablation", "calibrate",
                                     "lab.scorer.sizes", "lab.solver.timeline", "lab.scorer.nli",
                                     "lab.scorer.encoders"])
def test_help_loads_no_model_or_solver(command):
    assert loaded_after(command, ["--help"]) == ("0", [])


@pytest.mark.parametrize("command", ["answer", "visualize"])
def test_a_missing_data_folder_is_refused_before_loading_models(command, tmp_path):
    code, modules = loaded_after(command, ["--data", str(tmp_path / "nowhere")])
    assert (code, modules) == ("2", [])


def test_answering_a_topic_does_not_import_transformers(tmp_path):
    """The shipped encoders are run by text/transformer.py: a cold answer does not pay for importing transformers
    or sentence-transformers (2.5 s and 150 MB)."""
    probe = PROBE.format(module="causalgraph.cli.answer", argv=["--demo", "--cache-dir", str(tmp_path)],
                         heavy=("transformers", "sentence_transformers", "causalgraph.text.transformer"))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[-2].split() == ["0", "causalgraph.text.transformer"]  # the encoders ran, without them


def test_a_warm_answer_loads_no_torch(tmp_path):
    """With the topic's analysis cached, answering reads no document: neither the encoders nor the reader of
    statements (causalgraph.read), nor torch, are loaded."""
    argv = ["--demo", "--cache-dir", str(tmp_path), "--quiet"]
    probe = PROBE.format(module="causalgraph.cli.answer", argv=argv, heavy=("torch", "causalgraph.read.reader"))
    subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[-2].split() == ["0"]
