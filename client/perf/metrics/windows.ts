/** perf_analyzer's measurement windows: measure until the last few windows agree. */
import type { RequestRecord } from './metricTable.js';
import { round3 } from './summary.js';

/** perf_analyzer's measurement windows: measure in windows until the last few agree. */
export interface WindowSpec {
  /** Window length, s (perf_analyzer: 5). */
  windowS: number;
  /** Give up (and report the run unstable) after this many windows (perf_analyzer: 10). */
  maxWindows: number;
  /** Windows that must agree (perf_analyzer: 3). */
  stableWindows: number;
  /** How far each of them may lie from their mean, as a fraction (perf_analyzer: 0.1). */
  tolerance: number;
}

export const PERF_ANALYZER_WINDOWS: WindowSpec = {
  windowS: 5,
  maxWindows: 10,
  stableWindows: 3,
  tolerance: 0.1,
};

export interface MeasurementWindow {
  startS: number;
  endS: number;
  /** Requests that completed in the window, successful or not. */
  requests: number;
  /** Completed requests per second. */
  throughput: number;
  /** Mean latency of the requests that completed in the window, ms. */
  avgLatencyMs: number;
}

export interface StabilityResult {
  spec: WindowSpec;
  windows: MeasurementWindow[];
  /** The last `stableWindows` windows agreed within `tolerance` in throughput and mean latency. */
  stable: boolean;
}

/**
 * Assigns completed requests to windows by their end time and tells the load to stop once the
 * last `stableWindows` windows agree (each within `tolerance` of their mean, in throughput and in
 * mean latency — perf_analyzer's rule).
 */
export class StabilityMonitor {
  private origin = performance.now();
  private readonly latencySums: number[] = [];
  private readonly counts: number[] = [];
  /** Windows closed when the load was told to stop. */
  private stoppedAt: number | undefined;
  /** The latest end of a recorded request, s from the start of measurement. */
  private lastEndS = 0;

  constructor(readonly spec: WindowSpec) {
    if (!(spec.windowS > 0)) throw new Error(`window length must be more than 0 s (got ${spec.windowS})`);
    if (
      !Number.isInteger(spec.maxWindows) ||
      spec.maxWindows < spec.stableWindows ||
      spec.stableWindows < 1
    ) {
      throw new Error(
        `windows: need 1 ≤ stable windows (${spec.stableWindows}) ≤ max windows (${spec.maxWindows})`,
      );
    }
  }

  /** Measurement starts now (after warm-up). */
  start(): void {
    this.origin = performance.now();
  }

  record(record: RequestRecord): void {
    const endS = (record.startMs + record.latencyMs) / 1000;
    this.lastEndS = Math.max(this.lastEndS, endS);
    const index = Math.floor(endS / this.spec.windowS);
    if (index >= this.spec.maxWindows) return;
    this.counts[index] = (this.counts[index] ?? 0) + 1;
    this.latencySums[index] = (this.latencySums[index] ?? 0) + record.latencyMs;
  }

  /**
   * Windows closed so far (or when the load stopped: later completions fall outside them). A window
   * counts as closed once its time is over and a request that ended after it was recorded: requests
   * are recorded in the order they end, but the native engine hands them over in batches, so the
   * clock alone would judge a window before its last requests arrived. Once the load is over
   * (`loadEnded`), every request is in and the clock decides.
   */
  private closed(loadEnded = false): number {
    if (this.stoppedAt !== undefined) return this.stoppedAt;
    const clockS = (performance.now() - this.origin) / 1000;
    const elapsedS = loadEnded ? clockS : Math.min(clockS, this.lastEndS);
    return Math.min(this.spec.maxWindows, Math.floor(elapsedS / this.spec.windowS));
  }

  shouldStop(): boolean {
    const closed = this.closed();
    if (!this.isStable(this.windows(closed))) return false;
    this.stoppedAt = closed;
    return true;
  }

  windows(count = this.closed()): MeasurementWindow[] {
    return Array.from({ length: count }, (_, i) => {
      const requests = this.counts[i] ?? 0;
      return {
        startS: i * this.spec.windowS,
        endS: (i + 1) * this.spec.windowS,
        requests,
        throughput: round3(requests / this.spec.windowS),
        avgLatencyMs: requests > 0 ? round3((this.latencySums[i] ?? 0) / requests) : 0,
      };
    });
  }

  isStable(windows: MeasurementWindow[]): boolean {
    const last = windows.slice(-this.spec.stableWindows);
    if (last.length < this.spec.stableWindows || last.some((w) => w.requests === 0)) return false;
    const agree = (values: number[]) => {
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      return values.every((v) => Math.abs(v - mean) <= this.spec.tolerance * mean);
    };
    return agree(last.map((w) => w.throughput)) && agree(last.map((w) => w.avgLatencyMs));
  }

  /** The result once the load has ended: the windows that closed, and whether the last ones agreed. */
  result(): StabilityResult {
    const windows = this.windows(this.closed(true));
    return { spec: this.spec, windows, stable: this.isStable(windows) };
  }

  /** The time span the report measures once the load has ended: the last `stableWindows` closed windows, s. */
  reportedSpan(): { startS: number; endS: number } {
    const closed = this.closed(true);
    const first = Math.max(0, closed - this.spec.stableWindows);
    return { startS: first * this.spec.windowS, endS: closed * this.spec.windowS };
  }
}
