"""The answer path's speed: `causalgraph answer` on a split with its documents, from an empty cache (cold), again
over the cache it filled (warm), and cold with two worker processes; each run's wall seconds, its peak RSS, and
the seconds of each stage summed over the topics (its --timings file).

    python benchmarks/cold_run.py --data ../shared/aer --split test
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from causalgraph.analysis.analyse import ANALYSIS_STAGES
from causalgraph.run.batch import STAGES


def run(data: str, split: str, cache: Path, out: Path, workers: int) -> tuple[float, float, dict]:
    """(wall seconds, peak RSS in MiB of the command's largest process, its --timings) of one answer run."""
    timings = out / f"timings-{time.monotonic_ns()}.json"
    command = [sys.executable, "-m", "causalgraph.answer", "--data", data, "--split", split, "--quiet",
               "--out", str(out / "answers.jsonl"), "--timings", str(timings), "--cache-dir", str(cache),
               "--workers", str(workers)]
    start = time.perf_counter()
    subprocess.run(command, check=True)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest child process so far
    return wall, peak, json.loads(timings.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--split", default="test")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for name, cache, workers in (("cold, 1 process", "one", 1), ("warm (the cache of the run above)", "one", 1),
                                     ("cold, 2 worker processes", "two", 2)):
            wall, peak, timings = run(args.data, args.split, out / cache, out, workers)
            stages = {s: sum(t[s] for t in timings["topics"]) for s in (*STAGES, *ANALYSIS_STAGES)}
            rows.append((name, wall, peak, timings["load"], stages))
    stages = (*ANALYSIS_STAGES, *STAGES[1:])
    print(f"| run | wall s | peak RSS MiB | loading s | {' | '.join(f'{s} s' for s in stages)} |")
    print("|---|" + "---|" * (3 + len(stages)))
    for name, wall, peak, load, seconds in rows:
        print(f"| {name} | {wall:.1f} | {peak:.0f} | {load:.1f} | " + " | ".join(f"{seconds[s]:.1f}" for s in stages) + " |")
    print("\nStage seconds are summed over the topics (with two processes, over both). Peak RSS: the largest "
          "process of the runs so far (with workers, each worker's own).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
