/**
 * vs-perf-analyzer's settings: its command-line flags, paths and fixed load (prompt, output length,
 * window), read once; the header of bench/perf/vs-perf-analyzer.ts says what each flag does.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The checkout: the nearest folder up with a package.json (this runs from bench/ and, bundled, from out/bench/). */
function checkoutRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}: run the bench from a checkout`);
  }
}

export const ROOT = checkoutRoot(__dirname);
export const OUT = join(ROOT, '.cache/bench/perf-vs-pa');
const VENV = join(ROOT, '.cache/perf-analyzer-venv');
export const PA = join(VENV, 'bin/perf_analyzer');
export const PA_LIBS = join(VENV, 'lib/python3.11/site-packages/nvidia/cuda_runtime/lib');
export const CLI = join(ROOT, 'bin/triton-studio.js');
export const PROMPT = 'The quick brown fox jumps over the lazy dog';
export const MAX_TOKENS = 16;
export const CLK_TCK = 100; // Linux USER_HZ: /proc/PID/stat times are in 1/100 s

const args = process.argv.slice(2);
/** --quick: shorter windows and fewer load points. */
export const quick = args.includes('--quick');
const onlyArg = args.indexOf('--only');
const only = onlyArg >= 0 ? new Set(args[onlyArg + 1]!.split(',')) : undefined;
export const wants = (part: string) => !only || only.has(part);
export type Engine = 'native' | 'node';
const enginesArg = args.indexOf('--engines');
export const ENGINES = (enginesArg >= 0 ? args[enginesArg + 1]!.split(',') : ['native', 'node']) as Engine[];
const repeatArg = args.indexOf('--repeat');
export const REPEAT = repeatArg >= 0 ? Math.max(1, Number(args[repeatArg + 1])) : 1;
/**
 * perf's endpoint for the non-streamed models: perf_analyzer sends those with ModelInfer
 * (grpc-infer), one HTTP/2 stream per request that ends with trailers; perf's default is
 * ModelStreamInfer (grpc-stream) on long-lived streams.
 */
const endpointArg = args.indexOf('--perf-endpoint');
export const UNARY_ENDPOINT = endpointArg >= 0 ? args[endpointArg + 1]! : 'grpc-infer';
export const WIRE = args.includes('--wire');
export const PREPARE = args.includes('--prepare');
export const PREBUILT = args.includes('--prebuilt');
/** Window length for both tools, ms (perf_analyzer -p, perf --windows): 3 stable windows are reported. */
export const WINDOW_MS = quick ? 1000 : 2000;
