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
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { deployRepository } from '../../client/deploy/index.js';
import { TritonClient } from '../../client/grpc/client.js';
import type { ModelStatistics } from '../../client/grpc/types.js';
import { nativeDriver } from '../../client/perf/load/nativeEngine.js';
import { statisticsDelta } from '../../client/perf/metrics/serverStats.js';
import { LatencyRecorder } from '../../client/perf/metrics/summary.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository, hasErrors } from '../../generator/index.js';
import { inferenceCalls, wireLatencies, type WireLatency } from './wire-times.js';

const ROOT = resolve(__dirname, '../..');
const OUT = join(ROOT, '.cache/bench/perf-vs-pa');
const VENV = join(ROOT, '.cache/perf-analyzer-venv');
const PA = join(VENV, 'bin/perf_analyzer');
const PA_LIBS = join(VENV, 'lib/python3.11/site-packages/nvidia/cuda_runtime/lib');
const CLI = join(ROOT, 'bin/triton-studio.js');
const PROMPT = 'The quick brown fox jumps over the lazy dog';
const MAX_TOKENS = 16;
const CLK_TCK = 100; // Linux USER_HZ: /proc/PID/stat times are in 1/100 s

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyArg = args.indexOf('--only');
const only = onlyArg >= 0 ? new Set(args[onlyArg + 1]!.split(',')) : undefined;
const wants = (part: string) => !only || only.has(part);
type Engine = 'native' | 'node';
const enginesArg = args.indexOf('--engines');
const ENGINES = (enginesArg >= 0 ? args[enginesArg + 1]!.split(',') : ['native', 'node']) as Engine[];
const repeatArg = args.indexOf('--repeat');
const REPEAT = repeatArg >= 0 ? Math.max(1, Number(args[repeatArg + 1])) : 1;
/**
 * perf's endpoint for the non-streamed models: perf_analyzer sends those with ModelInfer
 * (grpc-infer), one HTTP/2 stream per request that ends with trailers; perf's default is
 * ModelStreamInfer (grpc-stream) on long-lived streams.
 */
const endpointArg = args.indexOf('--perf-endpoint');
const UNARY_ENDPOINT = endpointArg >= 0 ? args[endpointArg + 1]! : 'grpc-infer';
const WIRE = args.includes('--wire');
const PREPARE = args.includes('--prepare');
const PREBUILT = args.includes('--prebuilt');
/** Window length for both tools, ms (perf_analyzer -p, perf --windows): 3 stable windows are reported. */
const WINDOW_MS = quick ? 1000 : 2000;

type Variant = 'latency' | 'stream' | 'fast';
const TIMINGS: Record<Variant, { prefill: number; decode: number }> = {
  latency: { prefill: 50, decode: 500 },
  stream: { prefill: 50, decode: 500 },
  fast: { prefill: 5, decode: 20 },
};

interface Load {
  mode: 'concurrency' | 'request-rate';
  value: number;
}

/** What one tool measured at one load point (ms, requests/s, µs of CPU per request). */
interface Measured {
  p50: number;
  p99: number;
  mean: number;
  /** The server's own mean time per request of the ensemble over the tool's run (its statistics). */
  serverMean?: number;
  /** mean − serverMean: what lies outside the server (client and transport), as the tool times it. */
  outsideServer?: number;
  /** sim_llm's mean batch size over the tool's run (inferences ÷ executions). */
  modelBatch?: number;
  /** --wire: the same requests' p50 and mean latency on the wire (a packet capture of the server's port). */
  wireP50?: number;
  wireMean?: number;
  /**
   * mean − wire mean: the tool's own share of the latency it reports (its clock outside the wire).
   * Means, not p50s: with batching the latencies are bimodal, and a p50 jumps between the modes.
   */
  ownMean?: number;
  throughput: number;
  ttftP50?: number;
  ttftP99?: number;
  itlP50?: number;
  itlP99?: number;
  cpuUsPerRequest?: number;
  /** perf: send lateness p99 (ms) in request-rate mode. */
  sendLagP99?: number;
  stable?: boolean;
}

interface Point {
  variant: Variant;
  load: Load;
  /** The median of each figure over the repeats. */
  perfAnalyzer?: Measured;
  /** perf per engine, medians over the repeats. */
  perf: Partial<Record<Engine, Measured>>;
  /** Every repeat, per tool ('perf_analyzer' or the engine). */
  repeats: Record<string, Measured[]>;
  error?: string;
}

