/**
 * Pacer accuracy: how late open-loop sends are against their schedule at high rates, with the
 * lab's pacer (a worker thread sleeping on a futex wakes the event loop) against a plain
 * setTimeout pacer, side by side in one process, sending no-op requests (the client's own
 * lateness only), and the CPU each spends per send.
 *
 *   node --import tsx bench/perf/pacer.ts [rate …]     (default 200 1000 4000)
 */
import { performance } from 'node:perf_hooks';
import { runRequestRateLoad } from '../../client/perf/load/requestRate.js';
import { LatencyRecorder } from '../../client/perf/metrics/summary.js';

async function timerPacer(rate: number, count: number): Promise<number[]> {
  const lags: number[] = [];
  const origin = performance.now();
  for (let i = 0; i < count; i++) {
    const due = origin + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    lags.push(Math.max(0, performance.now() - due));
  }
  return lags;
}

function summary(lags: number[]): string {
  const r = new LatencyRecorder();
  for (const l of lags) r.record(l);
  const s = r.summary();
  r.destroy();
  return `p50 ${s.p50Ms} ms, p99 ${s.p99Ms} ms, max ${s.maxMs} ms`;
}

function perSend(used: NodeJS.CpuUsage, count: number): string {
  return `${((used.user + used.system) / count).toFixed(1)} µs CPU/send`;
}

async function main(): Promise<void> {
  const rates = process.argv.slice(2).map(Number);
  for (const rate of rates.length > 0 ? rates : [200, 1000, 4000]) {
    const count = Math.round(rate * 2);
    let cpu = process.cpuUsage();
    const lab = await runRequestRateLoad(
      { mode: 'request-rate', rate, distribution: 'constant', requests: count, warmupRequests: 0 },
      async () => undefined,
    );
    const labCpu = perSend(process.cpuUsage(cpu), count);
    const labLags = lab.outcomes.map((o) => o.lagMs ?? 0);
    cpu = process.cpuUsage();
    const timerLags = await timerPacer(rate, count);
    const timerCpu = perSend(process.cpuUsage(cpu), count);
    console.log(
      `${rate}/s × ${count}: lab pacer ${summary(labLags)}, ${labCpu} | setTimeout pacer ${summary(timerLags)}, ${timerCpu}`,
    );
  }
}

void main();
