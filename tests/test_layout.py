"""The package's layout: imports flow one way (no cycles between modules or between stages), and the rule
files, model and demo topic are package data."""

import ast
from pathlib import Path

import networkx as nx

import causalgraph
from causalgraph.config import DEFAULT_MODEL, DEMO_DATA, PACKAGE_DIR, RULES_DIR, TEMPLATES_DIR
from causalgraph.reason.solve import RULE_GROUPS


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
        sa, sb = a.split(".")[1] if "." in a else a, b.split(".")[1] if "." in b else b
        if sa != sb:
            stages.add_edge(sa, sb)
    assert nx.is_directed_acyclic_graph(stages), nx.find_cycle(stages)
    assert not any(stages.has_edge("data", s) for s in ("text", "graph", "learn", "reason", "cli"))
    assert "config" in stages and not list(stages.successors("config"))  # the leaf of shared constants


def test_package_data_lives_in_the_package():
    for group in RULE_GROUPS:
        assert (RULES_DIR / f"{group}.lp").is_file()
    assert DEFAULT_MODEL.is_file() and DEFAULT_MODEL.with_suffix(".md").is_file()
    assert (DEMO_DATA / "sample" / "questions.jsonl").is_file() and (TEMPLATES_DIR / "topic.html").is_file()
    assert all(p.is_relative_to(Path(causalgraph.__file__).parent) for p in (RULES_DIR, DEFAULT_MODEL, DEMO_DATA))
