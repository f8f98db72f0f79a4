/** perf's live terminal view: one progress bar per run, on stderr. */
import { SingleBar, Presets } from 'cli-progress';
import type { SweepProgress } from '../client/index.js';

/**
 * The live terminal view of a latency test: one progress bar per run, with the completed and
 * failed requests and the running request latency. Drawn on stderr, and only on a terminal.
 */
export function liveProgress(): { update: (p: SweepProgress) => void; stop: () => void } {
  const bar = new SingleBar(
    {
      stream: process.stderr,
      format: '{label} |{bar}| {value}/{total} requests · {errors} failed · last {latency} ms',
      hideCursor: true,
      clearOnComplete: false,
      noTTYOutput: false,
    },
    Presets.shades_classic,
  );
  let active = false;
  return {
    update: (p) => {
      const label = `${p.load.mode === 'concurrency' ? `c=${p.load.concurrency}` : `${p.load.rate}/s`} run ${p.run + 1}/${p.runs}`;
      const total = p.load.requests ?? Math.max(p.completed, 1);
      const payload = { label, errors: p.errors, latency: p.record ? p.record.latencyMs.toFixed(1) : '-' };
      if (p.record === undefined && p.report === undefined) {
        if (active) bar.stop();
        bar.start(total, 0, payload);
        active = true;
      } else {
        if (p.load.requests === undefined) bar.setTotal(Math.max(total, p.completed));
        bar.update(p.completed, payload);
      }
      if (p.report) {
        bar.stop();
        active = false;
      }
    },
    stop: () => {
      if (active) bar.stop();
      active = false;
    },
  };
}
