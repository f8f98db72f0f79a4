// Tokenizer benchmark: single-thread encode and decode throughput on the project corpus, native
// library (its batch call, EncodeFlat) vs Hugging Face tokenizers (npm binding and PyPI), kitoken and
// fastokens (PyPI) and tiktoken (GPT-2), same corpus, same run. Every implementation runs once per round, in turn, so that a slow spell
// of a shared machine falls on all of them; each one's table row is its fastest pass of all
// rounds, and the ratios to the fastest peer come with their spread over the rounds (on a noisy
// box one round's ratio can be 10-15% off). Pin it for steadier numbers: taskset -c 1 npm run ...
// Usage: npm run bench:tokenizers [-- --seconds 3 --rounds 3 --tokenizers gpt2,llama-2 --source prose --join 20
//   --peers fastokens,fastokens-loop]
// --peers: only those peers (hf-npm, hf, kitoken, fastokens, fastokens-loop, tiktoken; all by default).
// --source: only the corpus entries of that source (code, prose, gettext, emoji, edge; "gettext:ja"
// for one language), to see where a ratio comes from. --join N: every N texts joined by a newline
// into one, which leaves the per-byte work and divides the per-call costs by N.
// Results: a Markdown table on stdout and JSON in .cache/bench/tokenizers.json.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Tokenizer } from 'tokenizers';

import { assembleTokenizers, TOKENIZER_NAMES } from '../../scripts/assemble-tokenizers';
import { corpusFile, loadCorpus } from '../../scripts/build-corpus';
import { ensureNativeTool, repoRoot } from './native';

const SMOLLM2 = 'smollm2-135m-instruct';

interface Result {
  tokenizer: string;
  implementation: string;
  load_ms?: number;
  rss_added_mb?: number;
  encode_mb_s: number;
  encode_tokens_s: number;
  decode_mb_s: number;
  decode_tokens_s: number;
  mismatches?: number;
  note?: string;
}
type Measured = Omit<Result, 'tokenizer' | 'implementation'>;

const NATIVE = 'triton-studio (C++)';
// The peers run in Python (py_bench.py's kinds) and their table rows. tiktoken reads GPT-2 only.
const PYTHON_PEERS: [string, string][] = [
  ['hf', 'HF tokenizers, PyPI'],
  ['kitoken', 'kitoken, PyPI'],
  ['fastokens', 'fastokens, PyPI'],
  ['fastokens-loop', 'fastokens, PyPI, one encode call per text'],
  ['tiktoken', 'tiktoken, PyPI'],
];
const PEER_KEYS = ['hf-npm', ...PYTHON_PEERS.map(([key]) => key)];

/** Each implementation's fastest encode and fastest decode over the rounds (load time: the first). */
function fastest(rounds: Measured[]): Measured {
  const encode = rounds.reduce((a, b) => (b.encode_mb_s > a.encode_mb_s ? b : a));
  const decode = rounds.reduce((a, b) => (b.decode_mb_s > a.decode_mb_s ? b : a));
  return {
    ...rounds[0]!,
    encode_mb_s: encode.encode_mb_s,
    encode_tokens_s: encode.encode_tokens_s,
    decode_mb_s: decode.decode_mb_s,
    decode_tokens_s: decode.decode_tokens_s,
  };
}

/** Native ÷ fastest peer in each round where both ran: min and max, encode and decode. */
function ratioSpread(byRound: Map<string, Measured>[]): { encode: number[]; decode: number[] } {
  const encode: number[] = [];
  const decode: number[] = [];
  for (const round of byRound) {
    const mine = round.get(NATIVE);
    const peers = [...round].filter(([impl]) => impl !== NATIVE).map(([, r]) => r);
    if (!mine || peers.length === 0) continue;
    encode.push(mine.encode_mb_s / Math.max(...peers.map((r) => r.encode_mb_s)));
    decode.push(mine.decode_mb_s / Math.max(...peers.map((r) => r.decode_mb_s)));
  }
  const span = (v: number[]): number[] => (v.length ? [Math.min(...v), Math.max(...v)] : []);
  return { encode: span(encode), decode: span(decode) };
}

// The Python peers' venv: .cache/bench-venv, or the one BENCH_VENV names.
const venvPython = path.join(
  process.env.BENCH_VENV ?? path.join(repoRoot, '.cache/bench-venv'),
  'bin/python',
);

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

