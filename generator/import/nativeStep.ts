/**
 * A Python (or earlier generated) tokenizer step as a native tokenize/detokenize step: its
 * tokenizer found, its ports given roles, its Python-only tensors dropped; or kept as it is, with
 * a warning saying why.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Pipeline, Port, PortRole, Step } from '../pipeline/types.js';
import { stepSourcesDir } from '../repository/layout.js';
import { copyScheduling } from './configFields.js';
import { roleTables, tokenizerStepKind } from './roles.js';
import type { Emit, LoadedModel, Note } from './types.js';
import { findVocabMerges, tokenizerJsonFromFiles, VocabMergesError } from './vocabMerges.js';

/** Parameters that name a tokenizer folder or file in the templates people use. */
const TOKENIZER_PARAMETERS = ['tokenizer_dir', 'tokenizer_path', 'tokenizer'];

/** The tokenizer a Python (or earlier generated) step uses, when it can be found on this machine. */
function findTokenizer(
  model: LoadedModel,
  params: Record<string, string>,
): { file?: string; vocabMerges?: { vocab: string; merges: string }; why: string } {
  for (const key of TOKENIZER_PARAMETERS) {
    const value = params[key];
    if (value === undefined) continue;
    if (/\$\{[^}]*\}/.test(value)) {
      return {
        why: `its "${key}" parameter is still a template placeholder (${value}); fill it in (fill_template.py) and import again`,
      };
    }
    const full = isAbsolute(value) ? value : resolve(model.dir, value);
    const file = existsSync(full) && statSync(full).isDirectory() ? join(full, 'tokenizer.json') : full;
    if (existsSync(file) && basename(file) === 'tokenizer.json') return { file, why: '' };
    return { why: `its "${key}" parameter (${value}) holds no tokenizer.json on this machine` };
  }
  for (const candidate of [join(model.dir, '1', 'tokenizer.json'), join(model.dir, 'tokenizer.json')]) {
    if (existsSync(candidate)) return { file: candidate, why: '' };
  }
  for (const dir of [join(model.dir, '1'), model.dir]) {
    const pair = findVocabMerges(dir);
    if (pair) return { vocabMerges: pair, why: '' };
  }
  return {
    why: 'no "tokenizer_dir" parameter and no tokenizer.json in the model folder tell which tokenizer it uses',
  };
}

export function nativeCandidate(
  model: LoadedModel,
  inputs: Port[],
  outputs: Port[],
  params: Record<string, string>,
  pipeline: Pipeline,
  note: Note,
  rel: (p: string) => string,
  emit: Emit,
): Step | undefined {
  const cfg = model.config;
  const generatedNative =
    cfg.backend === model.name && existsSync(join(stepSourcesDir(dirname(model.dir)), model.name, 'step.cc'));
  if (cfg.backend !== 'python' && !generatedNative) return undefined;
  const kind = tokenizerStepKind(inputs, outputs);
  if (!kind) return undefined; // some other Python model: kept as a custom step
  const keep = (why: string): undefined => {
    note(
      model.configFile,
      'TS-W002',
      `Python ${kind} step "${model.name}" is kept as a Python step: ${why}.`,
      'warning',
    );
    return undefined;
  };
  const tokenizer = findTokenizer(model, params);
  if (tokenizer.vocabMerges) {
    try {
      tokenizer.file = emit(tokenizerJsonFromFiles(tokenizer.vocabMerges), model.name);
    } catch (e) {
      if (!(e instanceof VocabMergesError)) throw e;
      return keep(
        `its ${basename(tokenizer.vocabMerges.vocab)} / ${basename(tokenizer.vocabMerges.merges)}: ${e.message}`,
      );
    }
    note(
      model.configFile,
      'TS-W008',
      `Step "${model.name}": ${basename(tokenizer.vocabMerges.vocab)} + ${basename(tokenizer.vocabMerges.merges)} become ${basename(tokenizer.file)} (byte-level BPE, as Hugging Face converts them), written beside the pipeline.`,
      'info',
    );
  }
  if (!tokenizer.file) return keep(tokenizer.why);

  const ports = nativePorts(model, kind, inputs, outputs, pipeline, note);
  if (typeof ports === 'string') return keep(ports);
  const { ins, outs } = ports;
  const step: Step = { name: model.name, kind, tokenizer: rel(tokenizer.file) };
  // The parameter model.py read at run time is gone from the step: say what took its place.
  for (const key of TOKENIZER_PARAMETERS.filter((k) => params[k] !== undefined)) {
    note(
      model.configFile,
      'TS-W008',
      `Step "${model.name}": parameter ${key} (${params[key]}) becomes the step's "tokenizer" (${step.tokenizer}); the native step ships a copy of it as 1/tokenizer.json instead of reading the folder at run time.`,
      'info',
    );
  }
  nativeSettings(model, kind, params, step, note);
  step.inputs = ins;
  step.outputs = outs;
  const rest = Object.fromEntries(
    Object.entries(params).filter(
      ([k]) =>
        !TOKENIZER_PARAMETERS.includes(k) &&
        !['add_special_tokens', 'skip_special_tokens', 'tokenizer_file', 'tokenizer_type'].includes(k),
    ),
  );
  if (Object.keys(rest).length) step.parameters = rest;
  return step;
}