/** Each figure's median over the runs (the runs' own figures are kept in Point.repeats). */
function medianOf(runs: Measured[]): Measured | undefined {
  if (runs.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(runs[0]!) as (keyof Measured)[]) {
    if (key === 'stable') {
      out.stable = runs.every((r) => r.stable !== false);
      continue;
    }
    const values = runs.map((r) => r[key]).filter((v): v is number => typeof v === 'number');
    out[key] = values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
  }
  return out as unknown as Measured;
}

function range(runs: Measured[] | undefined, key: keyof Measured): string {
  const values = (runs ?? []).map((r) => r[key]).filter((v): v is number => typeof v === 'number');
  return values.length < 2 ? '' : ` [${fmt(Math.min(...values))}–${fmt(Math.max(...values))}]`;
}

/** The variant's model repository, prepared (generated and built) by this run or, --prebuilt, before it. */
const repositoryOf = (variant: Variant) => join(OUT, variant, 'repo');

/** Generates the variant's repository (a fresh one) and builds its steps. */
async function prepare(variant: Variant): Promise<string> {
  const pipeline = JSON.parse(
    readFileSync(join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'),
  ) as {
    name: string;
    inputs: Record<string, unknown>[];
    wires: Record<string, unknown>[];
    steps: Record<string, unknown>[];
  };
  pipeline.name = `gpt2_sim_${variant}`;
  const timing = TIMINGS[variant];
  for (const step of pipeline.steps) {
    if (step.name !== 'sim_llm') continue;
    step.parameters = { prefill_us_per_token: timing.prefill, decode_us_per_step: timing.decode };
    if (variant === 'stream') {
      step.decoupled = true;
      step.inputs = [{ name: 'streaming', dataType: 'BOOL', dims: [1], optional: true }];
    }
  }
  if (variant === 'stream') {
    pipeline.inputs.push({ name: 'stream', dataType: 'BOOL', dims: [1], optional: true });
    pipeline.wires.push({ from: 'stream', to: 'sim_llm.streaming' });
  }
  const dir = join(OUT, variant);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'pipeline.json');
  writeFileSync(file, JSON.stringify(pipeline));
  const repo = repositoryOf(variant);
  const { diagnostics } = generateRepository({ pipelinePath: file, outDir: repo });
  if (hasErrors(diagnostics)) throw new Error(`generating ${variant}: ${JSON.stringify(diagnostics)}`);
  await buildRepository(repo);
  return repo;
}

/**
 * CPU time of a process and everything under it, in µs: its utime + stime (all threads), its
 * reaped children's (cutime + cstime), and its live descendants' own.
 */
function cpuUs(pid: number, top = true): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is state (field 3); utime is field 14, stime 15, cutime 16, cstime 17.
    let ticks = Number(fields[11]) + Number(fields[12]);
    if (top) ticks += Number(fields[13]) + Number(fields[14]);
    let us = (ticks * 1e6) / CLK_TCK;
    for (const child of childPids(pid)) us += cpuUs(child, false) ?? 0;
    return us;
  } catch {
    return undefined;
  }
}

