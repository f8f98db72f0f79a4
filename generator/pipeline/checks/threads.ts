/**
 * The llama.cpp step's `n_threads`: a whole number ≥ 0 (0 = the step picks one fewer than the
 * server's CPUs), and a warning when it asks for more threads than leave a CPU free. ggml's
 * threads spin-wait for one another at every step, so a thread that has no core of its own stalls
 * all of them: on a busy 2-core machine 2 threads decoded 35–60× slower than 1 (docs/LLAMA-CPP.md).
 */
import type { CheckContext } from './context.js';

/** Backends whose `n_threads` parameter is ggml's thread count. */
const GGML_BACKENDS: ReadonlySet<string> = new Set(['llama_cpp']);
export const THREADS_PARAMETER = 'n_threads';

/** The most threads that leave a CPU free for Triton, the tokenizer and the orchestrator. */
export function sensibleThreads(cpus: number): number {
  return Math.max(1, cpus - 1);
}

/** `cpus`: the CPUs of the machine that validates (the server's are unknown here), when known. */
export function checkThreads(ctx: CheckContext, cpus: number | undefined): void {
  for (const step of ctx.steps) {
    if (!step.backend || !GGML_BACKENDS.has(step.backend)) continue;
    const value = step.parameters[THREADS_PARAMETER];
    if (value === undefined) continue;
    const path = [...step.path, 'parameters', THREADS_PARAMETER];
    const own = ctx.pipeline.steps[step.index]?.parameters?.[THREADS_PARAMETER] !== undefined;
    const at = own ? path : [...step.path, 'preset'];
    if (!/^\d+$/.test(value.trim())) {
      ctx.report(
        at,
        'TS-E062',
        `"${THREADS_PARAMETER}" must be a whole number of threads ≥ 0 (0: one fewer than the server's CPUs); got ${JSON.stringify(value)}.`,
      );
      continue;
    }
    const threads = Number(value);
    if (cpus === undefined || threads <= sensibleThreads(cpus)) continue;
    ctx.report(
      at,
      'TS-W013',
      `"${THREADS_PARAMETER}": ${threads} threads on a machine with ${cpus} CPU${cpus === 1 ? '' : 's'}: ` +
        `llama.cpp's threads spin-wait for each other, so a thread without a free core slows every step ` +
        `(tens of times on a busy machine). Use 0 (one fewer than the server's CPUs) or at most ${sensibleThreads(cpus)} ` +
        `here; on a server with more free cores, more is fine.`,
      'warning',
    );
  }
}
