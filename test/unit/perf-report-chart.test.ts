/** The latency report's chart specification, which the HTML report and the VS Code report both draw. */
import { describe, expect, it } from 'vitest';
import { asComparable } from '../../client/perf/report/compare.js';
import { asSweep } from '../../client/perf/report/htmlReport.js';
import {
  REPORT_CHARTS,
  reportCharts,
  reportDocument,
  type ChartSpec,
} from '../../client/perf/report/reportCharts.js';
import type { PerfReport } from '../../client/perf/latencyTest.js';
import { computeMetrics, type RequestRecord } from '../../client/perf/metrics/metricTable.js';
import { type SweepReport } from '../../client/perf/sweep.js';
import { run, sweep } from './perf-report-fixtures.js';

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
