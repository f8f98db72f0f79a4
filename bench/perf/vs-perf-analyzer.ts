/**
 * `triton-studio perf` against perf_analyzer (the reference load tool) on the same server, the same
 * model and the same load, in one run, each load point measured by both tools back to back:
 * p50 / p99 latency, streamed TTFT and ITL, throughput, client CPU per request, and the highest
 * open-loop rate each sustains. `perf` runs with both engines (`--engine native`: ts-perf-driver,
 * one C++ thread over nghttp2; `--engine node`: Node's event loop) unless --engines picks one.
 *
 *   nice -n -5 node --import tsx bench/perf/vs-perf-analyzer.ts [--quick] [--only latency,stream,rate,max]
 *       [--engines native,node] [--repeat N] [--wire] [--perf-endpoint grpc-infer|grpc-stream]
 *       [--prepare | --prebuilt]
 *
 * --repeat N measures each load point N times, the tools interleaved (perf_analyzer, perf, …,
 * perf_analyzer, perf), and reports each tool's median with its range over the N runs: a gap
 * between the tools smaller than one tool's own run-to-run range is noise, not disagreement.
 *
 * The non-streamed models go over ModelInfer for both tools (perf's grpc-infer, as perf_analyzer
 * sends them); --perf-endpoint grpc-stream sends perf's over its default, pooled ModelStreamInfer.
 *
 * The server's side, per tool run: the ensemble's mean time per request from its statistics, the
 * tool's mean latency less that ("outside server": network and client), and sim_llm's mean batch.
 * --wire adds a third clock (as root, with tcpdump: `apt-get install tcpdump`): each tool run's
 * unary calls captured on the loopback (bench/perf/wire-times.ts), their p50 and mean from the
 * packet with the request's HEADERS to the one with the server's trailers, over the requests the
 * tool reported, and the tool's mean less the wire's: what its own clock adds.
 *
 * --prepare generates and builds the models' repositories (and perf's driver) and stops; --prebuilt
 * runs on the repositories prepared before, as they are: bench/perf/remote/ uses the two to run
 * this bench on a machine with no compiler (a quiet load machine, or a lent GPU server).
 *
 * perf_analyzer is bench-only (never in the product's setup), in its own venv:
 *   python3 -m venv .cache/perf-analyzer-venv
 *   .cache/perf-analyzer-venv/bin/pip install "tritonclient[all]==2.51.0" "nvidia-cuda-runtime-cu12==12.6.77"
 *   apt-get install libb64-0d
 *
 * Models: the gpt2-sim sample (tokenize → sim-llm → detokenize) with 16 output tokens, in three
 * timings: `latency` (~9 ms a request: client overhead shows), `stream` (sim-llm decoupled, one
 * response per token: TTFT and ITL), `fast` (sim-llm at 20 µs a token, so the server keeps up at
 * thousands of requests/s and the client is what limits the rate).
 *
 * Client CPU per request: both tools run as child processes; /proc/PID/stat (user + system time of
 * all threads, plus the process's own children: perf's native engine is a child process of perf)
 * and the server's request count are sampled every 250 ms, and CPU per request is
 * the ratio over the steady middle of the run (start-up and the tail excluded), so both tools are
 * charged the same way.
 *
 * TTFT and ITL of perf_analyzer come from its --profile-export-file response timestamps, with
 * TRITON.md's definitions (TTFT = first response − request start; ITL = (latency − TTFT) /
 * (responses − 1)), as GenAI-Perf computes them. Raw results: .cache/bench/perf-vs-pa.json.
 *
 * This file is the plan and the loop; vs-perf-analyzer/ holds the tool runners (perf-analyzer.ts,
 * perf.ts, tool-run.ts, capture.ts), the models (prepare.ts), the figures and the report tables.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { deployRepository } from '../../client/deploy/index.js';
import { TritonClient } from '../../client/grpc/client.js';
import { nativeDriver } from '../../client/perf/load/nativeEngine.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { medianOf, type Load, type Measured, type Point, type Variant } from './vs-perf-analyzer/figures.js';
import { runPerf } from './vs-perf-analyzer/perf.js';
import { runPerfAnalyzer } from './vs-perf-analyzer/perf-analyzer.js';
import { prepare, repositoryOf } from './vs-perf-analyzer/prepare.js';
import { printHighestRates, printPoint } from './vs-perf-analyzer/report.js';
import {
  ENGINES,
  OUT,
  PA,
  PREBUILT,
  PREPARE,
  REPEAT,
  ROOT,
  WINDOW_MS,
  quick,
  wants,
} from './vs-perf-analyzer/settings.js';
import { running } from './vs-perf-analyzer/tool-run.js';

interface Group {
  variant: Variant;
  stream: boolean;
  loads: Load[];
}

/** The load points --only picks, grouped by model: one server per model. */
function plan(): Group[] {
  const c = (value: number): Load => ({ mode: 'concurrency', value });
  const r = (value: number): Load => ({ mode: 'request-rate', value });
  const parts: { part: string; variant: Variant; stream: boolean; loads: Load[] }[] = [
    { part: 'latency', variant: 'latency', stream: false, loads: [c(1), c(4), c(16), r(20), r(50), r(100)] },
    { part: 'stream', variant: 'stream', stream: true, loads: quick ? [c(1)] : [c(1), c(4), c(16)] },
    { part: 'rate', variant: 'fast', stream: false, loads: [r(1000), c(16)] },
    {
      part: 'max',
      variant: 'fast',
      stream: false,
      loads: (quick ? [2000, 4000] : [2000, 3000, 4000, 6000]).map(r),
    },
  ];
  const chosen = parts.filter((p) => wants(p.part));
  // One server per variant: merge parts that share one.
  const merged = new Map<Variant, Group>();
  for (const p of chosen) {
    const key = p.variant;
    const existing = merged.get(key);
    if (existing) existing.loads.push(...p.loads);
    else merged.set(key, { variant: p.variant, stream: p.stream, loads: [...p.loads] });
  }
  return [...merged.values()];
}

