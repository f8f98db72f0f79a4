/**
 * perf's reports: exports, the chart specification, the terminal and HTML reports, and perf
 * compare.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { asComparable, compareReports } from '../../client/perf/report/compare.js';
import { profileCsv, profileExport, reportCsv } from '../../client/perf/report/export.js';
import { asSweep, renderHtmlReport, REPORT_CSP } from '../../client/perf/report/htmlReport.js';
import {
  REPORT_CHARTS,
  reportCharts,
  reportDocument,
  type ChartSpec,
  type ReportDocument,
} from '../../client/perf/report/reportCharts.js';
import { readInputDataset } from '../../client/perf/inputs/dataset.js';
import { formatPerfReport, outsideServerMs } from '../../client/perf/report/textReport.js';
import type { PerfReport } from '../../client/perf/latencyTest.js';
import { computeMetrics, type RequestRecord } from '../../client/perf/metrics/metricTable.js';
import { confidence, interval, type SweepReport } from '../../client/perf/sweep.js';
import { StabilityMonitor } from '../../client/perf/metrics/windows.js';

/** A sweep of the given runs, one point each. */
function sweep(runs: PerfReport[]): SweepReport {
  return { ...asSweep(runs[0]!), points: runs.map((r) => ({ load: r.load, runs: [r], confidence: {} })) };
}

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

  it('writes the CSV of one report as perf --csv does, and of several with their labels', () => {
    expect(reportCsv([{ label: 'a', report: asSweep(run(10)) }])).toBe(profileCsv(run(10)));
    const csv = reportCsv([
      { label: 'a', report: sweep([run(10, 1), run(12, 2)]) },
      { label: 'b,2', report: sweep([run(11, 1)]) },
    ]).split('\n');
    expect(csv[0]).toBe('report,mode,load,run,metric,unit,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std');
    expect(csv.filter((l) => /^a,concurrency,2,1,request_latency,/.test(l))).toHaveLength(1);
    expect(csv.filter((l) => l.startsWith('"b,2",concurrency,1,1,request_latency,ms,11'))).toHaveLength(1);
  });
});

