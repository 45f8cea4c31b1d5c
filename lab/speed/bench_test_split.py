"""Speed and memory of `python -m causalgraph.answer` on a whole split (default: test).

Measures wall time with an empty analysis cache (cold) and a filled one (warm), the seconds of each stage
(analysis, and within it spaCy's reading, the embedding of the sentences and the evidence; edge scoring,
solving: summed over topics, from `--timings`), the peak RSS of the answering
process (and of its worker processes, the largest one), and how time grows with the documents of each topic
(25/50/100%). Every configuration runs `--runs` times in a fresh process; the medians are printed, with a
Markdown table for BENCHMARKS.md.

    python -m lab.speed.bench_test_split --data ../shared/aer --runs 3
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from causalgraph.analysis.analyse import ANALYSIS_STAGES
from causalgraph.data import split_dir
from lab.common import run_benchmark

STAGES = ("load", "analysis", *ANALYSIS_STAGES, "scoring", "solving")


@dataclass(frozen=True)
class Config:
    """One row of the table: a share of each topic's documents, a warm or cold cache, a worker count."""

    name: str
    fraction: float = 1.0
    warm: bool = False
    workers: int = 1


@dataclass(frozen=True)
class Measure:
    wall: float
    stages: dict[str, float]
    peak_rss_mib: float
    documents: int
    output: bytes


def answer_once(data: Path, split: str, cache_dir: Path, workers: int, scratch: Path) -> Measure:
    """Run the answer CLI in a fresh process; its own wait4 usage gives the peak RSS."""
    out, timings, log = scratch / "preds.jsonl", scratch / "timings.json", scratch / "stderr.txt"
    command = [
        sys.executable, "-m", "causalgraph.answer", "--data", str(data), "--split", split, "--out", str(out),
        "--timings", str(timings), "--cache-dir", str(cache_dir), "--workers", str(workers), "--quiet",
    ]
    with open(log, "wb") as stderr:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited with {process.returncode}:\n{log.read_text()[-2000:]}")
    report = json.loads(timings.read_text())
    stages = {"load": report["load"]}
    stages.update({s: sum(t[s] for t in report["topics"]) for s in STAGES[1:]})
    documents = sum(t["documents"] for t in report["topics"])
    return Measure(wall, stages, usage.ru_maxrss / 1024, documents, out.read_bytes())


def subset_data(data: Path, split: str, fraction: float, folder: Path) -> Path:
    """A data folder with the split's questions and the first ceil(fraction * n) documents of each topic."""
    source = split_dir(data, split)
    if not (source / "docs.json").is_file():
        raise SystemExit(f"{source}/docs.json not found: the document scaling needs a split with documents")
    (folder / split).mkdir(parents=True)
    (folder / split / "questions.jsonl").symlink_to((source / "questions.jsonl").resolve())
    entries = json.loads((source / "docs.json").read_text(encoding="utf-8"))
    for entry in entries:
        entry["docs"] = entry["docs"][: math.ceil(fraction * len(entry["docs"]))]
    (folder / split / "docs.json").write_text(json.dumps(entries), encoding="utf-8")
    return folder


def command_line(config: Config, data: str, split: str) -> str:
    source = data if config.fraction == 1 else f"SUBSET{round(config.fraction * 100)}"
    cache = "FILLED" if config.warm else "EMPTY"
    workers = f" --workers {config.workers}"  # the default, --workers auto, would take two for the test split
    return (f"python -m causalgraph.answer --data {source} --split {split} --out p.jsonl "
            f"--cache-dir {cache}{workers}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="AER data folder, e.g. ../shared/aer")
    parser.add_argument("--split", default="test")
    parser.add_argument("--runs", type=int, default=3, help="runs per configuration (the median is reported)")
    parser.add_argument("--workers", type=int, default=2, help="worker count of the extra cold row (1: no such row)")
    args = parser.parse_args(argv)
    configs = [Config("cold"), Config("warm", warm=True), Config("cold, 50% of documents", 0.5),
               Config("cold, 25% of documents", 0.25)]
    if args.workers > 1:
        configs.append(Config(f"cold, {args.workers} workers", workers=args.workers))
    results: dict[str, list[Measure]] = {c.name: [] for c in configs}
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        tmp = Path(tmp)
        folders = {1.0: args.data}
        for config in configs:
            if config.fraction not in folders:
                folders[config.fraction] = subset_data(args.data, args.split, config.fraction,
                                                       tmp / f"data{config.fraction}")
        for run in range(args.runs):
            for i, config in enumerate(configs):
                # a warm run reuses the cache that this round's cold run (configs[0]) filled
                cache = tmp / f"cache-{run}-{0 if config.warm else i}"
                scratch = tmp / f"run-{run}-{i}"
                scratch.mkdir()
                measure = answer_once(folders[config.fraction], args.split, cache, config.workers, scratch)
                results[config.name].append(measure)
                print(f"run {run + 1}/{args.runs} {config.name}: {measure.wall:.1f} s, "
                      f"peak RSS {measure.peak_rss_mib:.0f} MiB", file=sys.stderr, flush=True)
    cold = results["cold"][0].output
    same = all(m.output == cold for name in results if "%" not in name for m in results[name])
    print(f"# {args.split} split, {args.runs} runs each, medians; {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}, load average {os.getloadavg()[0]:.1f} at the end")
    split = f" --split {args.split}" if args.split != "test" else ""
    workers = f" --workers {args.workers}" if args.workers != 2 else ""
    print(f"# benchmark: python -m lab.speed.bench_test_split --data {args.data}{split} --runs {args.runs}{workers}")
    print(f"# cold, warm and multi-worker predictions byte-identical: {'yes' if same else 'NO'}\n")
    print(f"| run | documents | wall s | {' | '.join(f'{s} s' for s in STAGES)} | peak RSS MiB | command |")
    print("|---|---|---|" + "---|" * len(STAGES) + "---|---|")
    for config in configs:
        runs = results[config.name]
        stages = " | ".join(f"{statistics.median(m.stages[s] for m in runs):.2f}" for s in STAGES)
        print(f"| {config.name} | {runs[0].documents} | {statistics.median(m.wall for m in runs):.1f} | {stages} | "
              f"{statistics.median(m.peak_rss_mib for m in runs):.0f} | "
              f"`{command_line(config, str(args.data), args.split)}` |")
    return 0 if same else 1


if __name__ == "__main__":
    run_benchmark(main)
