/**
 * The `config` escape hatch: raw ModelConfig fields merged last into a step's config.pbtxt. They
 * must be fields model_config.proto has, with values of its types.
 */
import { ModelConfigJsonError, modelConfigFromJson } from '../../pbtxt/json.js';
import type { CheckContext } from './context.js';

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
    }
  }
}
