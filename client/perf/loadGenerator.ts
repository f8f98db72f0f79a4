import { performance } from 'node:perf_hooks';
import {
  validateAmount,
  type ConcurrencyLoad,
  type LoadHooks,
  type LoadRun,
  type LoadSpec,
  type RequestOutcome,
} from './loadSpec.js';
import { runRequestRateLoad } from './requestRate.js';

export type {
  ConcurrencyLoad,
  LoadHooks,
  LoadRun,
  LoadSpec,
  RequestOutcome,
  RequestRateLoad,
} from './loadSpec.js';

/**
 * Keeps `concurrency` requests in flight: each worker sends its next request as soon as its
 * previous one ends (closed loop, like perf_analyzer's concurrency mode). Warm-up requests go
 * first, with the same concurrency, and are not recorded.
 */
export async function runConcurrencyLoad<T>(
  load: ConcurrencyLoad,
  send: () => Promise<T>,
  hooks: LoadHooks = {},
): Promise<LoadRun<T>> {
  validate(load);
  const signal = hooks.signal;
  await runWorkers(load.concurrency, load.warmupRequests, undefined, send, undefined, signal);
  await hooks.afterWarmup?.();

  const outcomes: RequestOutcome<T>[] = [];
  const start = performance.now();
  const deadline =
    load.requests === undefined && load.durationS !== undefined ? start + load.durationS * 1000 : undefined;
  await runWorkers(load.concurrency, load.requests, deadline, send, (o) => outcomes.push(o), signal, start);
  const end = outcomes.reduce((last, o) => Math.max(last, o.startMs + o.latencyMs), 0);
  return { outcomes, durationS: end / 1000 };
}

/** Runs a load of either mode. */
export function runLoad<T>(
  load: LoadSpec,
  send: () => Promise<T>,
  hooks: LoadHooks = {},
): Promise<LoadRun<T>> {
  return load.mode === 'concurrency'
    ? runConcurrencyLoad(load, send, hooks)
    : runRequestRateLoad(load, send, hooks);
}

function validate(load: ConcurrencyLoad): void {
  if (!Number.isInteger(load.concurrency) || load.concurrency < 1) {
    throw new Error(`concurrency must be a whole number ≥ 1 (got ${load.concurrency})`);
  }
  validateAmount(load);
}

async function runWorkers<T>(
  concurrency: number,
  total: number | undefined,
  deadline: number | undefined,
  send: () => Promise<T>,
  record: ((o: RequestOutcome<T>) => void) | undefined,
  signal: AbortSignal | undefined,
  origin = performance.now(),
): Promise<void> {
  if (total === 0) return;
  let issued = 0;
  const more = () =>
    !signal?.aborted &&
    (total === undefined || issued < total) &&
    (deadline === undefined || performance.now() < deadline);
  const worker = async () => {
    while (more()) {
      issued++;
      const begin = performance.now();
      try {
        const value = await send();
        record?.({ startMs: begin - origin, latencyMs: performance.now() - begin, value });
      } catch (error) {
        record?.({
          startMs: begin - origin,
          latencyMs: performance.now() - begin,
          error: error instanceof Error ? error : new Error(String(error)),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
