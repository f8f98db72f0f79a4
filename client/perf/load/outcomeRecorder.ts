/**
 * OutcomeRecorder: each request's start, latency, lateness and error, the same for every load
 * mode.
 */
import { performance } from 'node:perf_hooks';
import type { LoadRun, RequestOutcome } from './loadSpec.js';

/**
 * Times requests and keeps their outcomes, the same way for every load mode: the closed loop
 * and the open loop both hand each send to `measure`, so a request's start, latency, lateness and
 * error mean the same thing whichever mode produced it.
 */
export class OutcomeRecorder<T> {
  readonly outcomes: RequestOutcome<T>[] = [];

  /**
   * @param origin performance.now() at the start of measurement; outcome times are relative to it.
   * @param keep false for warm-up: requests are sent and timed but not kept.
   */
  constructor(
    readonly origin: number,
    private readonly keep = true,
    private readonly onOutcome?: (outcome: RequestOutcome<T>) => void,
  ) {}

  /** Sends one request and records its outcome; never throws (a failure is an outcome). */
  async measure(send: () => Promise<T>, scheduledMs?: number): Promise<void> {
    const begin = performance.now();
    const outcome: RequestOutcome<T> = { startMs: begin - this.origin, latencyMs: 0 };
    if (scheduledMs !== undefined) outcome.lagMs = Math.max(0, outcome.startMs - scheduledMs);
    try {
      outcome.value = await send();
    } catch (error) {
      outcome.error = error instanceof Error ? error : new Error(String(error));
    }
    outcome.latencyMs = performance.now() - begin;
    if (!this.keep) return;
    this.outcomes.push(outcome);
    this.onOutcome?.(outcome);
  }

  /** The kept outcomes; the run lasts from measurement start to the last request's end. */
  run(): LoadRun<T> {
    const end = this.outcomes.reduce((last, o) => Math.max(last, o.startMs + o.latencyMs), 0);
    return { outcomes: this.outcomes, durationS: end / 1000 };
  }
}
