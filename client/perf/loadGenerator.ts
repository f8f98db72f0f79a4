import { performance } from 'node:perf_hooks';

/** How load is applied. Only fixed concurrency exists today; request-rate modes will join it here. */
export interface ConcurrencyLoad {
  mode: 'concurrency';
  /** Requests in flight at all times. */
  concurrency: number;
  /** Stop after this many measured requests… */
  requests?: number;
  /** …or after this many seconds of measurement (whichever is given; requests wins if both). */
  durationS?: number;
  /** Requests sent first and not measured (connection set-up, caches, lazy init). */
  warmupRequests: number;
}

export interface RequestOutcome<T> {
  /** Start of the request relative to the start of measurement, ms. */
  startMs: number;
  latencyMs: number;
  value?: T;
  error?: Error;
}

export interface LoadRun<T> {
  outcomes: RequestOutcome<T>[];
  /** From the first measured request's start to the last one's end, seconds. */
  durationS: number;
}

/**
 * Keeps `concurrency` requests in flight: each worker sends its next request as soon as its
 * previous one ends (closed loop, like perf_analyzer's concurrency mode). Warm-up requests go
 * first, with the same concurrency, and are not recorded.
 */
export async function runConcurrencyLoad<T>(
  load: ConcurrencyLoad,
  send: () => Promise<T>,
  hooks: { signal?: AbortSignal; afterWarmup?: () => Promise<unknown> } = {},
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

function validate(load: ConcurrencyLoad): void {
  if (!Number.isInteger(load.concurrency) || load.concurrency < 1) {
    throw new Error(`concurrency must be a whole number ≥ 1 (got ${load.concurrency})`);
  }
  if (load.requests === undefined && load.durationS === undefined) {
    throw new Error('give a number of requests or a duration');
  }
  if (load.requests !== undefined && (!Number.isInteger(load.requests) || load.requests < 1)) {
    throw new Error(`requests must be a whole number ≥ 1 (got ${load.requests})`);
  }
  if (load.durationS !== undefined && !(load.durationS > 0)) {
    throw new Error(`duration must be more than 0 seconds (got ${load.durationS})`);
  }
  if (!Number.isInteger(load.warmupRequests) || load.warmupRequests < 0) {
    throw new Error(`warm-up requests must be a whole number ≥ 0 (got ${load.warmupRequests})`);
  }
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