describe("the latency report's chart specification (the HTML report and the VS Code report draw it)", () => {
  /** A model's row in the server's breakdown. */
  const step = (model: string, batch: number, pending?: number) => ({
    model,
    version: '1',
    requests: 20,
    failures: 0,
    executions: 20 / batch,
    meanBatchSize: batch,
    avgQueueMs: 0.5,
    avgComputeInputMs: 0.1,
    avgComputeInferMs: 2,
    avgComputeOutputMs: 0.2,
    avgRequestMs: 2.8,
    ...(pending === undefined ? {} : { pendingRequests: { avg: pending, max: pending * 2 } }),
  });
  /** Two load points with the server's breakdown, as a real sweep has them. */
  function measured(): SweepReport {
    // 'm' is the model the client called (the ensemble): its statistics hold its steps' time.
    const a = { ...run(10, 1), serverBreakdown: [step('m', 1, 0), step('pre', 1, 0), step('llm', 1, 0.25)] };
    const b = { ...run(14, 4), serverBreakdown: [step('pre', 2, 1), step('m', 1, 3), step('llm', 3.5, 2.5)] };
    return sweep([a, b]);
  }
  const byId = (charts: ChartSpec[], id: string) => charts.find((c) => c.id === id)!;

  it('names every chart the issue asks for, once, in page order', () => {
    expect(REPORT_CHARTS.map((c) => [c.id, c.title])).toEqual([
      ['latency-vs-load', 'Latency percentiles vs load'],
      ['throughput-vs-load', 'Throughput vs load'],
      ['ttft-distribution', 'TTFT distribution'],
      ['itl-distribution', 'ITL distribution'],
      ['over-time', 'Throughput and latency over time'],
      ['server-steps', 'Server time per request, by step'],
      ['batch-sizes', 'Mean batch size, by step'],
      ['pending-requests', 'Pending requests, by step'],
    ]);
  });

  it('plots the percentiles of latency, TTFT and ITL against the load levels, in ms', () => {
    const chart = byId(reportCharts(measured()), 'latency-vs-load');
    expect(chart.x.labels).toEqual(['c=1', 'c=4']);
    expect(chart.y.title).toBe('ms');
    const series = Object.fromEntries(chart.series.map((s) => [s.label, s.data]));
    expect(series['request latency p50']).toEqual([10, 14]);
    expect(series['request latency p99']).toEqual([10, 14]);
    // 4 one-token responses at a quarter of the latency each: TTFT = latency / 4, ITL = latency / 4.
    expect(series['TTFT p50']).toEqual([2.5, 3.5]);
    expect(series['ITL p50']).toEqual([2.5, 3.5]);
    expect(chart.empty).toBeUndefined();
  });

  it('puts request and token throughput on their own axes', () => {
    const chart = byId(reportCharts(measured()), 'throughput-vs-load');
    expect(chart.series).toEqual(
      [
        { label: 'requests/s', data: [100, 1000 / 14] },
        { label: 'output tokens/s', data: [400, 4000 / 14], right: true },
      ].map((s) => ({ ...s, data: s.data.map((v) => expect.closeTo(v, 2)) })),
    );
    expect([chart.y.title, chart.y1?.title]).toEqual(['requests/s', 'output tokens/s']);
  });

  it('draws TTFT and ITL distributions per load, and says why a run without streaming has none', () => {
    const charts = reportCharts(measured());
    const ttft = byId(charts, 'ttft-distribution');
    expect(ttft.x.labels).toEqual(['p1', 'p5', 'p10', 'p25', 'p50', 'p75', 'p90', 'p95', 'p99']);
    expect(ttft.series.map((s) => s.label)).toEqual(['c=1', 'c=4']);
    expect(ttft.series[1]!.data.every((v) => v === 3.5)).toBe(true);
    const unstreamed = run(10);
    delete unstreamed.metrics.time_to_first_token;
    delete unstreamed.metrics.inter_token_latency;
    const none = reportCharts(asSweep({ ...unstreamed, stream: false }));
    expect(byId(none, 'ttft-distribution')).toMatchObject({
      series: [],
      empty: 'Needs a streamed run (perf --stream).',
    });
    expect(byId(none, 'itl-distribution').empty).toBe('Needs a streamed run (perf --stream).');
  });

  it('shows no ITL when every answer was one token: neither a chart of zeros nor 0 / 0 in the summary', () => {
    const records: RequestRecord[] = Array.from({ length: 5 }, (_, i) => ({
      startMs: i * 10,
      latencyMs: 10,
      responseMs: [10],
      responseTokens: [1],
    }));
    const context = { stream: true, openLoop: false, outputTokens: true, inputTokens: false };
    const oneToken = { ...run(10), records, metrics: computeMetrics({ records, durationS: 0.05, context }) };
    expect(oneToken.metrics.inter_token_latency!.count).toBe(0);
    const doc = reportDocument([{ label: 'x', report: asSweep(oneToken) }]);
    expect(byId(doc.runs[0]!.charts, 'itl-distribution')).toMatchObject({
      series: [],
      empty: 'No request produced enough output tokens.',
    });
    expect(byId(doc.runs[0]!.charts, 'ttft-distribution').series).toHaveLength(1);
    const rows = doc.runs[0]!.summary.map((r) => r.tag);
    expect(rows).toContain('time_to_first_token');
    expect(rows).not.toContain('inter_token_latency');
  });

  it("bins the heaviest load's completions over time: every request counted once", () => {
    const chart = byId(reportCharts(measured()), 'over-time');
    expect(chart.subtitle).toBe('c=4');
    const [perSecond, latency] = chart.series;
    // 20 requests end at 14, 28, … 280 ms: 4 bins (about 5 completions each) of 70 ms, 5 requests
    // (5 / 0.07 s = 71.4/s) in each.
    expect(chart.x.labels).toEqual(['0.07', '0.14', '0.21', '0.28']);
    expect(perSecond!.data).toEqual([71.4, 71.4, 71.4, 71.4]);
    expect(new Set(latency!.data)).toEqual(new Set([14]));
    expect(latency!.right).toBe(true);
    const bare = { ...run(10), records: undefined };
    expect(byId(reportCharts(asSweep(bare)), 'over-time').empty).toMatch(/per-request records/);
  });

  it("stacks the server's time per step at the heaviest load, and charts batch sizes and pending requests per step, leaving out the called ensemble (its time is its steps')", () => {
    const charts = reportCharts(measured());
    const steps = byId(charts, 'server-steps');
    expect(steps).toMatchObject({
      stacked: true,
      horizontal: true,
      subtitle: 'c=4',
      x: { labels: ['pre', 'llm'] },
    });
    expect(steps.series.map((s) => [s.label, s.data])).toEqual([
      ['queue', [0.5, 0.5]],
      ['compute input', [0.1, 0.1]],
      ['compute infer', [2, 2]],
      ['compute output', [0.2, 0.2]],
    ]);
    expect(byId(charts, 'batch-sizes').series).toEqual([
      { label: 'pre', data: [1, 2] },
      { label: 'llm', data: [1, 3.5] },
    ]);
    expect(byId(charts, 'pending-requests').series).toEqual([
      { label: 'pre', data: [0, 1] },
      { label: 'llm', data: [0.25, 2.5] },
    ]);
    // A model called on its own is its only step.
    const alone = { ...run(10), serverBreakdown: [step('m', 2)] };
    expect(byId(reportCharts(asSweep(alone)), 'server-steps').x.labels).toEqual(['m']);
    const withoutMetrics = byId(reportCharts(asSweep(run(10))), 'pending-requests');
    expect(withoutMetrics.empty).toBe("Needs the server's Prometheus metrics (perf --metrics-url).");
    const failed = byId(
      reportCharts(asSweep({ ...run(10), metricsError: 'connection refused' })),
      'pending-requests',
    );
    expect(failed.empty).toBe('Prometheus metrics failed: connection refused');
  });

  it('gives each run of a comparison the same charts in the same order, so they line up side by side', () => {
    const doc = reportDocument([
      { label: 'before', report: measured() },
      { label: 'after', report: asSweep(run(12)) },
    ]);
    expect(doc.title).toBe('Latency report: before vs after');
    expect(doc.runs.map((r) => r.charts.map((c) => c.id))).toEqual([
      REPORT_CHARTS.map((c) => c.id),
      REPORT_CHARTS.map((c) => c.id),
    ]);
    const summary = doc.runs[0]!.summary;
    expect(doc.runs[0]!.loads).toEqual(['c=1', 'c=4']);
    expect(summary.find((r) => r.tag === 'request_latency')!.cells).toEqual(['10 / 10', '14 / 14']);
    expect(summary.find((r) => r.tag === 'request_count')!.cells).toEqual(['20', '20']);
  });

  it('warns about what the charts cannot show: cancelled runs, unstable runs, failed requests', () => {
    const failing = {
      ...run(10),
      results: { errors: 2, errorMessages: ['UNAVAILABLE: gone'] } as PerfReport['results'],
    };
    const doc = reportDocument([{ label: 'x', report: { ...asSweep(failing), cancelled: true } }]);
    expect(doc.runs[0]!.warnings).toEqual([
      'Cancelled: only the points measured before it are shown.',
      '2 request(s) failed: UNAVAILABLE: gone',
    ]);
    expect(() => reportDocument([])).toThrow('a latency report needs at least one run');
  });

  it('reads runs the VS Code extension saved before it wrote sweeps', () => {
    const legacy = { kind: 'triton-studio.latency-run', formatVersion: 1, reports: [run(10, 1), run(14, 4)] };
    const read = asComparable(legacy, 'old.json');
    expect(read.points.map((p) => p.load)).toEqual([run(10, 1).load, run(14, 4).load]);
    expect(reportCharts(read)[0]!.x.labels).toEqual(['c=1', 'c=4']);
  });
});

