/** Writes a TypeScript custom step as a model folder (config.pbtxt + src/) for tests and benchmarks. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  renderCustomStep,
  type CustomStep,
  type CustomStepPort,
} from '../../generator/codegen/cpp/customStep.js';
import { compileModule, stepSourcesDir } from '../../generator/index.js';

export function portText(p: CustomStepPort): string {
  return `{ name: "${p.name}" data_type: TYPE_${p.dataType} dims: [ ${p.dims.join(', ')} ] }`;
}

export function configText(
  model: string,
  backend: string,
  step: CustomStep,
  parameters: Record<string, string>,
  batching: string,
): string {
  return [
    `name: "${model}"`,
    `backend: "${backend}"`,
    'max_batch_size: 8',
    batching,
    `input [ ${step.inputs.map(portText).join(', ')} ]`,
    `output [ ${step.outputs.map(portText).join(', ')} ]`,
    ...Object.entries(parameters).map(
      ([k, v]) => `parameters { key: "${k}" value { string_value: "${v}" } }`,
    ),
  ].join('\n');
}

/** model/config.pbtxt, model/1/, REPO.src/model/{step.cc,module.h,CMakeLists.txt}; returns the step. */
export function writeCustomStep(
  repo: string,
  model: string,
  file: string,
  parameters: Record<string, string>,
  batching = 'dynamic_batching { }',
): CustomStep {
  const step = renderCustomStep(compileModule({ fileName: file, text: readFileSync(file, 'utf8') }), model);
  const dir = join(repo, model);
  const src = join(stepSourcesDir(repo), model);
  mkdirSync(src, { recursive: true });
  mkdirSync(join(dir, '1'), { recursive: true });
  for (const [name, text] of Object.entries(step.files)) writeFileSync(join(src, name), text);
  writeFileSync(join(dir, 'config.pbtxt'), configText(model, model, step, parameters, batching));
  return step;
}
