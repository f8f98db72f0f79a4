#!/usr/bin/env bash
# The native library against fastokens (the fastest peer where encode is short of 2×), one
# tokenizer at a time, each side pinned to the same core, with ratios: the quick check while
# working here, and what runs on a lent quiet machine that has Python but none of the project's
# tools (bench:tokenizers is the full table with every peer).
#   bash bench/tokenizers/pairs.sh BENCH_BIN PYTHON SECONDS TOKENIZER...
# BENCH_BIN: ts-tokenize-bench (build/backends/tools/); PYTHON: one with fastokens and tokenizers;
# TOKENIZER: a folder name under .cache/tokenizers. PAIRS_CPU picks the core (default 1).
set -euo pipefail
cd "$(dirname "$0")/../.."
bench=$1 python=$2 seconds=$3
shift 3
pin=(taskset -c "${PAIRS_CPU:-1}")
command -v taskset >/dev/null || { echo "pairs: no taskset here: not pinned" >&2; pin=(); }
corpus=.cache/corpus/tokenizers.jsonl
for name in "$@"; do
  file=.cache/tokenizers/$name/tokenizer.json
  native=$("${pin[@]}" "$bench" --tokenizer "$file" --corpus "$corpus" --seconds "$seconds" | tail -1)
  peer=$("${pin[@]}" "$python" bench/tokenizers/py_bench.py fastokens "$file" "$corpus" "$seconds" | tail -1)
  "$python" - "$name" "$native" "$peer" <<'PY'
import json, sys
name, n, p = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
print(json.dumps({'tokenizer': name, 'native': n, 'fastokens': p}))
print(f"{name:20s} encode {n['encode_mb_s']:7.1f} vs {p['encode_mb_s']:7.1f} MB/s = {n['encode_mb_s'] / p['encode_mb_s']:.2f}x"
      f"   decode {n['decode_mb_s']:7.1f} vs {p['decode_mb_s']:7.1f} MB/s = {n['decode_mb_s'] / p['decode_mb_s']:.2f}x"
      f"   fastokens mismatches {p.get('mismatches')}, cpu/wall {p.get('cpu_per_wall')}")
PY
done