describe('the terminal report', () => {
  const summary = (avgMs: number) => ({
    count: 20,
    avgMs,
    minMs: avgMs,
    maxMs: avgMs,
    p50Ms: avgMs,
    p90Ms: avgMs,
    p95Ms: avgMs,
    p99Ms: avgMs,
  });
  const measuredRun = (serverBreakdown: PerfReport['serverBreakdown']): PerfReport => ({
    ...run(10),
    results: {
      requests: 20,
      errors: 0,
      errorMessages: [],
      durationS: 0.2,
      requestsPerSecond: 100,
      latency: summary(10),
      responsesPerRequest: 1,
    },
    serverBreakdown,
  });
  const row = (model: string, avgRequestMs: number) => ({
    model,
    version: '1',
    requests: 20,
    failures: 0,
    executions: 20,
    meanBatchSize: 1,
    avgQueueMs: 0.1,
    avgComputeInputMs: 0,
    avgComputeInferMs: avgRequestMs - 0.1,
    avgComputeOutputMs: 0,
    avgRequestMs,
  });

  it("splits the average latency into the called model's own time in the server and what lies outside it", () => {
    const report = measuredRun([row('m', 9.75), row('llm', 9.5)]);
    expect(outsideServerMs(report)).toBe(0.25);
    const text = formatPerfReport(report);
    expect(text).toMatch(/^ {4}m +9\.750 +0\.100 /m);
    expect(text).toContain(
      "outside the server: 0.25 ms of the 10 ms average (network and client: latency avg − m's own time",
    );
  });

  it('says nothing of it when the server gave no statistics for the called model', () => {
    expect(outsideServerMs(measuredRun([row('llm', 9.5)]))).toBeUndefined();
    expect(formatPerfReport(measuredRun([row('llm', 9.5)]))).not.toContain('outside the server');
  });
});

