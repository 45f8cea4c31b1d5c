"""The notebooks run top to bottom without an error (NotebookClient raises on a failing cell), as
`pytest --nbmake notebooks/` runs them."""

import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="the notebook runner is in the test extra: pip install -e '.[test]'")
from nbclient import NotebookClient  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@pytest.mark.parametrize("name", ["01_topic_walkthrough.ipynb", "02_rule_ablation.ipynb"])
def test_notebook_runs(name):
    path = NOTEBOOKS / name
    notebook = nbformat.read(path, as_version=4)
    start = time.monotonic()
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    assert time.monotonic() - start < 120, f"{name} took {time.monotonic() - start:.0f} s; keep it under a minute"
