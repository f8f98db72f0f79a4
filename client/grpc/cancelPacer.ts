/**
 * Cancellations sent one at a time, a short gap apart. Triton 2.51 (and every server before 24.12)
 * crashes or deadlocks under bursts of concurrent gRPC stream cancellations (upstream
 * triton-inference-server/server #7368, #8034; fixed by #7840): 50 clients of the OpenAI front
 * hanging up at once took it down within ten bursts. Paced, the same bursts leave it serving, and a
 * cancellation is late by at most its place in the queue times the gap.
 */
export class CancelPacer {
  private readonly queue: AbortController[] = [];
  private draining = false;
  private lastMs = -Infinity;

  constructor(private readonly gapMs = 20) {}

  /**
   * A signal that aborts, through the queue, once `source` aborts: pass it where `source` would go.
   * `source` aborting after the work ended costs nothing (the abort finds nobody listening).
   */
  paced(source: AbortSignal): AbortSignal {
    const controller = new AbortController();
    const enqueue = () => {
      this.queue.push(controller);
      void this.drain();
    };
    if (source.aborted) enqueue();
    else source.addEventListener('abort', enqueue, { once: true });
    return controller.signal;
  }

  /** Cancellations waiting (for tests). */
  get waiting(): number {
    return this.queue.length;
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const wait = this.lastMs + this.gapMs - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        this.lastMs = performance.now();
        this.queue.shift()!.abort();
      }
    } finally {
      this.draining = false;
    }
  }
}