function childPids(pid: number): number[] {
  try {
    const tasks = readdirSync(`/proc/${pid}/task`);
    return tasks.flatMap((t) =>
      readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** What the server saw between two statistics snapshots: the ensemble's mean time per request (ms) and sim_llm's mean batch. */
function serverSide(
  model: string,
  before: ModelStatistics[],
  after: ModelStatistics[],
): Pick<Measured, 'serverMean' | 'modelBatch'> {
  const rows = statisticsDelta(before, after);
  return {
    serverMean: rows.find((r) => r.model === model)?.avgRequestMs,
    modelBatch: rows.find((r) => r.model === 'sim_llm')?.meanBatchSize,
  };
}

async function requestCount(client: TritonClient, model: string): Promise<number> {
  const stats = await client.modelStatistics(model);
  return stats.reduce(
    (n, s) => n + (s.inference_stats?.success?.count ?? 0) + (s.inference_stats?.fail?.count ?? 0),
    0,
  );
}

/** The tools running now: an interrupted bench stops them too. */
const running = new Set<ChildProcess>();

/**
 * Runs a tool as a child process, sampling its CPU time and the server's request count; returns
 * its output and the CPU per request over the steady part of the run.
 */
async function runTool(
  client: TritonClient,
  model: string,
  command: string,
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{
  stdout: string;
  stderr: string;
  code: number | null;
  cpuUsPerRequest?: number;
  server: Pick<Measured, 'serverMean' | 'modelBatch'>;
  /** --wire: the unary calls of the load as the capture saw them. */
  wire?: WireLatency[];
}> {
  const before = await client.modelStatistics();
  const capture = WIRE ? await startCapture(client.url) : undefined;
  const child = spawn(command, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.on('close', () => running.delete(child));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const samples: { cpu: number; count: number }[] = [];
  let done = false;
  const exited = new Promise<number | null>((r) =>
    child.on('close', (code) => {
      done = true;
      r(code);
    }),
  );
  while (!done) {
    const cpu = cpuUs(child.pid!);
    const count = await requestCount(client, model).catch(() => undefined);
    if (cpu !== undefined && count !== undefined) samples.push({ cpu, count });
    await Promise.race([exited, new Promise((r) => setTimeout(r, 250))]);
  }
  const code = await exited;
  const server = serverSide(model, before, await client.modelStatistics());
  const wire = capture && inferenceCalls(await capture.stop());
  return { stdout, stderr, code, cpuUsPerRequest: steadyCpuPerRequest(samples), server, wire };
}

/**
 * Captures the server's gRPC port on the loopback with tcpdump (bench-only: `apt-get install
 * tcpdump`, as root) until `stop`, which returns the unary calls it saw (bench/perf/wire-times.ts).
 */
async function startCapture(url: string): Promise<{ stop: () => Promise<WireLatency[]> }> {
  const port = Number(url.split(':').at(-1));
  const file = join(OUT, 'capture.pcap'); // the last tool run's, for a look with tcpdump -r
  const argv = [
    '-i',
    'lo',
    '-s',
    '0',
    '--time-stamp-precision=nano',
    '-U',
    '-w',
    file,
    'tcp',
    'port',
    String(port),
  ];
  const tcpdump = spawn('tcpdump', argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(tcpdump);
  const closed = new Promise<number | null>((r) => tcpdump.on('close', r));
  let stderr = '';
  await new Promise<void>((ready, fail) => {
    tcpdump.on('error', (e) =>
      fail(new Error(`--wire needs tcpdump (apt-get install tcpdump): ${e.message}`)),
    );
    tcpdump.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes('listening on')) ready();
    });
    void closed.then((code) => fail(new Error(`tcpdump exited (${code}): ${stderr.trim()}`)));
  });
  return {
    stop: async () => {
      tcpdump.kill('SIGINT');
      await closed;
      running.delete(tcpdump);
      return wireLatencies(file, port);
    },
  };
}

/**
 * The wire calls of perf's reported requests: after its warm-up, within its reported windows
 * (measured from its first request after the warm-up, as perf measures them).
 */
function perfReported(
  calls: WireLatency[] | undefined,
  warmup: number,
  stability?: { spec: { stableWindows: number }; windows: { startS: number; endS: number }[] },
): (c: WireLatency, i: number) => boolean {
  const start = calls?.[warmup]?.startNs;
  if (!stability || start === undefined) return (_, i) => i >= warmup;
  const reported = stability.windows.slice(-stability.spec.stableWindows);
  const from = start + BigInt(Math.round(reported[0]!.startS * 1e9));
  const to = start + BigInt(Math.round(reported.at(-1)!.endS * 1e9));
  return (c, i) => i >= warmup && c.startNs >= from && c.startNs < to;
}

/** p50 and mean (ms) of the wire latencies of the calls `keep` selects, and the tool's mean less the wire's. */
function wireFigures(
  toolMean: number,
  calls: WireLatency[] | undefined,
  keep: (c: WireLatency, i: number) => boolean,
): Pick<Measured, 'wireP50' | 'wireMean' | 'ownMean'> {
  const kept = (calls ?? []).filter(keep).map((c) => c.latencyMs);
  if (kept.length === 0) return {};
  const wireMean = kept.reduce((a, b) => a + b, 0) / kept.length;
  return { wireP50: percentile(kept, 50), wireMean, ownMean: toolMean - wireMean };
}

/** CPU per request between the second sample after requests start and the second-last before they stop. */
function steadyCpuPerRequest(samples: { cpu: number; count: number }[]): number | undefined {
  const first = samples.findIndex((s, i) => i > 0 && s.count > samples[i - 1]!.count);
  let last = samples.length - 1;
  while (last > 0 && samples[last]!.count === samples[last - 1]!.count) last--;
  const from = first + 1;
  const to = last - 1;
  if (first < 0 || to - from < 2) return undefined;
  const requests = samples[to]!.count - samples[from]!.count;
  return requests > 0 ? (samples[to]!.cpu - samples[from]!.cpu) / requests : undefined;
}

function withServer(
  mean: number,
  server: Pick<Measured, 'serverMean' | 'modelBatch'>,
): Pick<Measured, 'serverMean' | 'outsideServer' | 'modelBatch'> {
  return {
    ...server,
    outsideServer: server.serverMean === undefined ? undefined : mean - server.serverMean,
  };
}

function percentile(values: number[], p: number): number {
  const r = new LatencyRecorder();
  for (const v of values) r.record(v);
  const s = r.stats();
  r.destroy();
  return (p === 50 ? s.p50 : s.p99)!;
}

async function runPerfAnalyzer(
  client: TritonClient,
  model: string,
  load: Load,
  stream: boolean,
  dir: string,
): Promise<Measured> {
  const data = join(dir, 'pa-input.json');
  const row: Record<string, unknown[]> = { text_input: [PROMPT], max_tokens: [MAX_TOKENS] };
  if (stream) row.stream = [true];
  writeFileSync(data, JSON.stringify({ data: [row] }));
  const csv = join(dir, 'pa.csv');
  const profile = join(dir, 'pa-profile.json');
  rmSync(profile, { force: true }); // perf_analyzer refuses to overwrite it (a repeat, or an earlier run)
  const loadArgs =
    load.mode === 'concurrency'
      ? ['--concurrency-range', String(load.value)]
      : // Asynchronous: its synchronous default falls behind (1,480 of 4,000 requests/s offered here).
        ['--request-rate-range', String(load.value), '--async'];
  const argv = [
    '-m',
    model,
    '-u',
    client.url,
    '-i',
    'grpc',
    '--input-data',
    data,
    ...loadArgs,
    '--measurement-mode',
    'time_windows',
    '-p',
    String(WINDOW_MS),
    '--max-trials',
    '10',
    '-s',
    '10',
    '-f',
    csv,
    '--profile-export-file',
    profile,
    ...(stream ? ['--streaming'] : []),
  ];
  const env = {
    ...process.env,
    LD_LIBRARY_PATH: [PA_LIBS, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
  };
  const run = await runTool(client, model, PA, argv, env);
  if (run.code !== 0) {
    // Its usage text follows the reason: keep the reason.
    const reason = (run.stderr || run.stdout).split('\n').slice(0, 2).join('\n');
    throw new Error(`perf_analyzer failed (${run.code}): ${reason}`);
  }
  const [header, values] = readFileSync(csv, 'utf8').trim().split('\n');
  const cols = header!.split(',');
  const vals = values!.split(',').map(Number);
  const col = (name: string) => vals[cols.indexOf(name)]!;
  const requests = profiledRequests(profile);
  const mean = meanLatency(requests);
  const measured: Measured = {
    p50: col('p50 latency') / 1000,
    p99: col('p99 latency') / 1000,
    mean,
    ...withServer(mean, run.server),
    throughput: col('Inferences/Second'),
    cpuUsPerRequest: run.cpuUsPerRequest,
    stable: !/Failed to obtain stable measurement/.test(run.stdout + run.stderr),
  };
  if (run.wire) {
    // Its reported requests are the profile's: those that went out within their time span.
    const starts = requests.map((r) => BigInt(r.timestamp));
    const [first, last] = [
      starts.reduce((a, b) => (a < b ? a : b)),
      starts.reduce((a, b) => (a > b ? a : b)),
    ];
    Object.assign(
      measured,
      wireFigures(mean, run.wire, (c) => c.startNs >= first && c.startNs <= last + 5_000_000n),
    );
  }
  if (stream) Object.assign(measured, streamedTimes(requests));
  return measured;
}

/** One request of perf_analyzer's profile export: its start and its responses' times (ns). */
interface ProfiledRequest {
  timestamp: number;
  response_timestamps: number[];
}

/** perf_analyzer's requests in its reported (last) experiment, as its profile export holds them. */
function profiledRequests(profileFile: string): ProfiledRequest[] {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as {
    experiments: { requests: ProfiledRequest[] }[];
  };
  return profile.experiments.at(-1)!.requests;
}

/** Mean request latency (ms) from perf_analyzer's timestamps: its CSV has no average. */
function meanLatency(requests: ProfiledRequest[]): number {
  const latencies = requests
    .filter((r) => r.response_timestamps.length > 0)
    .map((r) => (r.response_timestamps.at(-1)! - r.timestamp) / 1e6);
  return latencies.reduce((a, b) => a + b, 0) / latencies.length;
}

/** TTFT and ITL from perf_analyzer's response timestamps (its last experiment's requests). */
function streamedTimes(requests: ProfiledRequest[]): Partial<Measured> {
  const ttft: number[] = [];
  const itl: number[] = [];
  for (const r of requests) {
    // The last response of a decoupled request may be the empty final flag: GenAI-Perf drops
    // responses without output; sim-llm's final response carries the last token.
    const times = r.response_timestamps;
    if (times.length === 0) continue;
    const first = (times[0]! - r.timestamp) / 1e6;
    const latency = (times.at(-1)! - r.timestamp) / 1e6;
    ttft.push(first);
    if (times.length > 1) itl.push((latency - first) / (times.length - 1));
  }
  return {
    ttftP50: percentile(ttft, 50),
    ttftP99: percentile(ttft, 99),
    itlP50: percentile(itl, 50),
    itlP99: percentile(itl, 99),
  };
}

async function runPerf(
  client: TritonClient,
  model: string,
  load: Load,
  stream: boolean,
  dir: string,
  engine: Engine,
): Promise<Measured> {
  const exported = join(dir, `perf-${engine}.json`);
  const warmup = load.mode === 'concurrency' ? 4 * load.value : Math.min(200, Math.ceil(load.value / 4));
  const argv = [
    CLI,
    'perf',
    '--engine',
    engine,
    '--url',
    client.url,
    '--model',
    model,
    load.mode === 'concurrency' ? '--concurrency' : '--request-rate',
    String(load.value),
    '--windows',
    String(WINDOW_MS / 1000),
    '--warmup',
    String(warmup),
    '--max-tokens',
    String(MAX_TOKENS),
    '--prompt',
    PROMPT,
    '--export',
    exported,
    '--json',
    ...(stream ? ['--stream'] : ['--endpoint', UNARY_ENDPOINT]),
  ];
  const run = await runTool(client, model, process.execPath, argv);
  if (run.code !== 0) throw new Error(`perf failed (${run.code}): ${run.stderr}`);
  const report = JSON.parse(readFileSync(exported, 'utf8')) as {
    metrics: Record<string, { avg: number; p50?: number; p99?: number }>;
    stability?: {
      stable: boolean;
      spec: { stableWindows: number };
      windows: { startS: number; endS: number }[];
    };
  };
  const m = report.metrics;
  const mean = m.request_latency!.avg;
  return {
    p50: m.request_latency!.p50!,
    p99: m.request_latency!.p99!,
    mean,
    ...withServer(mean, run.server),
    throughput: m.request_throughput!.avg,
    ttftP50: m.time_to_first_token?.p50,
    ttftP99: m.time_to_first_token?.p99,
    itlP50: m.inter_token_latency?.p50,
    itlP99: m.inter_token_latency?.p99,
    cpuUsPerRequest: run.cpuUsPerRequest,
    sendLagP99: m.send_lag?.p99,
    stable: report.stability?.stable,
    ...wireFigures(mean, run.wire, perfReported(run.wire, warmup, report.stability)),
  };
}

function plan(): { variant: Variant; stream: boolean; loads: Load[] }[] {
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
  const merged = new Map<Variant, { variant: Variant; stream: boolean; loads: Load[] }>();
  for (const p of chosen) {
    const key = p.variant;
    const existing = merged.get(key);
    if (existing) existing.loads.push(...p.loads);
    else merged.set(key, { variant: p.variant, stream: p.stream, loads: [...p.loads] });
  }
  return [...merged.values()];
}

/** An open-loop rate is sustained when nearly all of it is served without a growing queue. */
function sustained(load: Load, m: Measured | undefined): boolean {
  return !!m && load.mode === 'request-rate' && m.throughput >= 0.97 * load.value && m.p99 < 25;
}

const ratio = (a?: number, b?: number) => (a !== undefined && b ? (a / b).toFixed(3) : '—');
const fmt = (v?: number, digits = 2) => (v === undefined ? '—' : v.toFixed(digits));

function printPoint(p: Point): void {
  const label = `${p.variant} ${p.load.mode === 'concurrency' ? 'c=' : 'rate='}${p.load.value}`;
  if (p.error) console.log(`${label}: ${p.error.trim()}`);
  if (!p.perfAnalyzer && Object.keys(p.perf).length === 0) return;
  const a: Partial<Measured> = p.perfAnalyzer ?? {};
  const keys: [string, keyof Measured][] = [
    ['p50 ms', 'p50'],
    ['p99 ms', 'p99'],
    ['mean ms', 'mean'],
    ['server mean', 'serverMean'],
    ['outside server', 'outsideServer'],
    ['sim_llm batch', 'modelBatch'],
    ['wire p50', 'wireP50'],
    ['wire mean', 'wireMean'],
    ['own (mean)', 'ownMean'],
    ['req/s', 'throughput'],
    ['TTFT p50', 'ttftP50'],
    ['TTFT p99', 'ttftP99'],
    ['ITL p50', 'itlP50'],
    ['ITL p99', 'itlP99'],
    ['CPU µs/req', 'cpuUsPerRequest'],
  ];
  const rows = keys
    .filter(([, k]) => a[k] !== undefined || ENGINES.some((e) => p.perf[e]?.[k] !== undefined))
    .map(([name, k]) => {
      const x = a[k] as number | undefined;
      const perEngine = ENGINES.map((e) => {
        const y = p.perf[e]?.[k] as number | undefined;
        return `${e} ${fmt(y)}${range(p.repeats[e], k)} (×${ratio(y, x)})`;
      });
      return `${name} ${fmt(x)}${range(p.repeats.perf_analyzer, k)} / ${perEngine.join(' / ')}`;
    });
  const notes = ENGINES.flatMap((e) => {
    const m = p.perf[e];
    const out: string[] = [];
    if (m?.sendLagP99 !== undefined) out.push(`${e} send lag p99 ${fmt(m.sendLagP99)} ms`);
    if (m?.stable === false) out.push(`perf ${e} unstable`);
    return out;
  });
  if (a.stable === false) notes.push('perf_analyzer unstable');
  console.log(`${label}:\n  ${[...rows, ...notes].join('\n  ')}`);
}

async function main(): Promise<void> {
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
  let interrupted = false;
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
    const repo = PREBUILT ? repositoryOf(group.variant) : await prepare(group.variant);
    if (!existsSync(repo)) throw new Error(`${repo} missing: run with --prepare first`);
    let client: TritonClient | undefined;
    try {
      server = await startLocalServer({ modelRepository: repo });
      client = new TritonClient(server.grpcUrl);
      const deployed = await deployRepository(client, { repository: repo, mode: 'local' });
      if (!deployed.ok) throw new Error(`deploying ${group.variant} failed`);
      const model = `gpt2_sim_${group.variant}`;
      for (const load of group.loads) {
        if (interrupted) break;
        const dir = join(OUT, group.variant, `${load.mode}-${load.value}`);
        mkdirSync(dir, { recursive: true });
        const point: Point = { variant: group.variant, load, perf: {}, repeats: {} };
        const started = performance.now();
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
          await attempt('perf_analyzer', () => runPerfAnalyzer(client!, model, load, group.stream, dir));
          for (const engine of ENGINES) {
            await attempt(engine, () => runPerf(client!, model, load, group.stream, dir, engine));
          }
        }
        point.perfAnalyzer = medianOf(point.repeats.perf_analyzer ?? []);
        for (const engine of ENGINES) {
          const m = medianOf(point.repeats[engine] ?? []);
          if (m) point.perf[engine] = m;
        }
        if (interrupted) break;
        if (errors.length > 0) point.error = errors.join('\n');
        printPoint(point);
        console.log(`  (${((performance.now() - started) / 1000).toFixed(0)} s)`);
        points.push(point);
      }
    } finally {
      client?.close();
      await server?.stop();
      server = undefined;
    }
  }
  const rates = points.filter((p) => p.variant === 'fast' && p.load.mode === 'request-rate');
  const best = (measured: (p: Point) => Measured | undefined) =>
    Math.max(0, ...rates.filter((p) => sustained(p.load, measured(p))).map((p) => p.load.value));
  if (rates.length > 0) {
    console.log(
      `highest open-loop rate sustained (≥97% served, p99 < 25 ms): perf_analyzer ${best((p) => p.perfAnalyzer)}/s, ` +
        ENGINES.map((e) => `perf ${e} ${best((p) => p.perf[e])}/s`).join(', '),
    );
  }
  const file = join(ROOT, '.cache/bench/perf-vs-pa.json');
  writeFileSync(
    file,
    JSON.stringify({ at: new Date().toISOString(), windowMs: WINDOW_MS, repeat: REPEAT, points }, null, 2),
  );
  console.log(`raw results: ${file}`);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
