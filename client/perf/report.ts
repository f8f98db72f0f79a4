import { renameSync, rmSync, writeFileSync } from 'node:fs';
import type { PerfReport } from './latencyTest.js';
import type { LatencySummary } from './summary.js';

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
    `latency test: ${report.model} at ${report.server} — ${how}, ${amount}` +
      ` (+${load.warmupRequests} warm-up)${report.stream ? ', streaming' : ''}`,
    `  requests ${r.requests}, errors ${r.errors}, ${r.requestsPerSecond} req/s over ${r.durationS} s`,
    `  latency ${formatSummary(r.latency)}`,
  ];
  if (r.ttft) lines.push(`  TTFT    ${formatSummary(r.ttft)}`);
  if (r.itl && r.itl.count > 0) lines.push(`  ITL     ${formatSummary(r.itl)}`);
  if (r.outputChunksPerSecond !== undefined)
    lines.push(`  output  ${r.outputChunksPerSecond} chunks (≈ tokens)/s`);
  if (r.sendLag)
    lines.push(`  send lag p99 ${r.sendLag.p99Ms} ms, max ${r.sendLag.maxMs} ms (behind schedule)`);
  const goodput = report.metrics.goodput;
  if (goodput) lines.push(`  goodput ${goodput.avg} req/s meeting the SLOs`);
  for (const message of r.errorMessages) lines.push(`  error: ${message}`);
  if (report.serverBreakdown.length > 0) {
    lines.push('  server (per request, ms):  queue  input  infer  output  batch');
    for (const m of report.serverBreakdown) {
      lines.push(
        `    ${m.model.padEnd(22)} ${fmt(m.avgQueueMs)} ${fmt(m.avgComputeInputMs)} ${fmt(m.avgComputeInferMs)} ` +
          `${fmt(m.avgComputeOutputMs)}  ${m.meanBatchSize.toFixed(2)}`,
      );
    }
  }
  return lines.join('\n');
}

function formatSummary(s: LatencySummary): string {
  return `p50 ${s.p50Ms} ms, p90 ${s.p90Ms}, p95 ${s.p95Ms}, p99 ${s.p99Ms}, avg ${s.avgMs}, min ${s.minMs}, max ${s.maxMs}`;
}

function fmt(ms: number): string {
  return ms.toFixed(3).padStart(6);
}

/** Writes the report as JSON; a temporary file renamed into place, so a crash never leaves half a report. */
export function writePerfReport(file: string, report: PerfReport): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, `${JSON.stringify(report, null, 2)}\n`);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new Error(
      `cannot write the report to ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
