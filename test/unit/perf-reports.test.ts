import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asComparable, compareReports } from '../../client/perf/compare.js';
import { profileCsv, profileExport } from '../../client/perf/export.js';
import { renderHtmlReport } from '../../client/perf/htmlReport.js';
import { readInputDataset } from '../../client/perf/inputs.js';
import type { PerfReport } from '../../client/perf/latencyTest.js';
import { computeMetrics, type RequestRecord } from '../../client/perf/metrics.js';
import { confidence, interval } from '../../client/perf/sweep.js';
import { StabilityMonitor } from '../../client/perf/windows.js';

/** A streamed run whose requests all took `latencyMs` with 4 one-token responses. */
function run(latencyMs: number, concurrency = 1): PerfReport {
  const records: RequestRecord[] = Array.from({ length: 20 }, (_, i) => ({
    startMs: i * latencyMs,
    latencyMs,
    responseMs: [latencyMs / 4, latencyMs / 2, (3 * latencyMs) / 4, latencyMs],
    responseTokens: [1, 1, 1, 1],
  }));
  const context = { stream: true, openLoop: false, outputTokens: true, inputTokens: false };
  return {
    kind: 'triton-studio.perf',
    formatVersion: 2,
    model: 'm',
    server: '127.0.0.1:1',
    startedAt: '2026-11-23T00:00:00Z',
    load: { mode: 'concurrency', concurrency, requests: 20, warmupRequests: 0 },
    stream: true,
    prompt: 'p',
    results: {} as PerfReport['results'],
    metrics: computeMetrics({ records, durationS: (20 * latencyMs) / 1000, context }),
    records,
    serverBreakdown: [],
  };
}

describe('exports', () => {
  it("writes GenAI-Perf's profile export shape", () => {
    const out = profileExport(run(10));
    expect(out.request_throughput).toEqual({ unit: 'requests/sec', avg: 100 });
    expect(out.time_to_first_token).toMatchObject({ unit: 'ms', avg: 2.5, p50: 2.5, p99: 2.5, std: 0 });
    expect(out.input_config).toMatchObject({ concurrency: 1, request_count: 20, streaming: true });
  });

  it('writes CSV with distributions first, then single values', () => {
    const csv = profileCsv(run(10)).split('\n');
    expect(csv[0]).toBe('Metric,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std');
    expect(csv).toContain('Request throughput (requests/sec),100');
  });

  it('renders a self-contained HTML page: the data and chart.js inline, nothing fetched', () => {
    const html = renderHtmlReport(run(10), { chartJs: '/* chart */', nonce: 'abc' });
    expect(html).toContain('<script nonce="abc">/* chart */</script>');
    expect(html).not.toMatch(/src=|href=/);
    const data = /<script nonce="abc" type="application\/json" id="report-data">(.*)<\/script>/.exec(
      html,
    )![1]!;
    expect(JSON.parse(data).sweep.points[0].runs[0].metrics.request_latency.avg).toBe(10);
  });

  it('escapes what would end a script early', () => {
    const report = { ...run(10), model: '</script><b>' };
    const html = renderHtmlReport(report, { chartJs: '' });
    expect(html).not.toContain('</script><b>');
  });
});

describe('perf compare', () => {
  it('flags a change beyond the noise and not one within it', () => {
    const base = asComparable(run(10), 'a');
    const slower = asComparable(run(12), 'b');
    const same = asComparable(run(10.1), 'c');
    const d = (c: ReturnType<typeof compareReports>, key: string) =>
      c.points[0]!.deltas.find((x) => x.key === key)!;
    expect(d(compareReports(base, slower), 'request_latency.p50')).toMatchObject({
      a: 10,
      b: 12,
      relative: 0.2,
      significant: true,
      noiseFrom: 'assumed',
    });
    expect(d(compareReports(base, same), 'request_latency.p50').significant).toBe(false);
  });

  it('uses the confidence interval of repeated runs as the noise', () => {
    const a = asComparable(run(10), 'a');
    a.points[0]!.runs = [run(9), run(11), run(10)];
    a.points[0]!.confidence = confidence(a.points[0]!.runs);
    const c = compareReports(a, asComparable(run(11), 'b'));
    const delta = c.points[0]!.deltas.find((x) => x.key === 'request_latency.p50')!;
    expect(delta.noiseFrom).toBe('repeats');
    // mean 10, s = 1, t(2) = 4.303: ±2.484 covers the 1 ms change.
    expect(delta.noise).toBeCloseTo(2.484, 2);
    expect(delta.significant).toBe(false);
  });

  it('lists loads only one report has, and refuses what is not a report', () => {
    const c = compareReports(asComparable(run(10, 1), 'a'), asComparable(run(10, 4), 'b'));
    expect(c.points).toEqual([]);
    expect(c.unmatched.map((l) => (l.mode === 'concurrency' ? l.concurrency : 0))).toEqual([1, 4]);
    expect(() => asComparable({ kind: 'x' }, 'f.json')).toThrow(
      "f.json is not a Triton Studio latency report (its kind is 'x')",
    );
  });
});

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

  it('explains impossible settings', () => {
    expect(() => new StabilityMonitor({ ...spec, maxWindows: 2 })).toThrow(
      /stable windows \(3\) ≤ max windows \(2\)/,
    );
  });
});

describe('JSONL datasets (GenAI-Perf / AIPerf input shape)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ts-dataset-'));
  it('reads text and output lengths', () => {
    const file = join(dir, 'ok.jsonl');
    writeFileSync(
      file,
      '{"text": "a"}\n\n{"text_input": "b", "output_length": 5}\n{"prompt": "c", "max_tokens": 2}\n',
    );
    expect(readInputDataset(file)).toEqual([
      { text: 'a', maxTokens: undefined },
      { text: 'b', maxTokens: 5 },
      { text: 'c', maxTokens: 2 },
    ]);
  });
  it('names the line that is wrong', () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, '{"text": "a"}\n{"text": 1}\n');
    expect(() => readInputDataset(file)).toThrow(`${file}:2: needs a string "text"`);
    writeFileSync(file, 'nope\n');
    expect(() => readInputDataset(file)).toThrow(`${file}:1: not JSON`);
  });
});
