/** The closed loop (a fixed concurrency) and the entry that runs a load of either mode. */
import { performance } from 'node:perf_hooks';
import {
  validateLoad,
  type ConcurrencyLoad,
  type LoadHooks,
  type LoadRun,
  type LoadSpec,
} from './loadSpec.js';
import { OutcomeRecorder } from './outcomeRecorder.js';
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
  hooks: LoadHooks<T> = {},
): Promise<LoadRun<T>> {
  validateLoad(load);
  const signal = hooks.signal;
  const warmup = new OutcomeRecorder<T>(performance.now(), false);
  await runWorkers(load.concurrency, load.warmupRequests, undefined, send, warmup, () => !!signal?.aborted);
  await hooks.afterWarmup?.();

  const recorder = new OutcomeRecorder<T>(performance.now(), true, hooks.onOutcome);
  const deadline =
    load.requests === undefined && load.durationS !== undefined
      ? recorder.origin + load.durationS * 1000
      : undefined;
  const stop = () => !!signal?.aborted || !!hooks.shouldStop?.();
  await runWorkers(load.concurrency, load.requests, deadline, send, recorder, stop);
  return recorder.run();
}

/** Runs a load of either mode. */
export function runLoad<T>(
  load: LoadSpec,
  send: () => Promise<T>,
  hooks: LoadHooks<T> = {},
): Promise<LoadRun<T>> {
  return load.mode === 'concurrency'
    ? runConcurrencyLoad(load, send, hooks)
    : runRequestRateLoad(load, send, hooks);
}

async function runWorkers<T>(
  concurrency: number,
  total: number | undefined,
  deadline: number | undefined,
  send: () => Promise<T>,
  recorder: OutcomeRecorder<T>,
  stop: () => boolean,
): Promise<void> {
  if (total === 0) return;
  let issued = 0;
  const more = () =>
    !stop() &&
    (total === undefined || issued < total) &&
    (deadline === undefined || performance.now() < deadline);
  const worker = async () => {
    while (more()) {
      issued++;
      await recorder.measure(send);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
