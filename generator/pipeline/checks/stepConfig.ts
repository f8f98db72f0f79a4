/**
 * The `config` escape hatch: raw ModelConfig fields merged last into a step's config.pbtxt. They
 * must be fields model_config.proto has, with values of its types, and must not undo what the
 * rest of the file decides: the model's name is its folder (Triton loads a model only from the
 * folder of its name), and a backend is a name Triton turns into a library path.
 */
import { ModelConfigJsonError, modelConfigFromJson } from '../../pbtxt/json.js';
import { isBackendName } from './backend.js';
import { isNative, type CheckContext } from './context.js';

export function checkStepConfigs(ctx: CheckContext): void {
  for (const step of ctx.steps) {
    if (step.config === undefined) continue;
    try {
      modelConfigFromJson(step.config);
    } catch (e) {
      if (!(e instanceof ModelConfigJsonError)) throw e;
      ctx.report(
        [...step.path, 'config'],
        'TS-E003',
        `"config" of step "${step.name}" is not a valid ModelConfig: ${e.message.replace(/^config/, 'config')}. Use model_config.proto field names.`,
      );
      continue;
    }
    const { name, backend, platform } = step.config;
    if (name !== undefined && name !== step.name) {
      ctx.report(
        [...step.path, 'config', 'name'],
        'TS-E040',
        `config.name ${JSON.stringify(name)} differs from the step's name "${step.name}", which names its model folder; ` +
          'Triton loads a model only from the folder of its name. Remove config.name, or rename the step.',
      );
    }
    if (isNative(step) && (backend !== undefined || platform !== undefined)) {
      ctx.report(
        [...step.path, 'config', backend !== undefined ? 'backend' : 'platform'],
        'TS-E054',
        `A native ${step.kind} step is its own backend (libtriton_${step.name}.so); remove config.${backend !== undefined ? 'backend' : 'platform'}.`,
      );
    } else if (typeof backend === 'string' && !isBackendName(backend)) {
      ctx.report(
        [...step.path, 'config', 'backend'],
        'TS-E040',
        `config.backend ${JSON.stringify(backend)} is not a valid backend name: use letters, digits, '_' and '-'.`,
      );
    }
  }
}
