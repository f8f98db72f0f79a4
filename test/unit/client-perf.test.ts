/**
 * perf's load engine in Node: the latency recorder, the closed and open loops, outcome recording
 * and the server's own statistics.
 */
import { describe, expect, it } from 'vitest';
import { runConcurrencyLoad, runLoad } from '../../client/perf/load/loadGenerator.js';
import { OutcomeRecorder } from '../../client/perf/load/outcomeRecorder.js';
import { sendSchedule } from '../../client/perf/load/requestRate.js';
import { Pacer } from '../../client/perf/load/pacer.js';
import { gapSampler, seededRandom } from '../../client/perf/load/schedule.js';
import { statisticsDelta } from '../../client/perf/metrics/serverStats.js';
import { LatencyRecorder } from '../../client/perf/metrics/summary.js';
import type { ModelStatistics } from '../../client/grpc/types.js';

describe('LatencyRecorder (HDR histogram, µs resolution, 3 significant digits)', () => {
  it('reports exact percentiles of 1..100 ms', () => {
    const recorder = new LatencyRecorder();
    for (let ms = 1; ms <= 100; ms++) recorder.record(ms);
    const s = recorder.summary();
    expect(s.count).toBe(100);
    expect(s.minMs).toBe(1);
    expect(s.maxMs).toBeCloseTo(100, 1);
    expect(s.avgMs).toBe(50.5);
    expect(s.p50Ms).toBeCloseTo(50, 1);
    expect(s.p90Ms).toBeCloseTo(90, 1);
    expect(s.p95Ms).toBeCloseTo(95, 1);
    expect(s.p99Ms).toBeCloseTo(99, 1);
  });

  it('keeps sub-millisecond latencies to the microsecond', () => {
    const recorder = new LatencyRecorder();
    recorder.record(0.25);
    recorder.record(0.75);
    expect(recorder.summary()).toMatchObject({ minMs: 0.25, maxMs: 0.75, avgMs: 0.5 });
  });

  it('reports zeros, not NaN, when nothing was recorded', () => {
    expect(new LatencyRecorder().summary()).toEqual({
      count: 0,
      avgMs: 0,
      minMs: 0,
      maxMs: 0,
      p50Ms: 0,
      p90Ms: 0,
      p95Ms: 0,
      p99Ms: 0,
    });
  });

  it('rejects negative or non-finite durations', () => {
    expect(() => new LatencyRecorder().record(-1)).toThrow(/invalid duration/);
    expect(() => new LatencyRecorder().record(NaN)).toThrow(/invalid duration/);
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runConcurrencyLoad (closed loop, fixed concurrency)', () => {
  it('never has more than `concurrency` requests in flight and keeps that many busy', async () => {
    let inFlight = 0;
    let peak = 0;
    const run = await runConcurrencyLoad(
      { mode: 'concurrency', concurrency: 3, requests: 12, warmupRequests: 0 },
      async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await sleep(5);
        inFlight--;
        return 'ok';
      },
    );
    expect(peak).toBe(3);
    expect(run.outcomes).toHaveLength(12);
    expect(run.outcomes.every((o) => o.value === 'ok' && o.latencyMs >= 4)).toBe(true);
  });

  it('sends warm-up requests first and leaves them out of the outcomes', async () => {
    const order: string[] = [];
    let phase = 'warmup';
    const run = await runConcurrencyLoad(
      { mode: 'concurrency', concurrency: 2, requests: 4, warmupRequests: 3 },
      async () => {
        order.push(phase);
        await sleep(1);
        return phase;
      },
      { afterWarmup: async () => void (phase = 'measured') },
    );
    expect(order).toEqual(['warmup', 'warmup', 'warmup', 'measured', 'measured', 'measured', 'measured']);
    expect(run.outcomes.map((o) => o.value)).toEqual(['measured', 'measured', 'measured', 'measured']);
  });

  it('records failures as outcomes with their error and keeps going', async () => {
    let n = 0;
    const run = await runConcurrencyLoad(
      { mode: 'concurrency', concurrency: 1, requests: 4, warmupRequests: 0 },
      async () => {
        if (++n % 2 === 0) throw new Error(`failure ${n}`);
        return n;
      },
    );
    expect(run.outcomes.map((o) => o.error?.message ?? o.value)).toEqual([1, 'failure 2', 3, 'failure 4']);
  });

  it('stops after the given duration', async () => {
    const run = await runConcurrencyLoad(
      { mode: 'concurrency', concurrency: 2, durationS: 0.2, warmupRequests: 0 },
      () => sleep(10),
    );
    expect(run.durationS).toBeGreaterThanOrEqual(0.19);
    expect(run.durationS).toBeLessThan(0.5);
    expect(run.outcomes.length).toBeGreaterThan(10);
  });

  it('explains invalid settings', async () => {
    const send = async () => 1;
    await expect(
      runConcurrencyLoad({ mode: 'concurrency', concurrency: 0, requests: 1, warmupRequests: 0 }, send),
    ).rejects.toThrow(/concurrency must be a whole number ≥ 1 \(got 0\)/);
    await expect(
      runConcurrencyLoad({ mode: 'concurrency', concurrency: 1, warmupRequests: 0 }, send),
    ).rejects.toThrow(/give a number of requests or a duration/);
  });
});

describe('request-rate load (open loop, sends on a schedule)', () => {
  it('sends at the constant rate without waiting for earlier requests', async () => {
    let inFlight = 0;
    let peak = 0;
    const run = await runLoad(
      { mode: 'request-rate', rate: 100, distribution: 'constant', requests: 10, warmupRequests: 0 },
      async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await sleep(50); // far longer than the 10 ms gap: requests must overlap
        inFlight--;
      },
    );
    expect(run.outcomes).toHaveLength(10);
    expect(peak).toBeGreaterThanOrEqual(4);
    expect(run.outcomes.every((o) => o.lagMs !== undefined && o.lagMs >= 0)).toBe(true);
    // Each send's scheduled time (its start less its lateness) lies 10 ms after the one before;
    // how late a send actually went is the box's business (a loaded CI box delays the first one),
    // so only the whole span is bounded.
    const scheduled = run.outcomes.map((o) => o.startMs - o.lagMs!).sort((a, b) => a - b);
    for (let i = 1; i < scheduled.length; i++) expect(scheduled[i]! - scheduled[i - 1]!).toBeCloseTo(10, 0);
    const starts = run.outcomes.map((o) => o.startMs).sort((a, b) => a - b);
    expect(starts[9]! - starts[0]!).toBeLessThan(200);
  });

  it('spreads Poisson sends with the requested mean rate', async () => {
    const run = await runLoad(
      { mode: 'request-rate', rate: 400, distribution: 'poisson', durationS: 0.5, warmupRequests: 0 },
      async () => undefined,
    );
    // 400/s for 0.5 s: ~200 sends; Poisson's spread (±~15 at 1σ) and timer granularity allow a wide band.
    expect(run.outcomes.length).toBeGreaterThan(120);
    expect(run.outcomes.length).toBeLessThan(280);
  });

  it('sends on the same schedule for the same --seed, and on another for another seed', () => {
    const load = {
      mode: 'request-rate',
      rate: 100,
      distribution: 'poisson',
      requests: 50,
      warmupRequests: 0,
    } as const;
    const a = sendSchedule({ ...load, seed: 7 }, 50);
    expect(sendSchedule({ ...load, seed: 7 }, 50)).toEqual(a);
    expect(sendSchedule({ ...load, seed: 8 }, 50)).not.toEqual(a);
    expect(sendSchedule({ ...load, distribution: 'gamma', gammaShape: 0.5, seed: 7 }, 50)).toEqual(
      sendSchedule({ ...load, distribution: 'gamma', gammaShape: 0.5, seed: 7 }, 50),
    );
  });

  it('gives small seeds an ordinary first gap (xoroshiro128+ seeded 0, 1, 2… first drew ~17 mean gaps)', () => {
    const load = {
      mode: 'request-rate',
      rate: 1,
      distribution: 'poisson',
      requests: 2,
      warmupRequests: 0,
    } as const;
    const firstGaps = Array.from({ length: 100 }, (_, seed) => sendSchedule({ ...load, seed }, 2)[1]!);
    const mean = firstGaps.reduce((a, b) => a + b, 0) / firstGaps.length;
    expect(mean).toBeGreaterThan(700);
    expect(mean).toBeLessThan(1300);
  });

  it('draws gaps with mean 1/rate; gamma burstier below shape 1, more regular above', () => {
    const cv = (gaps: number[]) => {
      const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
      const sd = Math.sqrt(gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length);
      return { mean, cv: sd / mean };
    };
    const draw = (d: 'constant' | 'poisson' | 'gamma', shape?: number) => {
      const next = gapSampler(d, 50, seededRandom(1), shape);
      return cv(Array.from({ length: 20000 }, next));
    };
    expect(draw('constant')).toEqual({ mean: 20, cv: 0 });
    const poisson = draw('poisson');
    expect(poisson.mean).toBeCloseTo(20, 0);
    expect(poisson.cv).toBeCloseTo(1, 1); // exponential: sd = mean
    expect(draw('gamma', 0.25).cv).toBeCloseTo(2, 1); // cv = 1/√shape
    expect(draw('gamma', 4).cv).toBeCloseTo(0.5, 1);
    expect(draw('gamma', 4).mean).toBeCloseTo(20, 0);
  });

  it('never sends before the scheduled time (lateness is measured in bench/perf, the box is too noisy here)', async () => {
    // Gaps shorter than one of Node's timer ticks, and none.
    const gaps = [0, 0.3, 0.7, 1.5];
    let offset = 0;
    let i = 0;
    const pacer = await Pacer.start((origin) => origin + (offset += gaps[i++ % gaps.length]!));
    try {
      for (let n = 0; n < 20; n++) {
        const due = await pacer.next();
        expect(performance.now()).toBeGreaterThanOrEqual(due);
      }
    } finally {
      pacer.close();
    }
  });

  it('explains an invalid rate', async () => {
    await expect(
      runLoad(
        { mode: 'request-rate', rate: 0, distribution: 'constant', requests: 1, warmupRequests: 0 },
        async () => 1,
      ),
    ).rejects.toThrow('request rate must be more than 0 requests/s (got 0)');
  });
});

