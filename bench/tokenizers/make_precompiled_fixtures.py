"""SentencePiece Unigram tokenizer.json fixtures with a real `Precompiled` normalizer (bench/test-only
Python; never in the product).

No registry package ships the tokenizer.json of XLM-R, T5, BGE-M3 or multilingual E5 (they live on
the model hub), so this makes them the way those files were made: SentencePiece trains a Unigram
model on the project corpus with its stock normalization rule (the rule's compiled charsmap is the
same bytes every model trained with that rule carries), and transformers' own slow->fast converters
(XLMRobertaConverter, T5Converter) turn it into tokenizer.json. Output, committed as test fixtures:

    test/fixtures/tokenizers/precompiled/xlm-roberta-nmt_nfkc.json     (XLM-R, BGE-M3, mE5 pipeline)
    test/fixtures/tokenizers/precompiled/t5-nmt_nfkc_cf.json           (T5 pipeline, case-folding rule)

    /usr/bin/python3.11 -m venv build/spm-venv
    build/spm-venv/bin/pip install sentencepiece==0.2.3 transformers==5.24.0 tokenizers==0.23.3 protobuf
    npx tsx scripts/build-corpus.ts        # .cache/corpus/tokenizers.jsonl
    build/spm-venv/bin/python bench/tokenizers/make_precompiled_fixtures.py
"""

import json
import os
import sys
import tempfile

import sentencepiece as spm
from transformers.convert_slow_tokenizer import T5Converter, XLMRobertaConverter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, ".cache/corpus/tokenizers.jsonl")
OUT = os.path.join(ROOT, "test/fixtures/tokenizers/precompiled")


class SlowStandIn:
    """What the converters read from a slow tokenizer: its .model file and piece ids."""

    def __init__(self, model_file, extra_ids=0):
        self.vocab_file = model_file
        self._extra_ids = extra_ids
        self.add_prefix_space = True
        self.legacy = True
        self.sp = spm.SentencePieceProcessor(model_file=model_file)

    def convert_tokens_to_ids(self, token):
        if token == "<s>":
            return 0  # XLM-R's fairseq order: <s> <pad> </s> <unk>
        if token == "</s>":
            return self.sp.piece_to_id("</s>") if self._extra_ids else 2
        return self.sp.piece_to_id(token)


def training_text(path):
    """Every 2nd corpus string that is text (all scripts: the charsmap and vocab see them)."""
    lines = []
    with open(CORPUS, encoding="utf-8") as f:
        for i, line in enumerate(f):
            entry = json.loads(line)
            if i % 2 == 0 and "text" in entry:
                lines.append(entry["text"].replace("\n", " "))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def train(text_file, prefix, rule):
    spm.SentencePieceTrainer.train(
        input=text_file,
        model_prefix=prefix,
        model_type="unigram",
        vocab_size=8000,
        normalization_rule_name=rule,
        character_coverage=0.9995,
        num_threads=1,
        minloglevel=2,
    )
    return prefix + ".model"


def main():
    if not os.path.exists(CORPUS):
        sys.exit(f"{CORPUS} is missing: run `npx tsx scripts/build-corpus.ts` first")
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        text = os.path.join(tmp, "corpus.txt")
        training_text(text)
        xlmr = train(text, os.path.join(tmp, "xlmr"), "nmt_nfkc")
        t5 = train(text, os.path.join(tmp, "t5"), "nmt_nfkc_cf")
        XLMRobertaConverter(SlowStandIn(xlmr)).converted().save(os.path.join(OUT, "xlm-roberta-nmt_nfkc.json"))
        T5Converter(SlowStandIn(t5, extra_ids=100)).converted().save(os.path.join(OUT, "t5-nmt_nfkc_cf.json"))
    for name in sorted(os.listdir(OUT)):
        print(name, os.path.getsize(os.path.join(OUT, name)), "bytes")


if __name__ == "__main__":
    main()
