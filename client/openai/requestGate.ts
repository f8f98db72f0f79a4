/**
 * Bounded concurrency for the OpenAI front: at most `maxActive` requests are read, tokenized and
 * sent at once, so memory stays bounded by the limits times the body size whatever the load.
 * Later ones wait in order (their bodies unread, held back by TCP) up to `maxQueued`; beyond
 * that they are refused at once with 429, as OpenAI answers a rate limit.
 */
import { ApiError } from './protocol.js';

export class RequestGate {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly maxActive: number,
    private readonly maxQueued: number,
  ) {}

  /** Resolves with the release function once the request may run; a request gone while waiting leaves the queue. */
  enter(gone: AbortSignal): Promise<() => void> {
    if (gone.aborted) return Promise.reject(new ApiError(499, 'the client closed the connection'));
    if (this.active < this.maxActive) return Promise.resolve(this.admit());
    if (this.queue.length >= this.maxQueued) {
      return Promise.reject(
        new ApiError(
          429,
          `this server is handling ${this.active} requests with ${this.queue.length} waiting (openai-serve ` +
            '--max-concurrent, --max-queued): retry later',
          'rate_limit_error',
          null,
          'rate_limit_exceeded',
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const wake = () => {
        gone.removeEventListener('abort', leave);
        resolve(this.admit());
      };
      const leave = () => {
        const at = this.queue.indexOf(wake);
        if (at >= 0) this.queue.splice(at, 1);
        reject(new ApiError(499, 'the client closed the connection while its request waited'));
      };
      gone.addEventListener('abort', leave, { once: true });
      this.queue.push(wake);
    });
  }

  /** Requests running and waiting now (for tests and logs). */
  get load(): { active: number; queued: number } {
    return { active: this.active, queued: this.queue.length };
  }

  private admit(): () => void {
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.queue.shift()?.();
    };
  }
}
