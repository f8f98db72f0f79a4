/** The open loop: requests sent on a schedule without waiting for earlier ones. */
import { validateLoad, type LoadHooks, type LoadRun, type RequestRateLoad } from './loadSpec.js';
import { OutcomeRecorder } from './outcomeRecorder.js';
import { Pacer } from './pacer.js';
import { gapSampler, seededRandom } from './schedule.js';

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
  validateLoad(load);
  if (load.warmupRequests > 0) {
    const warmup = (origin: number) => new OutcomeRecorder<T>(origin, false);
    await sendOnSchedule(load, load.warmupRequests, undefined, send, warmup, () => !!hooks.signal?.aborted);
  }
  await hooks.afterWarmup?.();
  let recorder: OutcomeRecorder<T> | undefined;
  const measured = (origin: number) => (recorder = new OutcomeRecorder<T>(origin, true, hooks.onOutcome));
  const durationMs = load.requests === undefined ? load.durationS! * 1000 : undefined;
  const stop = () => !!hooks.signal?.aborted || !!hooks.shouldStop?.();
  await sendOnSchedule(load, load.requests, durationMs, send, measured, stop);
  return recorder!.run();
}

/**
 * The send times (ms from the start) a load offers: what a seed reproduces. The first `count`, or
 * with `durationMs` every time before it ends.
 */
export function sendSchedule(
  load: RequestRateLoad,
  count: number | undefined,
  durationMs?: number,
): number[] {
  const gapMs = gaps(load);
  const times: number[] = [];
  const more = (at: number) =>
    (count === undefined || times.length < count) && (durationMs === undefined || at < durationMs);
  for (let at = 0; more(at); at += gapMs()) times.push(at);
  return times;
}

/** The measured send times of a load, as `sendOnSchedule` sends them (perf's native engine is handed these). */
export function measuredSchedule(load: RequestRateLoad): number[] {
  return load.requests !== undefined
    ? sendSchedule(load, load.requests)
    : sendSchedule(load, undefined, load.durationS! * 1000);
}

function gaps(load: RequestRateLoad): () => number {
  const random = load.seed === undefined ? Math.random : seededRandom(load.seed);
  return gapSampler(load.distribution, load.rate, random, load.gammaShape);
}

/**
 * Sends on the load's schedule (measured from when the pacer is ready: `recorder(origin)`); each
 * phase draws its gaps afresh from the seed, so the measured sends follow `sendSchedule` exactly.
 */
async function sendOnSchedule<T>(
  load: RequestRateLoad,
  total: number | undefined,
  durationMs: number | undefined,
  send: () => Promise<T>,
  recorder: (origin: number) => OutcomeRecorder<T>,
  stop: () => boolean,
): Promise<void> {
  const gapMs = gaps(load);
  let offsetMs = 0; // the first request goes at once
  let origin = 0;
  const pacer = await Pacer.start((start) => {
    origin = start;
    const at = start + offsetMs;
    offsetMs += gapMs();
    return at;
  });
  const kept = recorder(origin);
  const inFlight: Promise<void>[] = [];
  try {
    for (let sent = 0; total === undefined || sent < total; sent++) {
      if (durationMs !== undefined && pacer.upcoming() - origin >= durationMs) break;
      const at = await pacer.next();
      if (stop()) break;
      inFlight.push(kept.measure(send, at - origin));
    }
  } finally {
    pacer.close();
  }
  await Promise.all(inFlight);
}