/**
 * The native step's ports: each with its role; optional inputs and outputs without one are
 * dropped with their wires (and ensemble inputs that only fed them). A string says why the step
 * cannot be native.
 */
function nativePorts(
  model: LoadedModel,
  kind: 'tokenize' | 'detokenize',
  inputs: Port[],
  outputs: Port[],
  pipeline: Pipeline,
  note: Note,
): { ins: Port[]; outs: Port[] } | string {
  // Every port needs a role; optional inputs without one (EMBEDDING_BIAS_WORDS…) are dropped with their wires.
  const tables = roleTables(kind);
  const dropped: string[] = [];
  const withRoles = (
    ports: Port[],
    table: Map<string, PortRole>,
    side: 'input' | 'output',
  ): Port[] | string => {
    const out: Port[] = [];
    for (const p of ports) {
      const role = table.get(p.name);
      if (role) out.push({ ...p, role });
      else if (side === 'input' && p.optional) dropped.push(p.name);
      else if (side === 'output') dropped.push(p.name);
      else return p.name;
    }
    return out;
  };
  const ins = withRoles(inputs, tables.inputs, 'input');
  if (typeof ins === 'string') return `its required input "${ins}" has no native equivalent`;
  const outs = withRoles(outputs, tables.outputs, 'output');
  if (typeof outs === 'string') return `its output "${outs}" has no native equivalent`;
  const droppedOutputs = outputs.filter((o) => dropped.includes(o.name)).map((o) => o.name);
  // A dropped output may only feed optional inputs downstream.
  for (const name of droppedOutputs) {
    const users = pipeline.wires.filter((w) => w.from === `${model.name}.${name}`);
    if (users.some((w) => pipeline.outputs.some((o) => o.name === w.to)))
      return `its output "${name}" is an ensemble output and has no native equivalent`;
  }
  pipeline.wires = pipeline.wires.filter(
    (w) => !dropped.some((d) => w.to === `${model.name}.${d}` || w.from === `${model.name}.${d}`),
  );
  // Ensemble inputs that only fed dropped ports would be unused (Triton refuses those).
  pipeline.inputs = pipeline.inputs.filter((i) => {
    if (pipeline.wires.some((w) => w.from === i.name)) return true;
    note(
      model.configFile,
      'TS-W008',
      `Ensemble input "${i.name}" is left out: it only fed ${model.name}'s Python-only tensors (${dropped.join(', ')}).`,
      'warning',
    );
    return false;
  });
  if (dropped.length) {
    note(
      model.configFile,
      'TS-W071',
      `Step "${model.name}" becomes a native ${kind} step without ${dropped.join(', ')} (no native equivalent; optional).`,
      'warning',
    );
  }
  return { ins, outs };
}

/** The native step's special-token flag, batching and instances, from the Python step's. */
function nativeSettings(
  model: LoadedModel,
  kind: 'tokenize' | 'detokenize',
  params: Record<string, string>,
  step: Step,
  note: Note,
): void {
  const cfg = model.config;
  const flag = kind === 'tokenize' ? 'add_special_tokens' : 'skip_special_tokens';
  const value = templateFlag(params[flag]);
  if (value === 'default') {
    note(
      model.configFile,
      'TS-W008',
      `Step "${model.name}": ${flag} is ${JSON.stringify(params[flag])} (an unfilled placeholder, or neither true nor false); it becomes true, the default the template's model.py uses then.`,
      'info',
    );
  }
  if (kind === 'tokenize' && value !== undefined) step.addSpecialTokens = value !== false;
  if (kind === 'detokenize' && value !== undefined) step.skipSpecialTokens = value !== false;
  step.maxBatchSize = cfg.max_batch_size ?? 0;
  copyScheduling(cfg, step);
  // Several Python instances work around the GIL; one native instance serves in microseconds, and
  // a streaming detokenize step must have one to keep each answer's chunks in order.
  const instances = (step.instanceGroups ?? []).reduce((n, g) => n + (g.count ?? 1), 0);
  if (instances > 1) {
    note(
      model.configFile,
      'TS-W072',
      `Step "${model.name}" becomes a native ${kind} step with one CPU instance instead of ${instances} Python instances.`,
      'info',
    );
    delete step.instanceGroups;
  }
}

/**
 * A boolean step parameter as TensorRT-LLM's model.py reads it: `true`/`false` in any case;
 * anything else (an unfilled `${…}` placeholder included) leaves the default, true.
 */
function templateFlag(value: string | undefined): boolean | 'default' | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  return v === 'true' ? true : v === 'false' ? false : 'default';
}
