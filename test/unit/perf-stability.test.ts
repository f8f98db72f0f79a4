/** When perf's numbers can be trusted: confidence intervals over repeated runs, and perf_analyzer's stability windows. */
import { describe, expect, it, vi } from 'vitest';
import { interval } from '../../client/perf/sweep.js';
import { StabilityMonitor } from '../../client/perf/metrics/windows.js';

describe('confidence intervals', () => {
  it("is mean ± t·s/√n with Student's t", () => {
    expect(interval([10])).toEqual({ mean: 10, halfWidth: 0, runs: 1 });
    // n = 4, s = 1.291, t(3) = 3.182: 3.182 · 1.291 / 2 = 2.054
    expect(interval([1, 2, 3, 4])).toEqual({ mean: 2.5, halfWidth: 2.054, runs: 4 });
  });
});

describe('stability windows (perf_analyzer: the last 3 within 10%)', () => {
  const spec = { windowS: 1, maxWindows: 10, stableWindows: 3, tolerance: 0.1 };
  const window = (requests: number, avgLatencyMs: number, i = 0) => ({
    startS: i,
    endS: i + 1,
    requests,
    throughput: requests,
    avgLatencyMs,
  });
  it('needs three windows agreeing in throughput and latency', () => {
    const m = new StabilityMonitor(spec);
    expect(m.isStable([window(100, 10), window(100, 10)])).toBe(false);
    expect(m.isStable([window(50, 10), window(100, 10), window(105, 10.5), window(98, 9.8)])).toBe(true);
    expect(m.isStable([window(100, 10), window(100, 10), window(130, 10)])).toBe(false);
    expect(m.isStable([window(100, 10), window(100, 13), window(100, 10)])).toBe(false);
    expect(m.isStable([window(0, 0), window(0, 0), window(0, 0)])).toBe(false);
  });

  it('assigns requests to windows by their end', () => {
    const m = new StabilityMonitor(spec);
    const r = (endMs: number, latencyMs: number) => ({
      startMs: endMs - latencyMs,
      latencyMs,
      responseMs: [],
      responseTokens: [],
    });
    m.record(r(500, 100));
    m.record(r(1500, 300));
    m.record(r(1900, 100));
    expect(m.windows(2)).toEqual([
      { startS: 0, endS: 1, requests: 1, throughput: 1, avgLatencyMs: 100 },
      { startS: 1, endS: 2, requests: 2, throughput: 2, avgLatencyMs: 200 },
    ]);
  });

  it("judges a window only once a request that ended after it arrived (the native engine's records come in batches)", () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const m = new StabilityMonitor(spec);
      m.start();
      const ending = (endMs: number) => ({
        startMs: endMs - 10,
        latencyMs: 10,
        responseMs: [],
        responseTokens: [],
      });
      for (let w = 0; w < 3; w++) for (let i = 0; i < 10; i++) m.record(ending(w * 1000 + 50 + i * 95));
      vi.advanceTimersByTime(3200);
      // The clock has closed three agreeing windows, but the third one's last requests may be in flight to us.
      expect(m.shouldStop()).toBe(false);
      m.record(ending(3010));
      expect(m.shouldStop()).toBe(true);
      expect(m.result().windows.map((w) => w.requests)).toEqual([10, 10, 10]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('explains impossible settings', () => {
    expect(() => new StabilityMonitor({ ...spec, maxWindows: 2 })).toThrow(
      /stable windows \(3\) ≤ max windows \(2\)/,
    );
  });
});