/** Set on SIGINT / SIGTERM: nothing more starts. */
let interrupted = false;

/** Both tools at one load point, `REPEAT` times interleaved; each tool's failure is its own. */
async function measurePoint(client: TritonClient, model: string, group: Group, load: Load): Promise<Point> {
  const dir = join(OUT, group.variant, `${load.mode}-${load.value}`);
  mkdirSync(dir, { recursive: true });
  const point: Point = { variant: group.variant, load, perf: {}, repeats: {} };
  // Each tool on its own: perf_analyzer failing to stabilise must not cost perf's numbers.
  const errors: string[] = [];
  const attempt = async (tool: string, run: () => Promise<Measured>) =>
    interrupted ||
    run().then(
      (m) => (point.repeats[tool] ??= []).push(m),
      (error: unknown) => {
        errors.push(`${tool}: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  for (let i = 0; i < REPEAT; i++) {
    await attempt('perf_analyzer', () => runPerfAnalyzer(client, model, load, group.stream, dir));
    for (const engine of ENGINES) {
      await attempt(engine, () => runPerf(client, model, load, group.stream, dir, engine));
    }
  }
  point.perfAnalyzer = medianOf(point.repeats.perf_analyzer ?? []);
  for (const engine of ENGINES) {
    const m = medianOf(point.repeats[engine] ?? []);
    if (m) point.perf[engine] = m;
  }
  if (errors.length > 0) point.error = errors.join('\n');
  return point;
}

/** One model's server, deployed, and every load point of the group on it. */
async function measureGroup(
  group: Group,
  points: Point[],
  serving: (s?: LocalServer) => void,
): Promise<void> {
  const repo = PREBUILT ? repositoryOf(group.variant) : await prepare(group.variant);
  if (!existsSync(repo)) throw new Error(`${repo} missing: run with --prepare first`);
  let client: TritonClient | undefined;
  let server: LocalServer | undefined;
  try {
    server = await startLocalServer({ modelRepository: repo });
    serving(server);
    client = new TritonClient(server.grpcUrl);
    const deployed = await deployRepository(client, { repository: repo, mode: 'local' });
    if (!deployed.ok) throw new Error(`deploying ${group.variant} failed`);
    const model = `gpt2_sim_${group.variant}`;
    for (const load of group.loads) {
      if (interrupted) break;
      const started = performance.now();
      const point = await measurePoint(client, model, group, load);
      if (interrupted) break;
      printPoint(point);
      console.log(`  (${((performance.now() - started) / 1000).toFixed(0)} s)`);
      points.push(point);
    }
  } finally {
    client?.close();
    await server?.stop();
    serving(undefined);
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(USAGE);
    return;
  }
  if (PREPARE) {
    for (const group of plan()) console.log(`prepared ${await prepare(group.variant)}`);
    if (ENGINES.includes('native')) console.log(`prepared ${await nativeDriver()}`);
    return;
  }
  if (!existsSync(PA)) {
    console.error(`${PA} missing: see the header of bench/perf/vs-perf-analyzer.ts to install perf_analyzer`);
    process.exit(1);
  }
  console.log(`columns: perf_analyzer / perf per engine (${ENGINES.join(', ')}) (×perf÷perf_analyzer)`);
  const points: Point[] = [];
  let server: LocalServer | undefined;
  // Interrupted (Ctrl-C, a time limit): stop the tools and the server rather than leave them
  // running, and start nothing more meanwhile.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted = true;
      console.log(`${signal}: stopping`);
      for (const child of running) child.kill(signal);
      void (server?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
    });
  }
  for (const group of plan()) {
    if (interrupted) break;
    await measureGroup(group, points, (s) => (server = s));
  }
  printHighestRates(points);
  const file = join(ROOT, '.cache/bench/perf-vs-pa.json');
  writeFileSync(
    file,
    JSON.stringify({ at: new Date().toISOString(), windowMs: WINDOW_MS, repeat: REPEAT, points }, null, 2),
  );
  console.log(`raw results: ${file}`);
}

const USAGE = `usage: nice -n -5 node --import tsx bench/perf/vs-perf-analyzer.ts [--quick] [--only latency,stream,rate,max]
    [--engines native,node] [--repeat N] [--wire] [--perf-endpoint grpc-infer|grpc-stream]
    [--prepare | --prebuilt]
(the header of bench/perf/vs-perf-analyzer.ts says what each does and how to install perf_analyzer)`;

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
