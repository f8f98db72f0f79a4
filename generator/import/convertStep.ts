/**
 * One model of the repository as a pipeline step: a native tokenize/detokenize step where
 * nativeStep.ts can make one, else the model as it is, with what the format has no name for in
 * the step's raw `config`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { modelConfigToJson } from '../pbtxt/json.js';
import type { ModelConfig, PbMessage } from '../pbtxt/types.js';
import type { Pipeline, Step } from '../pipeline/types.js';
import { copyScheduling, port } from './configFields.js';
import { nativeCandidate } from './nativeStep.js';
import type { Emit, LoadedModel, Note } from './types.js';

/** Model config fields the pipeline format expresses itself (the rest goes into a step's `config`). */
const EXPRESSED = new Set([
  'name',
  'backend',
  'platform',
  'max_batch_size',
  'input',
  'output',
  'instance_group',
  'parameters',
  'model_transaction_policy',
]);

export function convertStep(
  model: LoadedModel,
  pipeline: Pipeline,
  note: Note,
  rel: (p: string) => string,
  emit: Emit,
): Step {
  const cfg = model.config;
  const inputs = (cfg.input ?? []).map(port);
  const outputs = (cfg.output ?? []).map(port);
  const params: Record<string, string> = Object.fromEntries(
    Object.entries(cfg.parameters ?? {}).map(([k, v]) => [k, v.string_value ?? '']),
  );
  const step: Step = { name: model.name, kind: 'model' };
  const native = nativeCandidate(model, inputs, outputs, params, pipeline, note, rel, emit);
  if (native) return native;

  if (cfg.backend === 'python') step.kind = 'custom';
  if (cfg.platform) step.platform = cfg.platform;
  else if (cfg.backend) step.backend = cfg.backend;
  step.maxBatchSize = cfg.max_batch_size ?? 0;
  copyScheduling(cfg, step);
  if (Object.keys(params).length) step.parameters = params;
  step.inputs = inputs;
  step.outputs = outputs;
  const files = versionFiles(model);
  if (files.length) step.files = files.map(rel);
  const rest = leftoverConfig(cfg, step);
  if (rest) step.config = rest;
  return step;
}

/** Config fields with no pipeline equivalent, as protobuf JSON (kept in the step's `config`). */
function leftoverConfig(cfg: ModelConfig, step: Step): Record<string, unknown> | undefined {
  const rest: ModelConfig = {};
  for (const [k, v] of Object.entries(cfg)) {
    if (EXPRESSED.has(k) || v === undefined) continue;
    if (k === 'dynamic_batching' && step.dynamicBatching !== undefined) {
      const {
        preferred_batch_size: _p,
        max_queue_delay_microseconds: _q,
        preserve_ordering: _o,
        ...more
      } = v as PbMessage;
      if (Object.keys(more).length) rest.dynamic_batching = more;
      continue;
    }
    if (k === 'instance_group' && step.instanceGroups) continue;
    rest[k] = v;
  }
  for (const g of cfg.instance_group ?? []) {
    const { count: _c, kind: _k, gpus: _g, ...more } = g;
    if (Object.keys(more).length) rest.instance_group = cfg.instance_group; // names, rate limiters…: keep all
  }
  if (rest.instance_group) delete step.instanceGroups;
  return Object.keys(rest).length ? (modelConfigToJson(rest) as Record<string, unknown>) : undefined;
}

/** Files in the model's version folders, except libraries the build produces. */
function versionFiles(model: LoadedModel): string[] {
  const out: string[] = [];
  for (const v of readdirSync(model.dir, { withFileTypes: true })) {
    if (!v.isDirectory() || !/^\d+$/.test(v.name)) continue;
    for (const f of readdirSync(join(model.dir, v.name), { withFileTypes: true })) {
      if (/^libtriton_.*\.so$/.test(f.name) || f.name === '__pycache__') continue;
      out.push(join(model.dir, v.name, f.name));
    }
  }
  return out;
}