function runJson(cmd: string, args: string[]): Record<string, number> {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error || r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed: ${r.error?.message ?? r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
}

/** HF's npm binding, one call per string (its batch call is multi-threaded). */
async function npmBinding(file: string, texts: string[]): Promise<Measured> {
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  let t0 = performance.now();
  const tok = Tokenizer.fromFile(file);
  const load_ms = performance.now() - t0;
  const ids: number[][] = [];
  t0 = performance.now();
  for (const t of texts) ids.push((await tok.encode(t, null, { addSpecialTokens: false })).getIds());
  const encode_s = (performance.now() - t0) / 1e3;
  let decodedBytes = 0;
  t0 = performance.now();
  for (const i of ids) decodedBytes += Buffer.byteLength(await tok.decode(i, false));
  const decode_s = (performance.now() - t0) / 1e3;
  const tokens = ids.reduce((n, i) => n + i.length, 0);
  return {
    load_ms,
    encode_mb_s: bytes / encode_s / 1e6,
    encode_tokens_s: tokens / encode_s,
    decode_mb_s: decodedBytes / decode_s / 1e6,
    decode_tokens_s: tokens / decode_s,
  };
}

async function main(): Promise<void> {
  const seconds = arg('seconds', '3');
  const rounds = Number(arg('rounds', '3'));
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number ≥ 1`);
  const bench = await ensureNativeTool('ts-tokenize-bench');
  const files: Record<string, string> = { ...(await assembleTokenizers()) };
  // SmolLM2's tokenizer is imported from its GGUF by setup (scripts/fetch-llama.sh), not from a
  // package: benched by default where it has been imported.
  const smolLm2 = path.join(repoRoot, '.cache/tokenizers', SMOLLM2, 'tokenizer.json');
  if (existsSync(smolLm2)) files[SMOLLM2] = smolLm2;
  const names = arg('tokenizers', Object.keys(files).join(',')).split(',');
  for (const name of names) {
    if (files[name] !== undefined) continue;
    throw new Error(
      name === SMOLLM2
        ? `--tokenizers: ${smolLm2} is missing: bash scripts/setup.sh imports it from the SmolLM2 GGUF`
        : `--tokenizers: unknown tokenizer '${name}' (${[...TOKENIZER_NAMES, SMOLLM2].join(', ')})`,
    );
  }
  const peers = new Set(arg('peers', PEER_KEYS.join(',')).split(','));
  for (const key of peers)
    if (!PEER_KEYS.includes(key)) throw new Error(`--peers: unknown peer '${key}' (${PEER_KEYS.join(', ')})`);
  const source = arg('source', '');
  const join = Number(arg('join', '1'));
  if (!Number.isInteger(join) || join < 1) throw new Error(`--join must be a whole number ≥ 1`);
  const entries = loadCorpus().filter(
    (e): e is { source: string; text: string } =>
      'text' in e && (source === '' || e.source === source || e.source.startsWith(`${source}:`)),
  );
  if (entries.length === 0) throw new Error(`--source ${source}: no corpus entry has that source`);
  const texts: string[] = [];
  for (let i = 0; i < entries.length; i += join)
    texts.push(
      entries
        .slice(i, i + join)
        .map((e) => e.text)
        .join('\n'),
    );
  // Every implementation reads the corpus from a file: a subset or a joined one is written next to it.
  const variant = [source.replace(/\W/g, '-'), join > 1 ? `join${join}` : ''].filter(Boolean).join('.');
  const corpus = variant === '' ? corpusFile : corpusFile.replace(/\.jsonl$/, `.${variant}.jsonl`);
  if (variant !== '')
    writeFileSync(
      corpus,
      texts.map((text) => JSON.stringify({ source: source || 'all', text })).join('\n') + '\n',
    );
  const havePython = existsSync(venvPython);
  if (!havePython) {
    console.error(
      `[bench] ${venvPython} missing: Python peers skipped (python3 -m venv .cache/bench-venv && .cache/bench-venv/bin/pip install tokenizers==0.23.3 tiktoken==0.14.0 kitoken==0.11.1 fastokens==0.3.5)`,
    );
  }
  const results: Result[] = [];
  const spreads: Record<string, { encode: number[]; decode: number[] }> = {};
  const failures: { tokenizer: string; implementation: string; why: string }[] = [];
  for (const name of names) {
    const file = files[name]!; // every name was checked above
    const byRound: Map<string, Measured>[] = [];
    const failed = new Set<string>();
    // A peer (or the native library) that cannot load this tokenizer is reported once, not fatal.
    const add = async (
      implementation: string,
      measure: () => Promise<Measured> | Measured,
    ): Promise<void> => {
      if (failed.has(implementation)) return;
      try {
        const r = await measure();
        byRound.at(-1)!.set(implementation, r);
        console.error(
          `[bench] ${name} ${implementation} (round ${byRound.length}): encode ${r.encode_mb_s.toFixed(2)} MB/s`,
        );
        // A single-thread table is only fair if every peer used one CPU (py_bench.py reports it).
        const cpus = (r as { cpu_per_wall?: Record<string, number> }).cpu_per_wall ?? {};
        for (const [call, perWall] of Object.entries(cpus)) {
          if (perWall > 1.15)
            console.error(
              `[bench] warning: ${name} ${implementation} ${call} used ${perWall} CPUs per wall second`,
            );
        }
      } catch (err) {
        const why = (err instanceof Error ? err.message : String(err))
          .trim()
          .split('\n')
          .pop()!
          .slice(0, 160);
        failed.add(implementation);
        failures.push({ tokenizer: name, implementation, why });
        console.error(`[bench] ${name} ${implementation}: failed: ${why}`);
      }
    };
    const peer = (kind: string) => (): Measured =>
      runJson(venvPython, [path.join(__dirname, 'py_bench.py'), kind, file, corpus, seconds]) as never;
    for (let round = 0; round < rounds; ++round) {
      byRound.push(new Map());
      await add(
        NATIVE,
        () => runJson(bench, ['--tokenizer', file, '--corpus', corpus, '--seconds', seconds]) as never,
      );
      if (peers.has('hf-npm')) await add('HF tokenizers, npm binding', () => npmBinding(file, texts));
      if (havePython) {
        for (const [key, implementation] of PYTHON_PEERS) {
          if (peers.has(key) && (key !== 'tiktoken' || name === 'gpt2')) await add(implementation, peer(key));
        }
      }
    }
    const implementations = [...new Set(byRound.flatMap((round) => [...round.keys()]))];
    for (const implementation of implementations) {
      const measured = byRound.flatMap((round) => round.get(implementation) ?? []);
      results.push({ tokenizer: name, implementation, ...fastest(measured) });
    }
    spreads[name] = ratioSpread(byRound);
  }
  const out = path.join(repoRoot, '.cache/bench/tokenizers.json');
  mkdirSync(path.dirname(out), { recursive: true });
  const meta = {
    date: new Date().toISOString(),
    cpu: os.cpus()[0]?.model,
    cores: os.cpus().length,
    corpus_strings: texts.length,
    source: source || 'all',
    join,
    rounds,
  };
  writeFileSync(out, JSON.stringify({ meta, results, spreads, failures }, null, 2));

  const f = (v: number | undefined, d = 1): string => (v === undefined ? '–' : v.toFixed(d));
  console.log(
    `Corpus: ${texts.length} strings (${corpus}); ${meta.cpu}, single thread; each row the fastest pass of ${rounds} round(s).\n`,
  );
  console.log(
    '| tokenizer | implementation | encode MB/s | encode Mtok/s | decode MB/s | decode Mtok/s | load ms | memory MB |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(
      `| ${r.tokenizer} | ${r.implementation}${r.mismatches ? ` (${r.mismatches} id mismatches vs HF)` : ''} | ${f(r.encode_mb_s, 2)} | ${f(r.encode_tokens_s / 1e6, 2)} | ${f(r.decode_mb_s)} | ${f(r.decode_tokens_s / 1e6, 2)} | ${f(r.load_ms)} | ${f(r.rss_added_mb)} |`,
    );
  }
  for (const x of failures)
    console.log(`| ${x.tokenizer} | ${x.implementation}: does not load (${x.why}) | | | | | | |`);
  console.log('\nRatios (native ÷ peer, MB/s, fastest passes; goal ≥ 2× the fastest peer):');
  for (const name of names) {
    const mine = results.find((r) => r.tokenizer === name && r.implementation === NATIVE);
    if (!mine) continue;
    const peers = results.filter((x) => x.tokenizer === name && x !== mine);
    for (const r of peers) {
      console.log(
        `- ${name} vs ${r.implementation}: encode ${(mine.encode_mb_s / r.encode_mb_s).toFixed(2)}×, decode ${(mine.decode_mb_s / r.decode_mb_s).toFixed(2)}×`,
      );
    }
    if (peers.length === 0) continue;
    const bestEncode = Math.max(...peers.map((r) => r.encode_mb_s));
    const bestDecode = Math.max(...peers.map((r) => r.decode_mb_s));
    const spread = spreads[name];
    const range = (v: number[] | undefined): string =>
      v && v.length === 2 && rounds > 1 ? ` (rounds: ${v[0]!.toFixed(2)}–${v[1]!.toFixed(2)}×)` : '';
    console.log(
      `- ${name} vs the fastest peer: encode ${(mine.encode_mb_s / bestEncode).toFixed(2)}×${range(spread?.encode)}, decode ${(mine.decode_mb_s / bestDecode).toFixed(2)}×${range(spread?.decode)}`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(`[bench] error: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
