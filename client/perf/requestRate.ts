import { performance } from 'node:perf_hooks';
import {
  validateAmount,
  type LoadHooks,
  type LoadRun,
  type RequestOutcome,
  type RequestRateLoad,
} from './loadSpec.js';

/**
 * Open loop: sends requests on a schedule (equal gaps of 1/rate, or exponential gaps for Poisson
 * arrivals) without waiting for earlier ones, so queueing in the server shows up in latency the
 * way real traffic sees it. Each request's lateness against its schedule is kept: a client that
 * cannot keep up is visible in the report rather than silently lowering the offered load.
 */
export async function runRequestRateLoad<T>(
  load: RequestRateLoad,
  send: () => Promise<T>,
  hooks: LoadHooks = {},
): Promise<LoadRun<T>> {
  if (!(load.rate > 0) || !Number.isFinite(load.rate)) {
    throw new Error(`request rate must be more than 0 requests/s (got ${load.rate})`);
  }
  if (load.distribution !== 'constant' && load.distribution !== 'poisson') {
    throw new Error(`distribution must be 'constant' or 'poisson' (got '${String(load.distribution)}')`);
  }
  validateAmount(load);
  const gapMs = () =>
    load.distribution === 'constant' ? 1000 / load.rate : (-Math.log(1 - Math.random()) * 1000) / load.rate;

  if (load.warmupRequests > 0) {
    await sendOnSchedule(load.warmupRequests, undefined, gapMs, send, undefined, hooks.signal);
  }
  await hooks.afterWarmup?.();
  const outcomes: RequestOutcome<T>[] = [];
  const durationMs = load.requests === undefined ? load.durationS! * 1000 : undefined;
  const origin = performance.now();
  await sendOnSchedule(load.requests, durationMs, gapMs, send, (o) => outcomes.push(o), hooks.signal, origin);
  const end = outcomes.reduce((last, o) => Math.max(last, o.startMs + o.latencyMs), 0);
  return { outcomes, durationS: end / 1000 };
}

async function sendOnSchedule<T>(
  total: number | undefined,
  durationMs: number | undefined,
  gapMs: () => number,
  send: () => Promise<T>,
  record: ((o: RequestOutcome<T>) => void) | undefined,
  signal: AbortSignal | undefined,
  origin = performance.now(),
): Promise<void> {
  const inFlight: Promise<void>[] = [];
  let scheduledMs = 0; // the first request goes at once
  for (let sent = 0; total === undefined || sent < total; sent++) {
    if (durationMs !== undefined && scheduledMs >= durationMs) break;
    const wait = origin + scheduledMs - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (signal?.aborted) break;
    const begin = performance.now();
    const lagMs = Math.max(0, begin - origin - scheduledMs);
    inFlight.push(
      send().then(
        (value) => record?.({ startMs: begin - origin, lagMs, latencyMs: performance.now() - begin, value }),
        (error: unknown) =>
          record?.({
            startMs: begin - origin,
            lagMs,
            latencyMs: performance.now() - begin,
            error: error instanceof Error ? error : new Error(String(error)),
          }),
      ),
    );
    scheduledMs += gapMs();
  }
  await Promise.all(inFlight);
}
