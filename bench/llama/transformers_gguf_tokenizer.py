"""Our GGUF tokenizer import against transformers' own GGUF conversion (bench/test-only venv).

transformers reads a GGUF's tokenizer itself (AutoTokenizer.from_pretrained(..., gguf_file=...),
through the `gguf` package) and builds a fast tokenizer from it. This script encodes the project
corpus with both: ours (tokenizer.json written by generator/import/ggufTokenizer.ts, run by
Hugging Face `tokenizers`) and transformers', and reports how many texts get other ids, with
examples. Usage (from the repository root; the venv holds transformers, gguf, tokenizers):
  python3.11 -m venv .cache/venv-gguf-ref
  .cache/venv-gguf-ref/bin/pip install transformers==4.57.1 gguf==0.17.1 tokenizers
  .cache/venv-gguf-ref/bin/python bench/llama/transformers_gguf_tokenizer.py
"""
import json
import os
import sys

from tokenizers import Tokenizer
import transformers.modeling_gguf_pytorch_utils as gguf_utils
from transformers import AutoTokenizer

# transformers refuses GGUF without PyTorch installed, but its tokenizer path reads metadata only
# (return_tensors=False): PyTorch (a 2 GB install with CUDA from PyPI) is not needed for it.
gguf_utils.is_torch_available = lambda: True

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, ".cache/llama/models")
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
OURS = os.path.join(ROOT, ".cache/tokenizers/smollm2-135m-instruct/tokenizer.json")
CORPUS = os.path.join(ROOT, ".cache/corpus/tokenizers.jsonl")


def main() -> int:
    theirs = AutoTokenizer.from_pretrained(MODELS, gguf_file=GGUF)
    ours = Tokenizer.from_file(OURS)
    texts = []
    with open(CORPUS, encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            if "text" in entry:
                texts.append(entry["text"])
    texts.append("<|im_start|>user\nWhat is 12345 + 678?<|im_end|>\n<|im_start|>assistant\n")
    differ = []
    for text in texts:
        a = ours.encode(text, add_special_tokens=False).ids
        b = theirs.encode(text, add_special_tokens=False)
        if a != b:
            differ.append((text, a, b))
    print(f"transformers {__import__('transformers').__version__}: {len(texts) - len(differ)} of {len(texts)} texts "
          f"get the same ids; {len(differ)} differ")
    import unicodedata

    def has_digit(text: str) -> bool:
        return any(unicodedata.category(c).startswith("N") for c in text)

    plain = [t for t in texts if not has_digit(t)]
    plain_differ = sum(1 for t, _, _ in differ if not has_digit(t))
    print(f"texts without a numeric character (\\p{{N}}): {len(plain)}, of which {plain_differ} differ")
    print("transformers' pre_tokenizer:", json.loads(theirs.backend_tokenizer.to_str())["pre_tokenizer"])
    for text, a, b in differ[:5]:
        print(json.dumps(text)[:80], "\n  ours        ", a[:20], "\n  transformers", b[:20])
    return 0


if __name__ == "__main__":
    sys.exit(main())
