import { build, type Histogram } from 'hdr-histogram-js';

/** Latency distribution in milliseconds, as perf_analyzer / GenAI-Perf report it. */
export interface LatencySummary {
  count: number;
  avgMs: number;
  minMs: number;
  maxMs: number;
  p50Ms: number;
  p90Ms: number;
  p95Ms: number;
  p99Ms: number;
}

/**
 * Records durations in an HDR histogram at microsecond resolution with 3 significant digits
 * (percentiles exact to 0.1%), so memory stays constant however long a test runs.
 */
export class LatencyRecorder {
  private readonly histogram: Histogram = build({
    lowestDiscernibleValue: 1,
    numberOfSignificantValueDigits: 3,
  });
  private sumUs = 0;
  // Exact extremes: the histogram reports bucket bounds, which can lie slightly off the values.
  private minUs = Infinity;
  private maxUs = 0;

  record(durationMs: number): void {
    if (!Number.isFinite(durationMs) || durationMs < 0) throw new Error(`invalid duration ${durationMs} ms`);
    const us = Math.max(1, Math.round(durationMs * 1000));
    this.histogram.recordValue(us);
    this.sumUs += us;
    this.minUs = Math.min(this.minUs, us);
    this.maxUs = Math.max(this.maxUs, us);
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  summary(): LatencySummary {
    const h = this.histogram;
    const count = h.totalCount;
    if (count === 0)
      return { count: 0, avgMs: 0, minMs: 0, maxMs: 0, p50Ms: 0, p90Ms: 0, p95Ms: 0, p99Ms: 0 };
    const ms = (us: number) => round3(us / 1000);
    // A percentile is its bucket's highest equivalent value (within 0.1%), which can lie a little
    // above the largest value recorded: keep every percentile within the exact extremes.
    const at = (percentile: number) =>
      ms(Math.min(Math.max(h.getValueAtPercentile(percentile), this.minUs), this.maxUs));
    return {
      count,
      // The mean from the exact sum, not the bucketed histogram mean.
      avgMs: ms(this.sumUs / count),
      minMs: ms(this.minUs),
      maxMs: ms(this.maxUs),
      p50Ms: at(50),
      p90Ms: at(90),
      p95Ms: at(95),
      p99Ms: at(99),
    };
  }

  /** Frees the histogram's buffers (they can be large with autoResize). */
  destroy(): void {
    this.histogram.destroy();
  }
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
