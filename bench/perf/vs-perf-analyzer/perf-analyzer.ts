/** perf_analyzer at one load point: its CSV and profile export read into the bench's figures. */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TritonClient } from '../../../client/grpc/client.js';
import { wireFigures } from './capture.js';
import { percentile, withServer, type Load, type Measured } from './figures.js';
import { MAX_TOKENS, PA, PA_LIBS, PROMPT, WINDOW_MS } from './settings.js';
import { runTool } from './tool-run.js';

export async function runPerfAnalyzer(
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
  const argv = paArgv(client.url, model, load, stream, { data, csv, profile });
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

/** perf_analyzer's command line: the bench's load, windows and files. */
function paArgv(
  url: string,
  model: string,
  load: Load,
  stream: boolean,
  files: { data: string; csv: string; profile: string },
): string[] {
  const loadArgs =
    load.mode === 'concurrency'
      ? ['--concurrency-range', String(load.value)]
      : // Asynchronous: its synchronous default falls behind (1,480 of 4,000 requests/s offered here).
        ['--request-rate-range', String(load.value), '--async'];
  return [
    '-m',
    model,
    '-u',
    url,
    '-i',
    'grpc',
    '--input-data',
    files.data,
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
    files.csv,
    '--profile-export-file',
    files.profile,
    ...(stream ? ['--streaming'] : []),
  ];
}

/** One request of perf_analyzer's profile export: its start and its responses' times (ns). */
export interface ProfiledRequest {
  timestamp: number;
  response_timestamps: number[];
}

/** perf_analyzer's requests in its reported (last) experiment, as its profile export holds them. */
export function profiledRequests(profileFile: string): ProfiledRequest[] {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as {
    experiments: { requests: ProfiledRequest[] }[];
  };
  return profile.experiments.at(-1)!.requests;
}

/** Mean request latency (ms) from perf_analyzer's timestamps: its CSV has no average. */
export function meanLatency(requests: ProfiledRequest[]): number {
  const latencies = requests
    .filter((r) => r.response_timestamps.length > 0)
    .map((r) => (r.response_timestamps.at(-1)! - r.timestamp) / 1e6);
  return latencies.reduce((a, b) => a + b, 0) / latencies.length;
}

/** TTFT and ITL from perf_analyzer's response timestamps (its last experiment's requests). */
export function streamedTimes(requests: ProfiledRequest[]): Partial<Measured> {
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
