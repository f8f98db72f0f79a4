/**
 * perf's metric table and computeMetrics (the definitions perf_analyzer, GenAI-Perf and AIPerf
 * use), and SLO parsing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  computeMetrics,
  METRICS,
  parseSlos,
  type MetricContext,
  type RequestRecord,
} from '../../client/perf/metrics/metricTable.js';

const streamed: MetricContext = { stream: true, openLoop: false, outputTokens: true, inputTokens: false };

/** A streamed request: TTFT 10 ms, then responses every 2 ms carrying the given token counts. */
function request(startMs: number, tokens: number[], extra: Partial<RequestRecord> = {}): RequestRecord {
  const responseMs = tokens.map((_, i) => 10 + 2 * i);
  return { startMs, latencyMs: responseMs.at(-1) ?? 10, responseMs, responseTokens: tokens, ...extra };
}

describe('the metric table', () => {
  it('gives every metric a unique tag, a unit, a formula and its inputs', () => {
    const tags = METRICS.map((m) => m.tag);
    expect(new Set(tags).size).toBe(tags.length);
    for (const m of METRICS) {
      expect(m.header).not.toBe('');
      expect(m.formula).not.toBe('');
      expect(m.inputs.length).toBeGreaterThan(0);
    }
  });

  it('run metrics read only record fields or other metrics', () => {
    const fields = ['startMs', 'latencyMs', 'lagMs', 'error', 'responseMs', 'responseTokens', 'inputTokens'];
    for (const m of METRICS) {
      for (const input of m.inputs) expect([...fields, ...METRICS.map((x) => x.tag)]).toContain(input);
    }
  });

  it('is the table docs/decisions/contracts.md shows (tag, unit, formula)', () => {
    const doc = readFileSync(join(__dirname, '../../docs/decisions/contracts.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` +\| ([^|]+)\| ([^|]+)\|$/gm)].map((m) => [
      m[1],
      m[2]!.trim(),
      m[3]!.trim(),
    ]);
    expect(rows).toEqual(METRICS.map((m) => [m.tag, m.unit, m.formula]));
  });
});

describe('computeMetrics (definitions as perf_analyzer / GenAI-Perf / AIPerf)', () => {
  it('TTFT is the first response with output; ITL spreads the rest over output tokens − 1', () => {
    // 4 responses at 10, 12, 14, 16 ms carrying 1, 3, 1, 1 tokens: 6 tokens.
    const m = computeMetrics({ records: [request(0, [1, 3, 1, 1])], durationS: 1, context: streamed });
    expect(m.time_to_first_token).toMatchObject({ unit: 'ms', avg: 10, count: 1 });
    expect(m.time_to_second_token).toMatchObject({ avg: 2 });
    // (16 − 10) / (6 − 1): several tokens in one chunk lower ITL, they are not one token.
    expect(m.inter_token_latency).toMatchObject({ avg: 1.2 });
    expect(m.output_token_throughput_per_user!.avg).toBeCloseTo(1000 / 1.2, 2);
    expect(m.output_sequence_length).toMatchObject({ unit: 'tokens', avg: 6 });
    expect(m.request_latency).toMatchObject({ avg: 16 });
    // Orca's normalized latency: the whole request's time over its 6 tokens.
    expect(m.request_latency_per_output_token!.avg).toBeCloseTo(16 / 6, 2);
  });

  it('leaves ITL undefined for one-token answers and failed requests out of latencies', () => {
    const records = [request(0, [1]), request(5, [1, 1], { error: 'boom' }), request(10, [1, 1, 1])];
    const m = computeMetrics({ records, durationS: 2, context: streamed });
    expect(m.inter_token_latency!.count).toBe(1);
    expect(m.request_latency!.count).toBe(2);
    expect(m.request_count!.avg).toBe(2);
    expect(m.error_request_count!.avg).toBe(1);
    expect(m.request_throughput).toMatchObject({ unit: 'requests/s', avg: 1 });
    // Σ output tokens of successful requests (1 + 3) over 2 s.
    expect(m.output_token_throughput!.avg).toBe(2);
  });

  it('reports only the metrics that apply to the run', () => {
    const unary: MetricContext = { stream: false, openLoop: false, outputTokens: false, inputTokens: false };
    const m = computeMetrics({ records: [request(0, [1])], durationS: 1, context: unary });
    expect(Object.keys(m)).toEqual([
      'request_latency',
      'request_count',
      'error_request_count',
      'benchmark_duration',
      'request_throughput',
    ]);
    const open = computeMetrics({
      records: [request(0, [1], { lagMs: 0.5, error: 'x' })],
      durationS: 1,
      context: { ...unary, openLoop: true },
    });
    // Send lag describes the client: failed requests count.
    expect(open.send_lag).toMatchObject({ count: 1, avg: 0.5 });
  });

  it('counts goodput against every SLO', () => {
    const records = [
      request(0, [1, 1, 1]),
      request(1, [1, 1, 1], { responseMs: [60, 62, 64], latencyMs: 64 }),
    ];
    const m = computeMetrics({
      records,
      durationS: 2,
      context: { ...streamed, slos: parseSlos('ttft:50,itl:5') },
    });
    expect(m.goodput).toMatchObject({ unit: 'requests/s', avg: 0.5 });
  });

  it('gives distributions GenAI-Perf export fields', () => {
    const records = Array.from({ length: 100 }, (_, i) => ({ ...request(i, [1]), latencyMs: i + 1 }));
    const m = computeMetrics({ records, durationS: 1, context: streamed }).request_latency!;
    expect(m).toMatchObject({ count: 100, min: 1, max: 100, avg: 50.5 });
    // Percentiles from the HDR histogram: exact to 0.1% (3 significant digits).
    for (const [p, v] of [
      ['p25', 25],
      ['p50', 50],
      ['p90', 90],
      ['p99', 99],
    ] as const) {
      expect(Math.abs(m[p]! / v - 1)).toBeLessThanOrEqual(0.001);
    }
    expect(m.std).toBeCloseTo(28.866, 2);
  });
});

describe('parseSlos', () => {
  it('accepts short names and tags', () => {
    expect(parseSlos('ttft:50,itl:5')).toEqual({ time_to_first_token: 50, inter_token_latency: 5 });
    expect(parseSlos('request_latency:200')).toEqual({ request_latency: 200 });
  });

  it('explains what is wrong', () => {
    expect(() => parseSlos('foo:1')).toThrow(/unknown metric 'foo' \(known: time_to_first_token/);
    expect(() => parseSlos('ttft')).toThrow(/SLO 'ttft' must be METRIC:BOUND/);
    expect(() => parseSlos('ttft:-1')).toThrow(/bound > 0/);
    expect(() => parseSlos('request_throughput:5')).toThrow(/not a per-request time/);
  });
});
