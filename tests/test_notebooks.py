"""The notebooks run top to bottom without an error (NotebookClient raises on a failing cell), as
`pytest --nbmake notebooks/` runs them, and they are committed with the outputs of such a run, made by the
command in docs/visualize.md, so that they show where they are read without running them."""

import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="the notebook runner is in the test extra: pip install -e '.[test]'")
from nbclient import NotebookClient  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


NAMES = ["01_topic_walkthrough.ipynb", "02_rule_ablation.ipynb"]
PAGE = NOTEBOOKS.parent / "docs" / "visualize.md"  # where the command that runs them is given


@pytest.mark.parametrize("name", NAMES)
def test_notebook_is_committed_with_its_outputs(name):
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), "run it top to bottom, in one go"
    outputs = [o for c in code for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error" or o.get("name") == "stderr"]
    assert any("image/png" in o.get("data", {}) for o in outputs)  # the plots show on GitHub
    assert "jupyter execute --inplace notebooks/*.ipynb" in PAGE.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs(name):
    path = NOTEBOOKS / name
    notebook = nbformat.read(path, as_version=4)
    start = time.monotonic()
    NotebookClient(notebook, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    assert time.monotonic() - start < 120, f"{name} took {time.monotonic() - start:.0f} s; keep it under a minute"
