/** Pacer: open-loop send times kept by a worker thread, off the main event loop. */
import { performance } from 'node:perf_hooks';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

/** Send times queued ahead for the worker (a ring buffer in shared memory). */
const RING = 256;

/**
 * The worker: for each queued send time in turn, sleep on a futex until it (Atomics.wait takes a
 * fractional-ms timeout, so it wakes within tens of µs), then publish how many sends are due and
 * wake the main thread. Control words: [times written, times due, closed].
 */
const WORKER = `
const { workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const control = new Int32Array(workerData, 0, 4);
const times = new Float64Array(workerData, 16);
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const now = () => performance.timeOrigin + performance.now();
(function run() {
  for (let next = 0; ; next++) {
    while (Atomics.load(control, 0) <= next) {
      if (Atomics.load(control, 2) === 1) return;
      Atomics.wait(control, 0, Atomics.load(control, 0));
    }
    const at = times[next % ${RING}];
    for (let left = at - now(); left > 0; left = at - now()) Atomics.wait(sleeper, 0, 0, left);
    Atomics.store(control, 1, next + 1);
    Atomics.notify(control, 1);
  }
})();
`;

/** ES2024's Atomics.waitAsync (Node ≥ 16), beyond the project's TypeScript lib. */
interface AtomicsWaitAsync {
  waitAsync(
    array: Int32Array,
    index: number,
    value: number,
  ): { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
}

/**
 * Wakes the open loop at each scheduled send time. Node's timers have whole-millisecond resolution
 * (a send due 0.4 ms after the previous one goes 0–1 ms late, and finishing waits by spinning on
 * setImmediate burns CPU on every send), so a worker thread that knows the next send times sleeps
 * precisely and wakes the event loop once per send (bench/perf/pacer.ts measures both).
 */
export class Pacer {
  /** [times written, times due, closed] */
  private readonly control: Int32Array;
  /** Send times as absolute ms (timeOrigin + performance.now()): the two threads' clocks differ in origin. */
  private readonly times: Float64Array;
  private written = 0;
  private taken = 0;

  private constructor(
    private readonly worker: Worker,
    shared: SharedArrayBuffer,
    private readonly nextTime: () => number,
  ) {
    this.control = new Int32Array(shared, 0, 4);
    this.times = new Float64Array(shared, 16);
    this.refill();
  }

  /**
   * Starts the worker, and only then the schedule, so the first sends are not late by the
   * worker's start-up. `nextTime(origin)` gives the send times in order (performance.now() ms);
   * it is called ahead of need.
   */
  static async start(nextTime: (origin: number) => number): Promise<Pacer> {
    const shared = new SharedArrayBuffer(16 + 8 * RING);
    const worker = new Worker(WORKER, { eval: true, workerData: shared });
    await once(worker, 'online');
    const origin = performance.now();
    return new Pacer(worker, shared, () => nextTime(origin));
  }

  /** The next send time (performance.now() ms), without waiting for it. */
  upcoming(): number {
    return this.times[this.taken % RING]! - performance.timeOrigin;
  }

  /** Resolves when the next send time has come (never before); returns it (performance.now() ms). */
  async next(): Promise<number> {
    const index = this.taken++;
    const at = this.times[index % RING]! - performance.timeOrigin;
    for (;;) {
      const due = Atomics.load(this.control, 1);
      if (due > index) break;
      // Resolves on the worker's notify. (A pending waitAsync alone would not keep Node's event
      // loop alive; the referenced worker does.)
      const wait = (Atomics as unknown as AtomicsWaitAsync).waitAsync(this.control, 1, due);
      if (wait.async) await wait.value;
    }
    this.refill();
    while (performance.now() < at) await new Promise((resolve) => setImmediate(resolve));
    return at;
  }

  close(): void {
    Atomics.store(this.control, 2, 1);
    Atomics.notify(this.control, 0);
    void this.worker.terminate();
  }

  private refill(): void {
    if (this.written - this.taken > RING / 2) return;
    while (this.written - this.taken < RING) {
      this.times[this.written++ % RING] = performance.timeOrigin + this.nextTime();
    }
    Atomics.store(this.control, 0, this.written);
    Atomics.notify(this.control, 0);
  }
}