describe('the HTML report document', () => {
  const page = '/* page */';
  const data = (html: string) =>
    JSON.parse(
      /<script[^>]* type="application\/json" id="report-data">(.*?)<\/script>/.exec(html)![1]!,
    ) as ReportDocument;

  it('is self-contained: the chart document and the page script inline, nothing remote allowed', () => {
    const html = renderHtmlReport(run(10), { pageScript: page });
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP.replaceAll("'", '&#39;')}">`,
    );
    expect(html).toContain(`<script>${page}</script>`);
    expect(html).not.toMatch(/src=|href=|@import|https?:/);
    expect(data(html)).toEqual(reportDocument([{ label: 'm', report: asSweep(run(10)) }]));
  });

  it('renders one run the same whether given as a run or as its one-point sweep', () => {
    expect(renderHtmlReport([{ label: 'm', report: asSweep(run(10)) }], { pageScript: page })).toBe(
      renderHtmlReport(run(10), { pageScript: page }),
    );
  });

  it("takes a webview's nonce, policy and glue script", () => {
    const html = renderHtmlReport(run(10), {
      pageScript: page,
      nonce: 'abc',
      csp: "default-src 'none'; script-src 'nonce-abc'",
      scripts: ['https://file+.vscode-resource.example/out/webview/latencyReport.js'],
    });
    expect(html).toContain(`content="default-src &#39;none&#39;; script-src &#39;nonce-abc&#39;"`);
    expect(html.match(/<script(?: [^>]*)?>/g)).toEqual([
      '<script nonce="abc" type="application/json" id="report-data">',
      '<script nonce="abc">',
      '<script nonce="abc" src="https://file+.vscode-resource.example/out/webview/latencyReport.js">',
    ]);
  });

  it('escapes what would end a script early', () => {
    const report = { ...run(10), model: '</script><b>' };
    const html = renderHtmlReport(report, { pageScript: 'x("</script>")' });
    expect(html).not.toContain('</script><b>');
    expect(html).toContain('x("<\\/script>")');
    expect(data(html).title).toBe('Latency report: </script><b>');
  });

  it('inlines the real page script, built from the sources exactly as the bundle is', () => {
    const html = renderHtmlReport(run(10));
    expect(html.length).toBeGreaterThan(100_000);
    expect(html).toContain('tritonStudioReport');
    expect(html).not.toMatch(/<script[^>]+src=/);
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
