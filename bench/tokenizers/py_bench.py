"""Single-thread encode/decode throughput of Python-side peers, for bench/tokenizers/run.ts.

  python py_bench.py hf TOKENIZER_JSON CORPUS_JSONL SECONDS
  python py_bench.py tiktoken TOKENIZER_JSON CORPUS_JSONL SECONDS   (GPT-2 byte-level BPE only)
  python py_bench.py kitoken TOKENIZER_JSON CORPUS_JSONL SECONDS
  python py_bench.py fastokens TOKENIZER_JSON CORPUS_JSONL SECONDS
  python py_bench.py fastokens-loop TOKENIZER_JSON CORPUS_JSONL SECONDS

Prints one JSON object like ts-tokenize-bench. tiktoken cannot download its GPT-2 files here, so
its Encoding is built from the same tokenizer.json (ranks = ids, GPT-2's split pattern) and its
ids are checked against HF's on the corpus ("mismatches"), as kitoken's are (it reads the same
tokenizer.json with its own implementation), and fastokens' (the Rust tokenizer of NVIDIA Dynamo's
frontend). fastokens is timed through encode_batch_flat / decode_batch, its fastest calls (no
Python object per token), and, as fastokens-loop, through one encode / decode call per text (the
protocol of issue 22's figures). Its segment cache (whole texts between added tokens) stays off:
every pass encodes the same texts, so it would time lookups of texts seen in the pass before.
"cpu_per_wall" reports process CPU time over wall time of fastokens' fastest pass, so a peer that
used more than the one thread shows above 1.
"""
import json
import os
import sys
import time

os.environ.setdefault('RAYON_NUM_THREADS', '1')  # HF tokenizers' and kitoken's batch calls: one thread
os.environ.setdefault('TOKENIZERS_PARALLELISM', 'false')
# fastokens' batch calls run on its own worker threads (not rayon's pool): 1.7 CPUs per wall second
# on a 2-core box unless this is set, which made it look twice as fast per thread as it is.
os.environ.setdefault('FASTOKENS_BPE_THREADS', '1')

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


CPU_PER_WALL = {}


def timed(fn, seconds, label='pass'):
    """The result and time of the fastest of the passes run in `seconds` (at least 3), as
    ts-tokenize-bench measures: on a shared machine the slower passes measure the neighbours."""
    passes, best, start = 0, float('inf'), time.perf_counter()
    while passes < 3 or time.perf_counter() - start < seconds:
        t0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        wall = time.perf_counter() - t0
        if wall < best:
            best = wall
            CPU_PER_WALL[label] = (time.process_time() - c0) / wall
        passes += 1
    return result, best


def rss_mb():
    """Resident memory now (Linux), to report what loading a tokenizer adds, as ts-tokenize-bench does."""
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024
    return 0.0


def loaded(load, out):
    """`load()`'s tokenizer, with the time it took and the memory it added written to `out`."""
    t0 = time.perf_counter()
    r0 = rss_mb()
    tok = load()
    out['rss_added_mb'] = rss_mb() - r0
    out['load_ms'] = (time.perf_counter() - t0) * 1e3
    return tok


def hf_mismatches(tokenizer_path, texts, ids):
    """How many texts' ids differ from those HF tokenizers gives on the same file."""
    from tokenizers import Tokenizer
    ref = Tokenizer.from_file(tokenizer_path).encode_batch(texts, add_special_tokens=False)
    return sum(1 for a, b in zip(ids, ref) if list(a) != b.ids)


