/** `triton-studio perf` at one load point, one engine: its --export read into the bench's figures. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TritonClient } from '../../../client/grpc/client.js';
import type { WireLatency } from '../wire-times.js';
import { wireFigures } from './capture.js';
import { withServer, type Load, type Measured } from './figures.js';
import { CLI, MAX_TOKENS, PROMPT, UNARY_ENDPOINT, WINDOW_MS, type Engine } from './settings.js';
import { runTool } from './tool-run.js';

export async function runPerf(
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

/**
 * The wire calls of perf's reported requests: after its warm-up, within its reported windows
 * (measured from its first request after the warm-up, as perf measures them).
 */
export function perfReported(
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
