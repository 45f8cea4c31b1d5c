"""Solve time of the shipped program on a split's topics, whole and cut small: each topic's questions in
consecutive chunks of 1, 4 and 16 (a cut topic is its analysis restricted to those questions), solved with
the shipped scorer's scores and bias; then seeded random topics that are unsatisfiable under the rules (every
question is then solved alone, and groups are relaxed), where grounding once matters most. Prints the summed
solve seconds per row (median of --runs) as a Markdown table for BENCHMARKS.md's Solver section.

With `--against DIR` (a copy of an earlier `causalgraph/reason` package, its rules/ included, e.g. from
`git archive COMMIT causalgraph/reason`), each row also times that solver, runs interleaved with the current
one so that both see the same machine load, and counts the rows' solutions that differ.

    python -m lab.solver.solve_times --data ../shared/aer --split test --runs 5 --against /tmp/old/causalgraph/reason
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import random
import statistics
import sys
import time
from pathlib import Path

from causalgraph.analysis.analyse import analyse_topic, subset_analysis
from causalgraph.config import DEFAULT_MODEL
from causalgraph.data import Question, Topic, load_split
from causalgraph.graph.topic import build_graph, candidate_pairs
from causalgraph.learn.scorer import edge_scores, load_scorer, reads_documents
from causalgraph.reason import solve as current
from lab.common import run_benchmark

SIZES = (1, 4, 16, None)  # None: the whole topic
NONE = "None of the others are correct causes."


def earlier_solver(folder: Path):
    """The solve module of an earlier reason/ package, importable beside the current one, reading its own rules."""
    spec = importlib.util.spec_from_file_location("causalgraph.reason_earlier", folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    package = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = package
    spec.loader.exec_module(package)
    module = importlib.import_module("causalgraph.reason_earlier.solve")
    module.RULES_DIR = folder / "rules"
    return module


def unsatisfiable_topics(n: int, seed: int = 1) -> list:
    """(graph, scores, dated pairs) of `n` random topics over 8 dated events that the solver must relax:
    repeated options (priors), None options and many dated pairs (temporal) conflict."""
    rng, found = random.Random(seed), []
    events = [f"Event {i} happened on June {i + 1}." for i in range(8)]
    while len(found) < n:
        questions = []
        for i in range(rng.randint(6, 12)):
            target, *options = rng.sample(events, 5)
            if rng.random() < 0.4:
                options[rng.randrange(4)] = NONE
            if rng.random() < 0.3:
                options[rng.randrange(4)] = options[0].upper()
            questions.append(Question(f"q{i}", 1, target, tuple(options)))
        graph = build_graph(Topic(1, questions))
        pairs = candidate_pairs(graph)
        topic = graph, {p: rng.uniform(0.05, 0.95) for p in pairs}, {p for p in pairs if rng.random() < 0.4}
        solution = current.solve_topic(*topic)
        if solution.dropped or solution.alone:
            found.append(topic)
    return found


def timed(solvers: dict, solve, items, runs: int) -> tuple[dict[str, float], int]:
    """Median seconds of each solver over `items` (runs interleaved), and how many solutions differ between
    the first two (answers and dropped groups)."""
    times: dict[str, list[float]] = {name: [] for name in solvers}
    first = {}
    for _ in range(runs):
        for name, module in solvers.items():
            start = time.perf_counter()
            solutions = [solve(module, *item) for item in items]
            times[name].append(time.perf_counter() - start)
            first.setdefault(name, solutions)
    found = list(first.values())
    differ = sum((a.answers, a.dropped, a.alone) != (b.answers, b.dropped, b.alone)
                 for a, b in zip(*found)) if len(found) > 1 else 0
    return {name: statistics.median(t) for name, t in times.items()}, differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="AER data folder")
    parser.add_argument("--split", default="test", help="split to time (default: test)")
    parser.add_argument("--runs", type=int, default=3, help="runs per row; the median is printed")
    parser.add_argument("--against", type=Path, help="an earlier causalgraph/reason package to time as well")
    args = parser.parse_args()
    solvers = {"current": current}
    if args.against:
        solvers = {"earlier": earlier_solver(args.against), **solvers}
    scorer, encoder = load_scorer(DEFAULT_MODEL)
    analyses = [analyse_topic(t, encoder, reads_documents(scorer)) for t in load_split(args.data, args.split)]
    names = " | ".join(f"{name} s" for name in solvers)
    print(f"| questions per solve | solves | {names} | solutions that differ |\n|---|---|{'---|' * len(solvers)}---|")
    solve_cut = lambda module, a, scores: module.solve_analysis(
        a, scores, params=module.SolverParams(bias=scorer.bias_for(len(a.topic.questions))))
    for size in SIZES:
        cut = []
        for a in analyses:
            n = len(a.topic.questions)
            step = size or n
            if step >= n:
                cut.append(a)
                continue
            cut += [subset_analysis(a, list(range(i, min(i + step, n)))) for i in range(0, n, step)]
        seconds, differ = timed(solvers, solve_cut, [(a, edge_scores(a.table, scorer)) for a in cut], args.runs)
        print(f"| {size or 'whole topic'} | {len(cut)} | " + " | ".join(f"{s:.3f}"
                                                                        for s in seconds.values()) + f" | {differ} |",
              flush=True)
    logging.disable(logging.WARNING)  # each relaxation warns
    topics = unsatisfiable_topics(40)
    seconds, differ = timed(solvers, lambda module, *topic: module.solve_topic(*topic), topics, args.runs)
    print("| unsatisfiable random topics (6-12 questions) | 40 | " + " | ".join(f"{s:.3f}" for s in seconds.values())
          + f" | {differ} |")


if __name__ == "__main__":
    run_benchmark(main)
