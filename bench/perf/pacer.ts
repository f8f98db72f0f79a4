/**
 * Pacer accuracy: how late open-loop sends are against their schedule at high rates, with the
 * lab's pacer (timer, then setImmediate until due) against a plain setTimeout pacer, side by
 * side in one process, sending no-op requests (the client's own lateness only).
 *
 *   node --import tsx bench/perf/pacer.ts [rate …]     (default 200 1000 4000)
 */
import { performance } from 'node:perf_hooks';
import { runRequestRateLoad } from '../../client/perf/requestRate.js';
import { LatencyRecorder } from '../../client/perf/summary.js';

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

async function main(): Promise<void> {
  const rates = process.argv.slice(2).map(Number);
  for (const rate of rates.length > 0 ? rates : [200, 1000, 4000]) {
    const count = Math.round(rate * 2);
    const lab = await runRequestRateLoad(
      { mode: 'request-rate', rate, distribution: 'constant', requests: count, warmupRequests: 0 },
      async () => undefined,
    );
    const labLags = lab.outcomes.map((o) => o.lagMs ?? 0);
    const timerLags = await timerPacer(rate, count);
    console.log(
      `${rate}/s × ${count}: lab pacer ${summary(labLags)} | setTimeout pacer ${summary(timerLags)}`,
    );
  }
}

void main();
