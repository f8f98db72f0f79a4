"""transformers' apply_chat_template(tokenize=False) latency on a conversation (bench-only Python).

    python py_bench.py TOKENIZER_DIR MESSAGES.json SECONDS [--add-generation-prompt]

Prints one JSON line like ts-render-chat-bench: the render latency percentiles in microseconds
(the template is compiled once and cached by transformers, as in a server), and the output size.
"""

import json
import sys
import time

from transformers import AutoTokenizer


def main():
    tok_dir, messages_path, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    agp = "--add-generation-prompt" in sys.argv[4:]
    with open(messages_path, encoding="utf-8") as f:
        messages = json.load(f)
    tok = AutoTokenizer.from_pretrained(tok_dir)
    text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=agp)  # warm-up, compiles
    samples = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(16):
            t0 = time.perf_counter()
            text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=agp)
            samples.append((time.perf_counter() - t0) * 1e6)
    samples.sort()
    pct = lambda p: samples[min(len(samples) - 1, int(p * len(samples)))]  # noqa: E731
    print(json.dumps({"p50_us": pct(0.5), "p90_us": pct(0.9), "p99_us": pct(0.99), "mean_us": sum(samples) / len(samples),
                      "iterations": len(samples), "bytes": len(text.encode("utf-8")), "text": text}, ensure_ascii=False))


if __name__ == "__main__":
    main()
