/**
 * perf's native engine: the load is driven by ts-perf-driver (backends/perf-driver: one C++
 * thread, an epoll loop over an nghttp2 connection) instead of Node's event loop. Node costs
 * several wake-ups per request (socket reads, promise hops, timers), which kept perf's client CPU
 * per request at 1.3–2.8× perf_analyzer's (docs/BENCHMARKS.md); a worker thread would only move
 * the same per-request JavaScript to another core. The driver wakes Node once per batch of records
 * instead.
 *
 * What stays here, so it stays one implementation: the send schedule (seeds, Poisson, gamma are
 * drawn in TypeScript and handed over as times), the requests (encoded by the TypeScript client),
 * and every record becomes the same `RequestOutcome` the Node engine produces, so metrics,
 * windows, the stability rule and reports do not know which engine ran.
 */
import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { buildBackends } from '../../../generator/build/index.js';
import type { PromptResult } from '../../prompt.js';
import {
  validateLoad,
  type LoadHooks,
  type LoadRun,
  type LoadSpec,
  type RequestOutcome,
} from './loadSpec.js';
import { measuredSchedule, sendSchedule } from './requestRate.js';

/** How a native run reaches the server and what it sends. */
export interface NativeTarget {
  /** The ts-perf-driver binary (`nativeDriver()` builds it). */
  driver: string;
  /** host:port (plaintext gRPC). */
  url: string;
  /** ModelInfer (one response) or ModelStreamInfer (pooled streams). */
  method: 'infer' | 'stream';
  headers: Record<string, string>;
  /** Per-request deadline; default none. */
  timeoutMs?: number;
  /** One encoded ModelInferRequest (no id) per input; sends cycle through them in order. */
  requests: Buffer[];
  /** A failure as the Node engine would have reported it (the same messages, codes and classes). */
  toError: (failure: NativeFailure) => Error;
}

/** A failed request as the driver reports it. */
export interface NativeFailure {
  /** `server`: an error response inside the stream; `timeout`: the client's deadline; `status`: the call's gRPC status. */
  kind: 'server' | 'timeout' | 'status';
  /** gRPC status code (`status` and `timeout`). */
  code: number;
  message: string;
}

/** A prompt's result with the input it sent. */
export type NativeResult<I> = PromptResult & { input: I };

/** One record line of the driver (see backends/perf-driver/perf_driver.cc). */
interface DriverRecord {
  i: number;
  s: number;
  l: number;
  lag?: number;
  r: number;
  c: [number, string][];
  k?: NativeFailure['kind'];
  g?: number;
  e?: string;
}

/**
 * Environment variable naming a prebuilt ts-perf-driver: for a load-generating machine that has
 * the driver but no compiler, CMake or nghttp2 headers (the driver needs libnghttp2 and libprotobuf
 * at run time only).
 */
export const PERF_DRIVER_ENV = 'TRITON_STUDIO_PERF_DRIVER';

let built: Promise<string> | undefined;

/**
 * The ts-perf-driver binary: $TRITON_STUDIO_PERF_DRIVER when set, else
 * build/backends/perf-driver/ts-perf-driver, built (incrementally, by CMake: a no-op once built)
 * on first use.
 */
export function nativeDriver(): Promise<string> {
  const given = process.env[PERF_DRIVER_ENV];
  if (given) return prebuiltDriver(given);
  built ??= buildBackends({ targets: ['ts-perf-driver'] }).then(
    ({ buildDir }) => join(buildDir, 'perf-driver', 'ts-perf-driver'),
    (error: Error) => {
      built = undefined;
      throw new Error(
        `perf's native engine (ts-perf-driver) could not be built: ${error.message}` +
          ' — run `npm run setup` for nghttp2 and protobuf (libnghttp2-dev, libprotobuf-dev, protobuf-compiler), or use --engine node',
      );
    },
  );
  return built;
}

async function prebuiltDriver(file: string): Promise<string> {
  try {
    await access(file, constants.X_OK);
  } catch {
    throw new Error(
      `$${PERF_DRIVER_ENV} names ${file}, which is not an executable file: point it at a built ts-perf-driver, or unset it to build one here`,
    );
  }
  return file;
}

/**
 * Runs a load through the driver: warm-up first (not recorded), then `hooks.afterWarmup`, then
 * the measured requests. Cancelling (`hooks.signal`) and `hooks.shouldStop` stop the sending;
 * requests in flight finish, as in the Node engine.
 */
