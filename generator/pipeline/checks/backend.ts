/**
 * What runs a step: a model or custom step names a backend (a valid backend name) or a platform,
 * not both; tokenize/detokenize steps are their own backend, and need a tokenizer reference
 * (whether it exists is the environment's question, `../environment.ts`).
 */
import { isNative, type CheckContext } from './context.js';

export function checkBackends(ctx: CheckContext): void {
  const { report } = ctx;
  for (const step of ctx.steps) {
    if (isNative(step)) {
      if (step.tokenizer === undefined) {
        report(
          step.path,
          'TS-E051',
          `Step "${step.name}" needs a "tokenizer": a known name (gpt2, llama-2, …) or a path to a tokenizer.json.`,
        );
      }
    } else if (step.module?.property === 'source') {
      if (step.backend || step.platform) {
        report(
          [...step.path, step.backend ? 'backend' : 'platform'],
          'TS-E054',
          `Step "${step.name}" is written in TypeScript ("source") and becomes its own backend (libtriton_${step.name}.so); remove "${step.backend ? 'backend' : 'platform'}".`,
        );
      }
      continue;
    } else if (!step.backend && !step.platform && !ctx.presetProblem.has(step)) {
      report(
        step.path,
        'TS-E054',
        `Step "${step.name}" needs a "backend" (e.g. "tensorrtllm", "onnxruntime", "vllm") or a "platform", or a "preset".`,
      );
    }
    if (step.backend && step.platform) {
      report(
        [...step.path, 'platform'],
        'TS-E054',
        `Step "${step.name}" sets both "backend" and "platform"; keep one.`,
      );
    }
    if (step.kind === 'custom' || step.kind === 'model') {
      if (step.backend && !isBackendName(step.backend)) {
        report(
          [...step.path, 'backend'],
          'TS-E040',
          `Backend "${step.backend}" is not a valid backend name: use letters, digits, '_' and '-'.`,
        );
      }
    }
  }
}

/** What Triton turns into `backends/<name>/libtriton_<name>.so`: nothing that leaves the folder. */
export function isBackendName(name: string): boolean {
  return /^[A-Za-z0-9_-]+$/.test(name);
}