def byte_decoder():
    printable = list(range(ord('!'), ord('~') + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars, n = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + n)
            n += 1
    return {c: b for b, c in chars.items()}


def main():
    kind, tokenizer_path, corpus_path, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    texts = []
    with open(corpus_path, encoding='utf-8') as f:
        for line in f:
            entry = json.loads(line)
            if 'text' in entry:
                texts.append(entry['text'])
    nbytes = sum(len(t.encode('utf-8')) for t in texts)
    out = {'strings': len(texts), 'bytes': nbytes}

    if kind == 'hf':
        from tokenizers import Tokenizer
        tok = loaded(lambda: Tokenizer.from_file(tokenizer_path), out)
        encs, enc_s = timed(lambda: tok.encode_batch(texts, add_special_tokens=False), seconds)
        ids = [e.ids for e in encs]
        decoded, dec_s = timed(lambda: tok.decode_batch(ids, skip_special_tokens=False), seconds)
    elif kind == 'tiktoken':
        import tiktoken
        data = json.load(open(tokenizer_path, encoding='utf-8'))
        bd = byte_decoder()
        ranks = {bytes(bd[c] for c in tok): i for tok, i in data['model']['vocab'].items()}
        t0 = time.perf_counter()
        enc = tiktoken.Encoding('gpt2-local', pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                                special_tokens={'<|endoftext|>': 50256})
        out['load_ms'] = (time.perf_counter() - t0) * 1e3
        ids, enc_s = timed(lambda: enc.encode_ordinary_batch(texts, num_threads=1), seconds)
        decoded, dec_s = timed(lambda: enc.decode_batch(ids, num_threads=1), seconds)
        out['mismatches'] = hf_mismatches(tokenizer_path, texts, ids)
    elif kind == 'kitoken':
        import kitoken
        kt = loaded(lambda: kitoken.Kitoken.from_tokenizers_file(tokenizer_path), out)
        ids, enc_s = timed(lambda: kt.encode_all(texts, False), seconds)
        decoded, dec_s = timed(lambda: [b.decode('utf-8', errors='replace') for b in kt.decode_all(ids)], seconds)
        out['mismatches'] = hf_mismatches(tokenizer_path, texts, ids)
    elif kind == 'fastokens':
        import array
        import fastokens
        ft = loaded(lambda: fastokens.Tokenizer.from_file(tokenizer_path), out)

        def encode_all():
            flat, offsets = ft.encode_batch_flat(texts, add_special_tokens=False)
            ids_flat, offs = array.array('I', flat), array.array('Q', offsets)
            return ids_flat, offs

        (ids_flat, offs), enc_s = timed(encode_all, seconds, 'encode')
        ids = [ids_flat[offs[i]:offs[i + 1]].tolist() for i in range(len(texts))]
        decoded, dec_s = timed(lambda: ft.decode_batch(ids, skip_special_tokens=False), seconds, 'decode')
        out['cpu_per_wall'] = {k: round(v, 2) for k, v in CPU_PER_WALL.items()}
        out['mismatches'] = hf_mismatches(tokenizer_path, texts, ids)
    elif kind == 'fastokens-loop':
        # The protocol issue 22 stated its figures in: one `encode` call per text from Python, as a
        # serving frontend calls it per request. Only the calls are timed (no Python int per token).
        import fastokens
        ft = loaded(lambda: fastokens.Tokenizer.from_file(tokenizer_path), out)
        encodings, enc_s = timed(lambda: [ft.encode(t, add_special_tokens=False) for t in texts], seconds, 'encode')
        ids = [e.ids for e in encodings]
        decoded, dec_s = timed(lambda: [ft.decode(i, skip_special_tokens=False) for i in ids], seconds, 'decode')
        out['cpu_per_wall'] = {k: round(v, 2) for k, v in CPU_PER_WALL.items()}
        out['mismatches'] = hf_mismatches(tokenizer_path, texts, ids)
    else:
        raise SystemExit(f'unknown peer {kind!r} (hf, tiktoken, kitoken, fastokens or fastokens-loop)')

    ntokens = sum(len(i) for i in ids)
    out.update({
        'tokens': ntokens,
        'encode_mb_s': nbytes / enc_s / 1e6,
        'encode_tokens_s': ntokens / enc_s,
        'decode_mb_s': sum(len(d.encode('utf-8')) for d in decoded) / dec_s / 1e6,
        'decode_tokens_s': ntokens / dec_s,
    })
    print(json.dumps(out))


if __name__ == '__main__':
    main()