export async function runNativeLoad<I>(
  load: LoadSpec,
  target: NativeTarget,
  /** What each of `target.requests` was built from, in the same order (results carry it). */
  inputs: readonly I[],
  hooks: LoadHooks<NativeResult<I>> = {},
): Promise<LoadRun<NativeResult<I>>> {
  validateLoad(load);
  if (target.requests.length === 0 || target.requests.length !== inputs.length) {
    throw new Error(
      `the native engine needs one request per input (${target.requests.length} for ${inputs.length})`,
    );
  }
  const args = ['--url', target.url, '--method', target.method];
  if (target.timeoutMs !== undefined)
    args.push('--timeout-ms', String(Math.max(1, Math.round(target.timeoutMs))));
  for (const [key, value] of Object.entries(target.headers)) args.push('--header', `${key}=${value}`);
  const child = spawn(target.driver, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', (error) =>
      reject(new Error(`cannot run perf's native engine ${target.driver}: ${error.message}`)),
    );
    child.on('close', (code) => resolve(code));
  });
  exited.catch(() => undefined); // awaited below, after the output is read: not an unhandled rejection
  // A driver that died leaves a broken pipe: its exit code and stderr say why, not EPIPE.
  child.stdin.on('error', () => undefined);

  let stopSent = false;
  const stop = () => {
    if (stopSent || child.stdin.destroyed) return;
    stopSent = true;
    child.stdin.write('stop\n');
  };
  const onAbort = () => stop();
  hooks.signal?.addEventListener('abort', onAbort);
  if (hooks.signal?.aborted) stop();

  for (const request of target.requests) {
    child.stdin.write(`request ${request.length}\n`);
    child.stdin.write(request);
    child.stdin.write('\n');
  }
  child.stdin.write(loadCommands(load));
  child.stdin.write('start\n');

  const outcomes: RequestOutcome<NativeResult<I>>[] = [];
  let ended = false;
  let hookError: unknown;
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line === 'W') {
        try {
          await hooks.afterWarmup?.();
        } catch (error) {
          hookError = error;
          stop();
        }
        if (hooks.signal?.aborted) stop();
        if (!stopSent) child.stdin.write('go\n');
      } else if (line === 'E') {
        ended = true;
        child.stdin.end();
      } else if (line !== '') {
        const outcome = toOutcome(JSON.parse(line) as DriverRecord, target, inputs);
        outcomes.push(outcome);
        hooks.onOutcome?.(outcome);
        if (hooks.shouldStop?.()) stop();
      }
    }
  } finally {
    hooks.signal?.removeEventListener('abort', onAbort);
  }
  const code = await exited;
  if (hookError) throw hookError instanceof Error ? hookError : new Error(String(hookError));
  if (!ended || code !== 0) {
    throw new Error(
      `perf's native engine (ts-perf-driver) failed${code === null ? '' : ` with exit code ${code}`}: ${
        stderr.trim().replace(/^ts-perf-driver: /, '') || 'no message'
      }`,
    );
  }
  // As the Node engine: the run lasts from the start of measurement to the last request's end.
  const end = outcomes.reduce((last, o) => Math.max(last, o.startMs + o.latencyMs), 0);
  return { outcomes, durationS: end / 1000 };
}

/** The load as the driver reads it; open-loop send times drawn here, from the same schedule code as the Node engine. */
function loadCommands(load: LoadSpec): string {
  if (load.mode === 'concurrency') {
    const requests = load.requests ?? -1;
    const durationMs =
      load.requests === undefined && load.durationS !== undefined ? load.durationS * 1000 : -1;
    return `closed ${load.concurrency} ${load.warmupRequests} ${requests} ${durationMs}\n`;
  }
  const warmup = sendSchedule(load, load.warmupRequests);
  const measured = measuredSchedule(load);
  const times = (name: string, list: number[]) =>
    `${name} ${list.length}\n${list.map((t) => t.toFixed(4)).join(' ')}\n`;
  return `open\n${times('warmup-times', warmup)}${times('times', measured)}`;
}

function toOutcome<I>(
  record: DriverRecord,
  target: NativeTarget,
  inputs: readonly I[],
): RequestOutcome<NativeResult<I>> {
  const outcome: RequestOutcome<NativeResult<I>> = { startMs: record.s, latencyMs: record.l };
  if (record.lag !== undefined) outcome.lagMs = record.lag;
  if (record.k !== undefined) {
    outcome.error = target.toError({ kind: record.k, code: record.g ?? 0, message: record.e ?? '' });
    return outcome;
  }
  const chunks = record.c.map(([, text]) => text);
  const chunkMs = record.c.map(([at]) => at);
  outcome.value = {
    text: chunks.join(''),
    chunks,
    chunkMs,
    responses: record.r,
    ttftMs: chunkMs[0] ?? record.l,
    latencyMs: record.l,
    input: inputs[record.i]!,
  };
  return outcome;
}
