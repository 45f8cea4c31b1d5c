"""The package's layout: imports flow one way (no cycles between modules, no stage importing a later one), the rule
files, model and demo topic are package data, and the lab lives apart (lab/, which the package never imports)."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx

import causalgraph
from causalgraph.config import DEFAULT_MODEL, DEMO_DATA, PACKAGE_DIR, RULES_DIR, TEMPLATES_DIR
from causalgraph.reason.groups import RULE_GROUPS


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> nx.DiGraph:
    """Module -> module edges for every import inside the package, relative ones resolved."""
    graph = nx.DiGraph()
    modules = {module_name(p): p for p in PACKAGE_DIR.rglob("*.py")}
    for name, path in modules.items():
        graph.add_node(name)
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            graph.add_edges_from((name, t) for t in targets if t in modules and t != name)
    return graph


def test_no_import_cycle_between_modules():
    graph = imports()
    assert graph.number_of_edges() > 50
    assert nx.is_directed_acyclic_graph(graph), nx.find_cycle(graph)


def test_stages_import_one_way():
    """Collapsed to subpackages (data, text, graph, ...), the imports still form no cycle."""
    stages = nx.DiGraph()
    for a, b in imports().edges:
        if a.endswith(".__main__"):  # `python -m causalgraph.read`: a shim that runs its command
            continue
        sa, sb = a.split(".")[1] if "." in a else a, b.split(".")[1] if "." in b else b
        if sa != sb:
            stages.add_edge(sa, sb)
    assert nx.is_directed_acyclic_graph(stages), nx.find_cycle(stages)
    assert not any(stages.has_edge("data", s) for s in ("text", "graph", "learn", "reason", "cli"))
    assert "config" in stages and not list(stages.successors("config"))  # the leaf of shared constants


# The stages in order, as docs/architecture.md draws them: each may import the ones before it, never one after
# it. reason/ comes before learn/ because cross-validating the edge scorer and choosing its bias score the whole
# answer set program; the scorer only hands the solver a dict of probabilities. measure/ (the fold loops of the
# measuring commands) comes after the product, which cannot import it; only those commands in cli/ do.
STAGES = ("config", "data", "text", "read", "graph", "evidence", "analysis", "readers", "reason", "learn", "run",
          "view", "api",
          "measure", "cli")
MEASURING_COMMANDS = {f"causalgraph.cli.{name}" for name in ("cv", "train", "train_reader", "calibrate", "ablation")}
ENTRY_POINTS = {"causalgraph", "causalgraph.__main__"}  # the package (lazy exports) and `causalgraph COMMAND`


def stage(module: str) -> str:
    """The stage of a module: its subpackage, or its own name for a top-level module (config, api)."""
    return module.split(".")[1]


def test_no_stage_imports_a_later_one():
    graph = imports()
    shims = {m for m in graph if m.count(".") == 1 and stage(m) not in STAGES  # `python -m causalgraph.X`
             or m.endswith(".__main__")} - ENTRY_POINTS  # `python -m causalgraph.read`
    assert shims and all(set(graph.successors(m)) <= {f"causalgraph.cli.{stage(m)}", "causalgraph.cli.common"}
                         for m in shims), shims
    unplaced = sorted(m for m in graph if m not in ENTRY_POINTS | shims and stage(m) not in STAGES)
    assert not unplaced, f"modules outside every stage of {STAGES}: {unplaced}"
    rank = {s: i for i, s in enumerate(STAGES)}
    backwards = sorted((a, b) for a, b in graph.edges if a not in ENTRY_POINTS | shims
                       and rank[stage(a)] < rank[stage(b)])
    assert not backwards, f"imports of a later stage: {backwards}"
    assert {stage(m) for m in graph if m not in ENTRY_POINTS | shims} == set(STAGES)


def test_stage_docstrings_carry_no_number():
    """A stage says what it holds by name; its place is STAGES' order and docs/architecture.md's table, numbered
    nowhere else (numbers in docstrings drifted from both)."""
    for init in PACKAGE_DIR.glob("*/__init__.py"):
        assert not re.search(r"\bStage \d", ast.get_docstring(ast.parse(init.read_text())) or ""), init


def test_only_the_measuring_commands_import_the_measuring_stage():
    graph = imports()
    importers = {a for a, b in graph.edges if "." in a and "." in b and stage(b) == "measure" != stage(a)}
    assert importers and importers <= MEASURING_COMMANDS, sorted(importers - MEASURING_COMMANDS)


def test_answering_loads_no_measuring_module():
    """`import causalgraph` and the `answer` and `visualize` commands load nothing of causalgraph.measure."""
    code = ("import sys, causalgraph, causalgraph.cli.answer, causalgraph.cli.visualize, causalgraph.api; "
            "print(sorted(m for m in sys.modules if m.startswith('causalgraph.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=PACKAGE_DIR.parent).stdout
    assert "causalgraph.cli.answer" in loaded and "causalgraph.measure" not in loaded


def test_the_package_never_imports_the_lab():
    """No module of causalgraph/ imports the lab (lab/, at the top of the repository), by an import statement or
    by importlib; and the package that installs holds none of it."""
    from setuptools import find_packages

    importers = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if not node.level else []
            elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                names = [str(node.args[0].value)] if getattr(node.func, "attr", None) == "import_module" else []
            else:
                continue
            importers += [f"{path.relative_to(PACKAGE_DIR.parent)}: {n}" for n in names if n.split(".")[0] == "lab"]
    assert not importers, importers
    packages = find_packages(where=str(PACKAGE_DIR.parent), include=["causalgraph*"])  # as setup.cfg finds them
    assert "causalgraph" in packages and not [p for p in packages if not p.startswith("causalgraph")]


LAB = PACKAGE_DIR.parent / "lab"


def test_the_lab_keeps_its_files_short():
    """The lab's modules stay under 400 lines each: a long script is split by subject, its shared helpers in one
    module."""
    lengths = {str(p.relative_to(LAB)): len(p.read_text(encoding="utf-8").splitlines()) for p in LAB.rglob("*.py")}
    assert len(lengths) > 20 and not {p: n for p, n in lengths.items() if n > 400}


def test_the_lab_scripts_that_the_docs_name_exist():
    """Every `python -m lab.X` of the README, BENCHMARKS.md, docs/ and the lab's own docstrings names a module
    of the lab; nothing names the places the lab left (benchmarks/, causalgraph.experiments, the lab's commands
    under causalgraph)."""
    root = PACKAGE_DIR.parent
    texts = [root / "README.md", root / "BENCHMARKS.md", *sorted((root / "docs").rglob("*.md")),
             *sorted(LAB.rglob("*.py")),
             *sorted(PACKAGE_DIR.rglob("*.py")), *sorted(PACKAGE_DIR.rglob("*.md")), *sorted(PACKAGE_DIR.rglob("*.lp"))]
    named, stale = set(), []
    for path in texts:
        text = path.read_text(encoding="utf-8")
        named |= set(re.findall(r"python -m (lab(?:\.[a-z_0-9]+)+)", text))  # not lab.SUBJECT.NAME
        stale += [f"{path.relative_to(root)}: {m}" for m in re.findall(
            r"benchmarks/\w+|causalgraph[./]experiments|causalgraph[. ](?:nli|sizes|timeline|encoders)\b", text)]
    assert len(named) > 20 and not stale, stale
    missing = sorted(m for m in named if not (root / m.replace(".", "/")).with_suffix(".py").is_file())
    assert not missing, missing


def test_the_architecture_page_draws_the_stages_in_their_order():
    page = (PACKAGE_DIR.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    diagram = page.split("# Architecture", 1)[1].split("```", 2)[1]
    drawn = [line.split()[0].removesuffix("/").removesuffix(".py") for line in diagram.splitlines() if line.strip()]
    assert drawn == list(STAGES)


def test_package_data_lives_in_the_package():
    for group in RULE_GROUPS:
        assert (RULES_DIR / f"{group}.lp").is_file()
    assert DEFAULT_MODEL.is_file() and DEFAULT_MODEL.with_suffix(".md").is_file()
    assert (DEMO_DATA / "sample" / "questions.jsonl").is_file() and (TEMPLATES_DIR / "topic.html").is_file()
    assert all(p.is_relative_to(Path(causalgraph.__file__).parent) for p in (RULES_DIR, DEFAULT_MODEL, DEMO_DATA))