describe('OutcomeRecorder (shared by both load modes)', () => {
  it('times each request from the measurement origin, keeps failures and lateness against the schedule', async () => {
    const seen: unknown[] = [];
    const recorder = new OutcomeRecorder<string>(performance.now() - 100, true, (o) => seen.push(o.value));
    await recorder.measure(async () => {
      await sleep(5);
      return 'a';
    }, 90);
    await recorder.measure(() => Promise.reject(new Error('refused')));
    const [first, second] = recorder.outcomes;
    expect(first!.startMs).toBeGreaterThanOrEqual(100);
    expect(first!.lagMs).toBeCloseTo(first!.startMs - 90, 5);
    expect(first!.latencyMs).toBeGreaterThanOrEqual(4);
    expect(second!.error?.message).toBe('refused');
    expect(second!.lagMs).toBeUndefined();
    expect(seen).toEqual(['a', undefined]);
    expect(recorder.run().durationS).toBeCloseTo((second!.startMs + second!.latencyMs) / 1000, 6);
  });

  it('keeps nothing for warm-up', async () => {
    const recorder = new OutcomeRecorder(performance.now(), false);
    await recorder.measure(async () => 1);
    expect(recorder.run()).toEqual({ outcomes: [], durationS: 0 });
  });
});

function stats(
  name: string,
  success: number,
  ns: number,
  executions: number,
  queueNs: number,
): ModelStatistics {
  const d = (count: number, total: number) => ({ count, ns: total });
  return {
    name,
    version: '1',
    last_inference: 0,
    inference_count: success,
    execution_count: executions,
    inference_stats: {
      success: d(success, ns),
      fail: d(0, 0),
      queue: d(success, queueNs),
      compute_input: d(executions, 0),
      compute_infer: d(executions, ns - queueNs),
      compute_output: d(executions, 0),
      cache_hit: d(0, 0),
      cache_miss: d(0, 0),
    },
    batch_stats: [],
    response_stats: {},
  };
}

describe('statisticsDelta (server-side breakdown over a test window)', () => {
  it('subtracts cumulative counters and derives per-request times and mean batch size', () => {
    const before = [stats('sim_llm', 10, 10e6, 10, 1e6), stats('idle', 5, 5e6, 5, 0)];
    const after = [stats('sim_llm', 50, 90e6, 20, 21e6), stats('idle', 5, 5e6, 5, 0)];
    expect(statisticsDelta(before, after)).toEqual([
      {
        model: 'sim_llm',
        version: '1',
        requests: 40,
        failures: 0,
        executions: 10,
        meanBatchSize: 4,
        avgQueueMs: 0.5,
        avgComputeInputMs: 0,
        avgComputeInferMs: 6,
        avgComputeOutputMs: 0,
        avgRequestMs: 2,
      },
    ]);
  });

  it('counts a model loaded during the window from zero', () => {
    expect(statisticsDelta([], [stats('new', 2, 4e6, 2, 0)])[0]).toMatchObject({
      model: 'new',
      requests: 2,
      avgRequestMs: 2,
    });
  });
});
