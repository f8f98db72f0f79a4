/** Latency distributions: recording, percentiles and the summary a report shows. */
import { build, type Histogram } from 'hdr-histogram-js';

/** A distribution's statistics in the recorded unit (GenAI-Perf / AIPerf's fields). */
export interface DistributionStats {
  /** The value of a run metric; the mean of a record metric. */
  avg: number;
  count: number;
  min: number;
  max: number;
  std: number;
  p1: number;
  p5: number;
  p10: number;
  p25: number;
  p50: number;
  p75: number;
  p90: number;
  p95: number;
  p99: number;
}

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
 * (percentiles exact to 0.1%), so memory stays constant however long a test runs. Any other
 * non-negative quantity (tokens, tokens/s) records the same way at a resolution of 0.001.
 */
export class LatencyRecorder {
  private readonly histogram: Histogram = build({
    lowestDiscernibleValue: 1,
    numberOfSignificantValueDigits: 3,
  });
  private sumUs = 0;
  private sumSquaresUs = 0;
  // Exact extremes: the histogram reports bucket bounds, which can lie slightly off the values.
  private minUs = Infinity;
  private maxUs = 0;

  record(durationMs: number): void {
    if (!Number.isFinite(durationMs) || durationMs < 0) throw new Error(`invalid duration ${durationMs} ms`);
    const us = Math.max(1, Math.round(durationMs * 1000));
    this.histogram.recordValue(us);
    this.sumUs += us;
    this.sumSquaresUs += us * us;
    this.minUs = Math.min(this.minUs, us);
    this.maxUs = Math.max(this.maxUs, us);
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  summary(): LatencySummary {
    return latencySummary(this.stats());
  }

  /** Every statistic GenAI-Perf / AIPerf export, in the recorded unit. */
  stats(): DistributionStats {
    const h = this.histogram;
    const count = h.totalCount;
    const scale = (us: number) => round3(us / 1000);
    // A percentile is its bucket's highest equivalent value (within 0.1%), which can lie a little
    // above the largest value recorded: keep every percentile within the exact extremes.
    const at = (percentile: number) =>
      count === 0 ? 0 : scale(Math.min(Math.max(h.getValueAtPercentile(percentile), this.minUs), this.maxUs));
    // The mean and deviation from exact sums, not the bucketed histogram's.
    const mean = count > 0 ? this.sumUs / count : 0;
    const variance = count > 0 ? Math.max(0, this.sumSquaresUs / count - mean * mean) : 0;
    return {
      count,
      avg: scale(mean),
      min: count > 0 ? scale(this.minUs) : 0,
      max: scale(this.maxUs),
      std: scale(Math.sqrt(variance)),
      p1: at(1),
      p5: at(5),
      p10: at(10),
      p25: at(25),
      p50: at(50),
      p75: at(75),
      p90: at(90),
      p95: at(95),
      p99: at(99),
    };
  }

  /** Frees the histogram's buffers (they can be large with autoResize). */
  destroy(): void {
    this.histogram.destroy();
  }
}

/** The latency fields of a distribution, in ms. */
export function latencySummary(s: DistributionStats): LatencySummary {
  return {
    count: s.count,
    avgMs: s.avg,
    minMs: s.min,
    maxMs: s.max,
    p50Ms: s.p50,
    p90Ms: s.p90,
    p95Ms: s.p95,
    p99Ms: s.p99,
  };
}

/** Rounds to 0.001: reports keep µs (and 0.001-token) resolution, no float noise. */
export function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
