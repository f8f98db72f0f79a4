"""Markdown table of a bundle run (bench/tokenizers/bundle.sh run DIR OUT): one row per tokenizer,
MB/s of each implementation side by side (its fastest pass over all rounds), native ÷ the fastest
peer, and that ratio's range over the rounds (each round's native against the same round's peer).

  python3 bench/tokenizers/bundle_table.py OUT/results.jsonl
"""
import json
import sys

PEERS = ['fastokens', 'fastokens-loop', 'hf', 'kitoken', 'tiktoken']


def main():
    runs, rounds = {}, {}  # runs[tok][impl]: that implementation's results, one a round
    for line in open(sys.argv[1], encoding='utf-8'):
        entry = json.loads(line)
        tok, impl, r = entry['tokenizer'], entry['implementation'], entry['result']
        rounds.setdefault((tok, entry.get('round', 1)), {})[impl] = r
        runs.setdefault(tok, {}).setdefault(impl, [])
        if r:
            runs[tok][impl].append(r)

    def best(tok, impl, what):
        """The fastest of an implementation's rounds, or None where it never ran."""
        values = [r[what] for r in runs[tok].get(impl, [])]
        return max(values) if values else None

    def spread(tok, peer, what):
        """min–max over the rounds of native ÷ `peer`, each round against itself."""
        ratios = [impls['triton-studio'][what] / impls[peer][what] for (t, _), impls in rounds.items()
                  if t == tok and impls.get('triton-studio') and impls.get(peer)]
        return f"{min(ratios):.2f}–{max(ratios):.2f}" if len(ratios) > 1 else ''

    for what in ('encode_mb_s', 'decode_mb_s'):
        print(f"\n{what.split('_')[0]} MB/s (fastest pass of all rounds, one pinned core)\n")
        print('| tokenizer | native | fastokens | fastokens per call | HF (PyPI) | kitoken | tiktoken '
              '| native ÷ fastest peer | over the rounds | fastest peer |')
        print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|')
        for tok, impls in runs.items():
            native = best(tok, 'triton-studio', what)
            # Only peers whose ids equal HF's on the whole corpus count.
            exact = {p: best(tok, p, what) for p in PEERS
                     if impls.get(p) and all(r.get('mismatches', 0) == 0 for r in impls[p])}
            fastest = max(exact, key=exact.get, default=None)
            ratio = f"{native / exact[fastest]:.2f}×" if native and fastest else '–'
            cells = []
            for p in PEERS:
                value = best(tok, p, what)
                cell = f"{value:.1f}" if value is not None else ('–' if p in impls else 'n/a')
                if impls.get(p) and impls[p][0].get('mismatches'):
                    cell += f" ({impls[p][0]['mismatches']} mismatches)"
                cells.append(cell)
            print(f"| {tok} | {f'{native:.1f}' if native else '–'} | {' | '.join(cells)} | {ratio} "
                  f"| {spread(tok, fastest, what) if fastest else ''} | {fastest or '–'} |")

    print('\nload (ms) and memory added by loading (MB), first round\n')
    print('| tokenizer | native load ms | native MB | fastokens load ms | fastokens MB | HF load ms | HF MB |')
    print('|---|---:|---:|---:|---:|---:|---:|')
    for tok, impls in runs.items():
        cells = []
        for p in ('triton-studio', 'fastokens', 'hf'):
            r = impls[p][0] if impls.get(p) else None
            cells += [f"{r['load_ms']:.0f}" if r else '–', f"{r['rss_added_mb']:.1f}" if r and 'rss_added_mb' in r else '–']
        print(f"| {tok} | {' | '.join(cells)} |")


if __name__ == '__main__':
    main()
