/**
 * One tool run as a child process: its output, its CPU per request over the steady part of the run
 * (sampled from /proc with the server's request count), the server's side and, --wire, the packets.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { TritonClient } from '../../../client/grpc/client.js';
import type { ModelStatistics } from '../../../client/grpc/types.js';
import { statisticsDelta } from '../../../client/perf/metrics/serverStats.js';
import { inferenceCalls, type WireLatency } from '../wire-times.js';
import { startCapture } from './capture.js';
import type { Measured } from './figures.js';
import { CLK_TCK, WIRE } from './settings.js';

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
export const running = new Set<ChildProcess>();

/**
 * Runs a tool as a child process, sampling its CPU time and the server's request count; returns
 * its output and the CPU per request over the steady part of the run.
 */
export async function runTool(
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
  const capture = WIRE ? await startCapture(client.url, running) : undefined;
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
