"""Markdown table of a bundle run (bench/tokenizers/bundle.sh run DIR OUT): one row per tokenizer,
MB/s of each implementation side by side, and native ÷ the fastest peer.

  python3 bench/tokenizers/bundle_table.py OUT/results.jsonl
"""
import json
import sys

PEERS = ['fastokens', 'hf', 'kitoken', 'tiktoken']


def main():
    rows = {}
    for line in open(sys.argv[1], encoding='utf-8'):
        entry = json.loads(line)
        rows.setdefault(entry['tokenizer'], {})[entry['implementation']] = entry['result']

    def mb(r, key):
        return f"{r[key]:.1f}" if r else '–'

    for what in ('encode_mb_s', 'decode_mb_s'):
        print(f"\n{what.split('_')[0]} MB/s (fastest pass, one pinned core)\n")
        print('| tokenizer | native | fastokens | HF (PyPI) | kitoken | tiktoken | native ÷ fastest peer | fastest peer |')
        print('|---|---:|---:|---:|---:|---:|---:|---|')
        for tok, impls in rows.items():
            native = impls.get('triton-studio')
            peers = {p: impls[p] for p in PEERS if impls.get(p) and impls[p].get('mismatches', 0) == 0}
            best = max(peers, key=lambda p: peers[p][what], default=None)
            ratio = f"{native[what] / peers[best][what]:.2f}×" if native and best else '–'
            cells = []
            for p in PEERS:
                r = impls.get(p)
                cell = mb(r, what)
                if r and r.get('mismatches'):
                    cell += f" ({r['mismatches']} mismatches)"
                cells.append(cell if p in impls else 'n/a')
            print(f"| {tok} | {mb(native, what)} | {' | '.join(cells)} | {ratio} | {best or '–'} |")

    print('\nload (ms) and memory added by loading (MB)\n')
    print('| tokenizer | native load ms | native MB | fastokens load ms | fastokens MB | HF load ms | HF MB |')
    print('|---|---:|---:|---:|---:|---:|---:|')
    for tok, impls in rows.items():
        cells = []
        for p in ('triton-studio', 'fastokens', 'hf'):
            r = impls.get(p)
            cells += [f"{r['load_ms']:.0f}" if r else '–', f"{r['rss_added_mb']:.1f}" if r and 'rss_added_mb' in r else '–']
        print(f"| {tok} | {' | '.join(cells)} |")


if __name__ == '__main__':
    main()
