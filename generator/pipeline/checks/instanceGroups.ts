/**
 * Instance groups: GPUs listed for a CPU or MODEL group (Triton refuses to load the model), and a
 * native tokenize/detokenize step given GPU instances. Those steps run on the CPU only: on a GPU
 * server kind GPU (or AUTO, which becomes GPU there) makes `count` instances per GPU that never
 * use it, and a server without a GPU refuses to load the model.
 */
import type { JsonPath } from '../source.js';
import { generatedKind, isGenerated, type CheckContext } from './context.js';

export function checkInstanceGroups(ctx: CheckContext): void {
  for (const step of ctx.steps) {
    // Groups the step lists itself are pointed at; a preset's point at the "preset" property.
    const own = ctx.pipeline.steps[step.index]?.instanceGroups !== undefined;
    const native = isGenerated(step);
    step.instanceGroups.forEach((g, i) => {
      const group: JsonPath = own ? [...step.path, 'instanceGroups', i] : [...step.path, 'preset'];
      const kind = g.kind ?? 'AUTO';
      const which = own
        ? `instanceGroups[${i}] of step "${step.name}"`
        : `The instance group of preset "${step.preset?.id}" (step "${step.name}")`;
      if ((kind === 'CPU' || kind === 'MODEL') && g.gpus?.length) {
        ctx.report(
          own ? [...group, 'gpus'] : group,
          'TS-E033',
          `${which} has kind ${kind} but lists gpus; Triton refuses to load such a model. ` +
            `Remove "gpus"${native ? '' : ', or use kind "GPU" to place instances on those GPUs'}.`,
        );
      } else if (native && (kind === 'GPU' || kind === 'AUTO' || g.gpus?.length)) {
        const field = g.kind !== undefined ? 'kind' : g.gpus?.length ? 'gpus' : undefined;
        ctx.report(
          own && field ? [...group, field] : group,
          'TS-W005',
          `${which} is ${g.kind === undefined ? 'of kind AUTO (GPU on a GPU server)' : `of kind ${kind}`}` +
            `${g.gpus?.length ? ' on GPUs' : ''}, but ${generatedKind(step)} run on the CPU only: ` +
            'a server without a GPU refuses to load it, and on one with GPUs each instance holds a GPU it never uses. ' +
            'Use "kind": "CPU" (and no "gpus").',
          'warning',
        );
      }
    });
  }
}
