"""`causalgraph read --data IN.jsonl --out OUT.jsonl`: read the causal statements of each line's text with the
trained reader (causalgraph.read): whether it states a causal relation, the causes and effects it states, and for
each given pair of events which caused the other. One output line per input line, in order."""

from __future__ import annotations

import sys
from pathlib import Path

from ..data import DataError
from ..data.files import write_files
from ..run.output import check_outputs, jsonl
from .common import command_parser

CHUNK = 32  # lines read at a time, the progress bar's step


def build_parser():
    parser = command_parser("read", __doc__)
    parser.add_argument("--data", type=Path, required=True, help='input JSON lines: {"id", "text", "pairs" (optional)}')
    parser.add_argument("--out", type=Path, required=True, help="where to write the readings (JSON lines)")
    parser.add_argument("--model", type=Path, default=None,
                        help="a reader model folder (`python -m causalgraph.train --reader-model`); default the "
                             "shipped one")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        check_outputs({"--out": args.out}, [args.data])
        from ..read.inputs import read_items

        items = read_items(args.data)
    except (DataError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    import torch
    from tqdm import tqdm

    from ..read.reader import READER_DIR, CausalReader

    torch.set_num_threads(2)
    reader = CausalReader.load(args.model or READER_DIR)
    records = []
    with tqdm(total=len(items), desc="reading", unit="line", disable=args.quiet) as bar:
        for start in range(0, len(items), CHUNK):
            chunk = items[start : start + CHUNK]
            for item, reading in zip(chunk, reader.read_many([(i.text, i.pairs) for i in chunk])):
                records.append(reading.record(item.id))
            bar.update(len(chunk))
    write_files({args.out: jsonl(records)})
    if not args.quiet:
        print(f"wrote {len(records)} readings to {args.out}", file=sys.stderr)
    return 0
