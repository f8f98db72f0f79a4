/**
 * Triton's pending request count per model (`nv_inference_pending_request_count`, a gauge in its
 * Prometheus metrics: requests waiting in a model's queue), sampled through a measured run. The
 * statistics extension has no such figure: it tells how long requests queued, this how many.
 */
import parse from 'parse-prometheus-text-format';
import { request } from 'undici';

export const PENDING_METRIC = 'nv_inference_pending_request_count';

export interface PendingRequests {
  model: string;
  version: string;
  /** Mean over the samples taken during the run. */
  avg: number;
  max: number;
  samples: number;
}

/** Pending requests per `model\0version` in one scrape of the metrics text. */
export function pendingCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const family = parse(text).find((f) => f.name === PENDING_METRIC);
  for (const m of family?.metrics ?? []) {
    const model = m.labels?.model;
    if (model !== undefined) counts.set(`${model}\u0000${m.labels?.version ?? ''}`, Number(m.value));
  }
  return counts;
}

/** Scrapes the metrics URL every `intervalMs` from `start()` to `stop()`. */
export class PendingSampler {
  private readonly sums = new Map<string, { sum: number; max: number; samples: number }>();
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  /** Why scraping failed, if it did (the report then has no pending counts). */
  failure: string | undefined;

  constructor(
    readonly metricsUrl: string,
    private readonly intervalMs = 100,
  ) {}

  start(): void {
    const tick = () => {
      this.inFlight ??= this.scrape().finally(() => (this.inFlight = undefined));
    };
    tick();
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<PendingRequests[]> {
    clearInterval(this.timer);
    await this.inFlight;
    await this.scrape(); // the last moment of the run
    return [...this.sums].map(([key, s]) => {
      const [model, version] = key.split('\u0000') as [string, string];
      return {
        model,
        version,
        avg: Math.round((s.sum / s.samples) * 1000) / 1000,
        max: s.max,
        samples: s.samples,
      };
    });
  }

  private async scrape(): Promise<void> {
    if (this.failure) return;
    try {
      const response = await request(this.metricsUrl, { headersTimeout: 2000, bodyTimeout: 2000 });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
      for (const [key, n] of pendingCounts(text)) {
        const s = this.sums.get(key) ?? { sum: 0, max: 0, samples: 0 };
        s.sum += n;
        s.max = Math.max(s.max, n);
        s.samples++;
        this.sums.set(key, s);
      }
    } catch (error) {
      this.failure = `cannot read Triton's metrics at ${this.metricsUrl}: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}
