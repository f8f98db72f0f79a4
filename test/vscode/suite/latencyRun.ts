/**
 * The latency test's saved report, as a suite waits for it: the extension writes a sweep to the
 * workspace's `.triton-studio/reports/<model>-….json` when a run ends.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from './waitFor.js';

/** What a suite checks of one run's results. */
export interface SavedRunResults {
  errors: number;
  latency: { p50Ms: number };
}

type Sweep = { points: { runs: { results: SavedRunResults }[] }[] };

/** Waits for the first report of `model` in `reports` (one half-written is read again) and returns its first run's results. */
export async function savedLatencyRun(
  reports: string,
  model: string,
  timeoutMs: number,
): Promise<SavedRunResults | undefined> {
  const sweep = await waitFor<Sweep>(
    'the latency run to be saved',
    () => {
      const file = existsSync(reports)
        ? readdirSync(reports).find((f) => f.startsWith(`${model}-`))
        : undefined;
      try {
        return file ? (JSON.parse(readFileSync(join(reports, file), 'utf8')) as Sweep) : undefined;
      } catch {
        return undefined; // still being written
      }
    },
    timeoutMs,
  );
  return sweep.points.flatMap((p) => p.runs).map((r) => r.results)[0];
}
