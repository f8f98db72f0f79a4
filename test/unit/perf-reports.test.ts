/**
 * perf's reports: exports, the terminal and HTML reports, and perf compare (the charts are in
 * perf-report-chart.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { asComparable, compareReports } from '../../client/perf/report/compare.js';
import { profileCsv, profileExport, reportCsv } from '../../client/perf/report/export.js';
import { asSweep, renderHtmlReport, REPORT_CSP } from '../../client/perf/report/htmlReport.js';
import { reportDocument, type ReportDocument } from '../../client/perf/report/reportCharts.js';
import { formatPerfReport, outsideServerMs } from '../../client/perf/report/textReport.js';
import type { PerfReport } from '../../client/perf/latencyTest.js';
import { confidence } from '../../client/perf/sweep.js';
import { run, sweep } from './perf-report-fixtures.js';

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
