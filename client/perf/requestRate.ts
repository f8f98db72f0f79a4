import { performance } from 'node:perf_hooks';
import { validateAmount, type LoadHooks, type LoadRun, type RequestRateLoad } from './loadSpec.js';
import { OutcomeRecorder } from './outcomeRecorder.js';
import { gapSampler, seededRandom, waitUntil } from './schedule.js';

/**
 * Open loop: sends requests on a schedule (equal gaps of 1/rate, or random gaps drawn from a
 * seeded generator) without waiting for earlier ones, so queueing in the server shows up in
 * latency the way real traffic sees it. Each request's lateness against its schedule is kept: a
 * client that cannot keep up is visible in the report rather than silently lowering the offered
 * load.
 */
export async function runRequestRateLoad<T>(
  load: RequestRateLoad,
  send: () => Promise<T>,
  hooks: LoadHooks<T> = {},
): Promise<LoadRun<T>> {
  if (!(load.rate > 0) || !Number.isFinite(load.rate)) {
    throw new Error(`request rate must be more than 0 requests/s (got ${load.rate})`);
  }
  validateAmount(load);
  // One generator for warm-up and measurement: a seed fixes the whole run's schedule.
  const gapMs = gaps(load);

  if (load.warmupRequests > 0) {
    const warmup = new OutcomeRecorder<T>(performance.now(), false);
    await sendOnSchedule(load.warmupRequests, undefined, gapMs, send, warmup, () => !!hooks.signal?.aborted);
  }
  await hooks.afterWarmup?.();
  const recorder = new OutcomeRecorder<T>(performance.now(), true, hooks.onOutcome);
  const durationMs = load.requests === undefined ? load.durationS! * 1000 : undefined;
  const stop = () => !!hooks.signal?.aborted || !!hooks.shouldStop?.();
  await sendOnSchedule(load.requests, durationMs, gapMs, send, recorder, stop);
  return recorder.run();
}

/** The send times (ms from the start) a load offers: what a seed reproduces. */
export function sendSchedule(load: RequestRateLoad, count: number): number[] {
  const gapMs = gaps(load);
  const times: number[] = [];
  for (let at = 0; times.length < count; at += gapMs()) times.push(at);
  return times;
}

function gaps(load: RequestRateLoad): () => number {
  const random = load.seed === undefined ? Math.random : seededRandom(load.seed);
  return gapSampler(load.distribution, load.rate, random, load.gammaShape);
}

async function sendOnSchedule<T>(
  total: number | undefined,
  durationMs: number | undefined,
  gapMs: () => number,
  send: () => Promise<T>,
  recorder: OutcomeRecorder<T>,
  stop: () => boolean,
): Promise<void> {
  const inFlight: Promise<void>[] = [];
  let scheduledMs = 0; // the first request goes at once
  for (let sent = 0; total === undefined || sent < total; sent++) {
    if (durationMs !== undefined && scheduledMs >= durationMs) break;
    await waitUntil(recorder.origin + scheduledMs, () => performance.now());
    if (stop()) break;
    inFlight.push(recorder.measure(send, scheduledMs));
    scheduledMs += gapMs();
  }
  await Promise.all(inFlight);
}
