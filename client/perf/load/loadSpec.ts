/** How a latency test applies load, and what it records per request. */
import type { ArrivalDistribution } from './schedule.js';

/** Closed loop: a fixed number of requests in flight (perf_analyzer's concurrency mode). */
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

/** Open loop: requests sent on a schedule whether or not earlier ones finished (perf_analyzer's request-rate mode). */
export interface RequestRateLoad {
  mode: 'request-rate';
  /** Requests per second offered. */
  rate: number;
  /** Gaps between sends: all equal, exponential (a Poisson arrival process) or gamma. */
  distribution: ArrivalDistribution;
  /** Seeds the gaps of random distributions: the same seed sends on the same schedule. */
  seed?: number;
  /** Gamma distribution's shape (1 = Poisson; below 1 burstier). */
  gammaShape?: number;
  requests?: number;
  durationS?: number;
  warmupRequests: number;
}

export type LoadSpec = ConcurrencyLoad | RequestRateLoad;

export interface LoadHooks<T = unknown> {
  signal?: AbortSignal;
  /** Runs between warm-up and measurement (e.g. a statistics snapshot). */
  afterWarmup?: () => Promise<unknown>;
  /** Checked before each measured send: true ends the measurement early (a stable window). */
  shouldStop?: () => boolean;
  /** Each measured outcome as it completes (live progress). */
  onOutcome?: (outcome: RequestOutcome<T>) => void;
}

export interface RequestOutcome<T> {
  /** Start of the request relative to the start of measurement, ms. */
  startMs: number;
  /** Request-rate mode: how late the send was against its schedule, ms (client overload shows here). */
  lagMs?: number;
  latencyMs: number;
  value?: T;
  error?: Error;
}

export interface LoadRun<T> {
  outcomes: RequestOutcome<T>[];
  /** From the first measured request's start to the last one's end, seconds. */
  durationS: number;
}

/** Checks what every mode shares: how many requests (or how long) and the warm-up. */
export function validateAmount(load: Pick<LoadSpec, 'requests' | 'durationS' | 'warmupRequests'>): void {
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

/** Checks a load of either mode (both engines call it, so both refuse the same loads the same way). */
export function validateLoad(load: LoadSpec): void {
  if (load.mode === 'concurrency') {
    if (!Number.isInteger(load.concurrency) || load.concurrency < 1) {
      throw new Error(`concurrency must be a whole number ≥ 1 (got ${load.concurrency})`);
    }
  } else if (!(load.rate > 0) || !Number.isFinite(load.rate)) {
    throw new Error(`request rate must be more than 0 requests/s (got ${load.rate})`);
  }
  validateAmount(load);
}
