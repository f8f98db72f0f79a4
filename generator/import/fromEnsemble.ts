/**
 * The pipeline's outline from a repository's ensemble (ports, steps as placeholders, wires), or
 * around its one model when it has no ensemble; models the ensemble does not use are noted.
 */
import { PIPELINE_FORMAT_VERSION, type Pipeline, type Port, type Wire } from '../pipeline/types.js';
import { port } from './configFields.js';
import type { LoadedModel, Note } from './types.js';

export function fromEnsemble(ensemble: LoadedModel, models: Map<string, LoadedModel>, note: Note): Pipeline {
  const cfg = ensemble.config;
  // Where the pipeline format is stricter than Triton, import repairs the ensemble and says so.
  const inputs = (cfg.input ?? []).map(port).map((p) => {
    if (!p.raggedBatch) return p;
    note(
      ensemble.configFile,
      'TS-W008',
      `Ensemble input "${p.name}": allow_ragged_batch left out (an ensemble does not batch; the steps that read it keep theirs).`,
      'info',
    );
    const { raggedBatch: _r, ...rest } = p;
    return rest;
  });
  const outputs: Port[] = [];
  for (const o of (cfg.output ?? []).map(port)) {
    if (outputs.some((p) => p.name === o.name)) {
      note(
        ensemble.configFile,
        'TS-W008',
        `Ensemble output "${o.name}" is declared twice; the pipeline keeps one (Triton serves one tensor of that name).`,
        'warning',
      );
    } else outputs.push(o);
  }
  const pipeline: Pipeline = {
    version: PIPELINE_FORMAT_VERSION,
    name: ensemble.name,
    maxBatchSize: cfg.max_batch_size ?? 0,
    inputs,
    outputs,
    steps: [],
    wires: [],
  };
  if (cfg.ensemble_scheduling?.max_inflight_requests !== undefined) {
    pipeline.maxInflightRequests = Number(cfg.ensemble_scheduling.max_inflight_requests);
  }
  addSteps(ensemble, models, pipeline, note);
  const params = cfg.parameters;
  if (params && Object.keys(params).length) {
    pipeline.parameters = Object.fromEntries(
      Object.entries(params).map(([k, v]) => [k, v.string_value ?? '']),
    );
  }
  return pipeline;
}

/** The ensemble's steps as placeholder steps of the pipeline, and the wires between them. */
function addSteps(
  ensemble: LoadedModel,
  models: Map<string, LoadedModel>,
  pipeline: Pipeline,
  note: Note,
): void {
  const steps = ensemble.config.ensemble_scheduling?.step ?? [];
  // Which step output (or ensemble input) produces each ensemble tensor.
  const producer = new Map<string, string>();
  for (const i of pipeline.inputs) producer.set(i.name, i.name);
  for (const s of steps) {
    for (const [out, tensor] of Object.entries(s.output_map ?? {}))
      producer.set(tensor, `${s.model_name}.${out}`);
  }
  const outputNames = new Set(pipeline.outputs.map((o) => o.name));
  for (const s of steps) {
    if (!models.has(s.model_name)) {
      note(
        ensemble.configFile,
        'TS-E071',
        `Ensemble step "${s.model_name}" has no model folder in the repository.`,
      );
      continue;
    }
    if (!pipeline.steps.some((p) => p.name === s.model_name))
      pipeline.steps.push({ name: s.model_name, kind: 'model' });
    for (const [input, tensor] of Object.entries(s.input_map ?? {})) {
      const from = producer.get(tensor);
      if (!from) {
        note(
          ensemble.configFile,
          'TS-E071',
          `Tensor "${tensor}" read by step "${s.model_name}" is produced by nothing.`,
        );
        continue;
      }
      const wire: Wire = { from, to: `${s.model_name}.${input}` };
      // Keep the repository's own intermediate tensor names where they differ from the default.
      const fromStep = !pipeline.inputs.some((i) => i.name === from);
      if (fromStep && tensor !== from.replace('.', '_') && !outputNames.has(tensor)) wire.tensor = tensor;
      pipeline.wires.push(wire);
    }
    for (const [out, tensor] of Object.entries(s.output_map ?? {})) {
      if (outputNames.has(tensor)) pipeline.wires.push({ from: `${s.model_name}.${out}`, to: tensor });
    }
  }
}

/**
 * Models beside the ensemble that are none of its steps are left out of the pipeline, with a note
 * each: other ensembles, and front-ends such as TensorRT-LLM's `tensorrt_llm_bls`, a Python BLS
 * model that calls the steps itself. Keeping that one would bring Python back and break it: it
 * calls the steps by their Python-era tensors, and the generated ensemble already serves the same
 * requests natively.
 */
export function noteModelsLeftOut(
  ensemble: LoadedModel,
  models: Map<string, LoadedModel>,
  pipeline: Pipeline,
  note: Note,
): void {
  for (const model of [...models.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    if (model === ensemble || pipeline.steps.some((s) => s.name === model.name)) continue;
    const python = model.config.backend === 'python';
    const speaksText = (model.config.input ?? []).some((i) => i.name === 'text_input');
    const why =
      model.config.platform === 'ensemble'
        ? `another ensemble; import it with --ensemble ${model.name}`
        : python && speaksText
          ? `a Python front-end (BLS) that calls the models itself; send its requests (text_input, ...) to ` +
            `the ensemble "${ensemble.name}", which the pipeline generates without Python`
          : `not used by the ensemble "${ensemble.name}"`;
    note(model.configFile, 'TS-W073', `Model "${model.name}" is left out of the pipeline: ${why}.`, 'info');
  }
}

/** A repository with one model and no ensemble (e.g. vLLM): the pipeline wraps it. */
export function fromSingleModel(model: LoadedModel): Pipeline {
  const cfg = model.config;
  const inputs = (cfg.input ?? []).map(port);
  const outputs = (cfg.output ?? []).map(port);
  const name = `${model.name}_ensemble`;
  return {
    version: PIPELINE_FORMAT_VERSION,
    name,
    maxBatchSize: cfg.max_batch_size ?? 0,
    inputs,
    outputs,
    steps: [{ name: model.name, kind: 'model' }],
    wires: [
      ...inputs.map((p) => ({ from: p.name, to: `${model.name}.${p.name}` })),
      ...outputs.map((p) => ({ from: `${model.name}.${p.name}`, to: p.name })),
    ],
  };
}
