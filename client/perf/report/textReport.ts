/** A latency test or sweep as short text for terminals and output channels, and its JSON file. */
import { writeReportFile } from './export.js';
import type { PerfReport } from '../latencyTest.js';
import type { SweepReport } from '../sweep.js';
import type { LatencySummary } from '../metrics/summary.js';

/** A short human-readable summary of a latency test, for terminals and output channels. */
export function formatPerfReport(report: PerfReport): string {
  const r = report.results;
  const load = report.load;
  const amount = load.requests !== undefined ? `${load.requests} requests` : `${load.durationS} s`;
  const how =
    load.mode === 'concurrency'
      ? `concurrency ${load.concurrency}`
      : `request rate ${load.rate}/s (${load.distribution})`;
  const lines = [
    `latency test: ${report.model} at ${report.server}${report.endpoint ? ` (${report.endpoint}${report.engine ? `, ${report.engine} engine` : ''})` : ''} — ${how}, ${amount}` +
      ` (+${load.warmupRequests} warm-up)${report.stream ? ', streaming' : ''}`,
    `  requests ${r.requests}, errors ${r.errors}, ${r.requestsPerSecond} req/s over ${r.durationS} s`,
    `  latency ${formatSummary(r.latency)}`,
  ];
  if (r.ttft) lines.push(`  TTFT    ${formatSummary(r.ttft)}`);
  if (r.itl && r.itl.count > 0) lines.push(`  ITL     ${formatSummary(r.itl)}`);
  const isl = report.metrics.input_sequence_length;
  const osl = report.metrics.output_sequence_length;
  if (report.tokenizer && osl) {
    lines.push(
      `  tokens  ${isl ? `input avg ${isl.avg}, ` : ''}output avg ${osl.avg} (p50 ${osl.p50}), ` +
        `${report.metrics.output_token_throughput?.avg} output tokens/s (native tokenizer)`,
    );
  } else if (isl) {
    lines.push(`  tokens  input avg ${isl.avg}`);
  }
  if (r.outputChunksPerSecond !== undefined && !report.tokenizer)
    lines.push(`  output  ${r.outputChunksPerSecond} chunks (≈ tokens)/s`);
  if (r.sendLag)
    lines.push(`  send lag p99 ${r.sendLag.p99Ms} ms, max ${r.sendLag.maxMs} ms (behind schedule)`);
  if (r.stoppedEarly) lines.push(`  stopped early: ${r.stoppedEarly}`);
  const stability = report.stability;
  if (stability) {
    const n = stability.windows.length;
    lines.push(
      stability.stable
        ? `  stable after ${n} windows of ${stability.spec.windowS} s (last ${stability.spec.stableWindows} within ${stability.spec.tolerance * 100}%)`
        : `  NOT stable: the last ${stability.spec.stableWindows} of ${n} windows disagreed by more than ${stability.spec.tolerance * 100}%; the numbers are of an unsettled system`,
    );
  }
  const goodput = report.metrics.goodput;
  if (goodput) lines.push(`  goodput ${goodput.avg} req/s meeting the SLOs`);
  for (const message of r.errorMessages) lines.push(`  error: ${message}`);
  if (report.serverBreakdown.length > 0) {
    const pending = report.serverBreakdown.some((m) => m.pendingRequests);
    lines.push(
      `  server (per request, ms): request  queue  input  infer  output  batch${pending ? '  pending avg/max' : ''}`,
    );
    for (const m of report.serverBreakdown) {
      const p = m.pendingRequests
        ? `  ${m.pendingRequests.avg.toFixed(2).padStart(6)}/${m.pendingRequests.max}`
        : '';
      lines.push(
        `    ${m.model.padEnd(22)} ${fmt(m.avgRequestMs)} ${fmt(m.avgQueueMs)} ${fmt(m.avgComputeInputMs)} ` +
          `${fmt(m.avgComputeInferMs)} ${fmt(m.avgComputeOutputMs)}  ${m.meanBatchSize.toFixed(2)}${p}`,
      );
    }
    const outside = outsideServerMs(report);
    if (outside !== undefined) {
      lines.push(
        `  outside the server: ${outside} ms of the ${r.latency.avgMs} ms average (network and client: ` +
          `latency avg − ${report.model}'s own time per request)`,
      );
    }
  }
  if (report.metricsError) lines.push(`  pending requests: ${report.metricsError}`);
  return lines.join('\n');
}

/**
 * What of the average latency lies outside the server: the client's average less the server's own
 * mean time per request of the model it called (its statistics). perf_analyzer reports the same
 * split as client send/recv and network; a tool that reads more than another on the same server
 * has more of its own time here (docs/BENCHMARKS.md).
 */
export function outsideServerMs(report: PerfReport): number | undefined {
  const own = report.serverBreakdown.find((m) => m.model === report.model);
  if (!own || own.requests === 0 || report.results.latency.count === 0) return undefined;
  return Math.round((report.results.latency.avgMs - own.avgRequestMs) * 1000) / 1000;
}

function formatSummary(s: LatencySummary): string {
  return `p50 ${s.p50Ms} ms, p90 ${s.p90Ms}, p95 ${s.p95Ms}, p99 ${s.p99Ms}, avg ${s.avgMs}, min ${s.minMs}, max ${s.maxMs}`;
}

function fmt(ms: number): string {
  return ms.toFixed(3).padStart(6);
}

/** Writes the report as JSON; a temporary file renamed into place, so a crash never leaves half a report. */
export function writePerfReport(file: string, report: PerfReport | SweepReport): void {
  writeReportFile(file, `${JSON.stringify(report, null, 2)}\n`);
}

/** A sweep: each point's report, then a table of the main metrics across points (± 95% CI over runs). */
export function formatSweepReport(sweep: SweepReport): string {
  const lines: string[] = [];
  for (const point of sweep.points) for (const run of point.runs) lines.push(formatPerfReport(run));
  const keys = [
    ['request_throughput', 'req/s'],
    ['request_latency.p50', 'latency p50'],
    ['request_latency.p99', 'latency p99'],
    ['time_to_first_token.p50', 'TTFT p50'],
    ['inter_token_latency.p50', 'ITL p50'],
  ].filter(([key]) => sweep.points.some((p) => p.confidence[key!] !== undefined));
  lines.push('', `sweep: ${'load'.padEnd(16)}${keys.map(([, label]) => label!.padStart(20)).join('')}`);
  for (const point of sweep.points) {
    const load = point.load;
    const level = load.mode === 'concurrency' ? `concurrency ${load.concurrency}` : `${load.rate} req/s`;
    const cells = keys.map(([key]) => {
      const ci = point.confidence[key!];
      if (!ci) return ''.padStart(20);
      return (ci.runs > 1 ? `${ci.mean} ±${ci.halfWidth}` : `${ci.mean}`).padStart(20);
    });
    lines.push(`       ${level.padEnd(16)}${cells.join('')}`);
  }
  if (sweep.points.some((p) => p.runs.length > 1))
    lines.push('       (± = 95% confidence interval over the runs)');
  if (sweep.cancelled) lines.push('       cancelled: the points above are all that was measured');
  return lines.join('\n');
}
