/**
 * `importRepository`: an existing Triton model repository (an ensemble and its steps, Python
 * pre/post-processing included) → a pipeline file. Python tokenizer steps become native
 * tokenize/detokenize steps when their tokenizer is found (a `tokenizer_dir` parameter, or a
 * tokenizer.json in the model folder) and their tensors are ones a native step speaks; otherwise
 * they are kept as they are, with a warning saying why. Nothing of a config is dropped silently:
 * fields the pipeline format has no name for travel in the step's raw `config`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { modelConfigToJson } from '../pbtxt/json.js';
import { parsePbtxt } from '../pbtxt/parse.js';
import type { ModelConfig, ModelTensor, PbMessage } from '../pbtxt/types.js';
import { ZERO_RANGE, type Diagnostic, type DiagnosticCode, type Severity } from '../model/diagnostics.js';
import {
  PIPELINE_FORMAT_VERSION,
  type DynamicBatching,
  type InstanceGroup,
  type Pipeline,
  type Port,
  type PortRole,
  type Step,
  type TritonDataType,
  type Wire,
} from '../pipeline/types.js';
import { fillTemplate } from './fillTemplate.js';
import { roleTables, tokenizerStepKind } from './roles.js';
import { findVocabMerges, tokenizerJsonFromFiles, VocabMergesError } from './vocabMerges.js';
import { stepSourcesDir } from '../repository/layout.js';

export interface ImportOptions {
  /** Where the pipeline file will be written: paths in it are made relative to its folder. */
  outFile?: string;
  /** Which ensemble to import when the repository has several. */
  ensemble?: string;
  /** Template placeholders to fill in every config.pbtxt first, as fill_template.py does. */
  set?: Record<string, string>;
}

export interface ImportResult {
  /** The pipeline as JSON text (absent when the repository cannot be imported). */
  pipelineText?: string;
  pipeline?: Pipeline;
  diagnostics: Diagnostic[];
  /**
   * Files the pipeline refers to that import made (absolute path → text): the tokenizer.json of a
   * step that ships GPT-2-style vocab.json + merges.txt. The caller writes them with the pipeline.
   */
  files?: Record<string, string>;
}

/** Parameters that name a tokenizer folder or file in the templates people use. */
const TOKENIZER_PARAMETERS = ['tokenizer_dir', 'tokenizer_path', 'tokenizer'];

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

interface LoadedModel {
  name: string;
  dir: string;
  configFile: string;
  config: ModelConfig;
}

export function importRepository(repoDir: string, options: ImportOptions = {}): ImportResult {
  const repo = resolve(repoDir);
  const outDir = dirname(resolve(options.outFile ?? join(process.cwd(), 'imported.pipeline.json')));
  const diagnostics: Diagnostic[] = [];
  const note = (file: string, code: DiagnosticCode, message: string, severity: Severity = 'error'): void => {
    diagnostics.push({ file, range: ZERO_RANGE, severity, code, message });
  };
  const rel = (p: string): string => {
    const r = relative(outDir, p).split(sep).join('/');
    return r.startsWith('.') ? r : `./${r}`;
  };

  if (!existsSync(repo) || !statSync(repo).isDirectory()) {
    note(
      repo,
      'TS-E071',
      `${repo} is not a folder; give the model repository (the folder holding one folder per model).`,
    );
    return { diagnostics };
  }

  // Every model folder with a config.pbtxt.
  const models = new Map<string, LoadedModel>();
  const filled = new Set<string>();
  for (const entry of readdirSync(repo, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const configFile = join(repo, entry.name, 'config.pbtxt');
    if (!existsSync(configFile)) continue;
    const text = fillTemplate(readFileSync(configFile, 'utf8'), options.set ?? {}, filled);
    const parsed = parsePbtxt(text, configFile);
    diagnostics.push(...parsed.diagnostics);
    if (parsed.config) {
      models.set(entry.name, {
        name: entry.name,
        dir: join(repo, entry.name),
        configFile,
        config: parsed.config,
      });
    }
  }
  for (const name of Object.keys(options.set ?? {})) {
    if (!filled.has(name))
      note(
        repo,
        'TS-W007',
        `--set ${name}: no config.pbtxt in ${repo} has a placeholder \${${name}}.`,
        'warning',
      );
  }
  if (diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  if (models.size === 0) {
    note(
      repo,
      'TS-E071',
      `${repo} holds no model folder with a config.pbtxt; is this a Triton model repository?`,
    );
    return { diagnostics };
  }

  const ensembles = [...models.values()].filter((m) => m.config.platform === 'ensemble');
  let ensemble: LoadedModel | undefined;
  if (options.ensemble !== undefined) {
    ensemble = ensembles.find((e) => e.name === options.ensemble);
    if (!ensemble) {
      note(
        repo,
        'TS-E071',
        `No ensemble named "${options.ensemble}" in ${repo}; ensembles there: ${ensembles.map((e) => e.name).join(', ') || 'none'}.`,
      );
      return { diagnostics };
    }
  } else if (ensembles.length === 1) ensemble = ensembles[0];
  else if (ensembles.length > 1) {
    note(
      repo,
      'TS-E071',
      `${repo} holds several ensembles (${ensembles.map((e) => e.name).join(', ')}); choose one to import.`,
    );
    return { diagnostics };
  }

  const pipeline: Pipeline = ensemble
    ? fromEnsemble(ensemble, models, note)
    : (() => {
        if (models.size > 1) {
          note(
            repo,
            'TS-E071',
            `${repo} has no ensemble and several models; an import starts from an ensemble (or one model).`,
          );
          return undefined as unknown as Pipeline;
        }
        return fromSingleModel([...models.values()][0]!);
      })();
  if (!pipeline) return { diagnostics };

  // Tokenizers made from vocab + merges: one file per distinct content, beside the pipeline file.
  const files: Record<string, string> = {};
  const stem = basename(options.outFile ?? 'imported.pipeline.json').replace(/\.pipeline\.json$/, '');
  const emit = (text: string, step: string): string => {
    const existing = Object.keys(files).find((f) => files[f] === text);
    if (existing) return existing;
    const file = join(outDir, `${stem}.${step}.tokenizer.json`);
    files[file] = text;
    return file;
  };
  // Turn each step's model into a pipeline step.
  pipeline.steps = pipeline.steps.map((placeholder) => {
    const model = models.get(placeholder.name)!;
    return convertStep(model, pipeline, note, rel, emit);
  });
  if (ensemble) noteModelsLeftOut(ensemble, models, pipeline, note);
  const pipelineText = `${JSON.stringify(pipeline, null, 2)}\n`;
  return { pipelineText, pipeline, diagnostics, ...(Object.keys(files).length ? { files } : {}) };
}

function port(t: ModelTensor): Port {
  const p: Port = {
    name: t.name,
    dataType: t.data_type.replace(/^TYPE_/, '') as TritonDataType,
    dims: t.dims.map(Number),
  };
  if (t.optional) p.optional = true;
  if (t.allow_ragged_batch) p.raggedBatch = true;
  const reshape = t.reshape as { shape?: (number | bigint)[] } | undefined;
  if (reshape) p.reshape = (reshape.shape ?? []).map(Number);
  return p;
}

type Note = (file: string, code: DiagnosticCode, message: string, severity?: Severity) => void;

function fromEnsemble(ensemble: LoadedModel, models: Map<string, LoadedModel>, note: Note): Pipeline {
  const cfg = ensemble.config;
  const steps = cfg.ensemble_scheduling?.step ?? [];
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
  const params = cfg.parameters;
  if (params && Object.keys(params).length) {
    pipeline.parameters = Object.fromEntries(
      Object.entries(params).map(([k, v]) => [k, v.string_value ?? '']),
    );
  }
  return pipeline;
}

/**
 * Models beside the ensemble that are none of its steps are left out of the pipeline, with a note
 * each: other ensembles, and front-ends such as TensorRT-LLM's `tensorrt_llm_bls`, a Python BLS
 * model that calls the steps itself. Keeping that one would bring Python back and break it: it
 * calls the steps by their Python-era tensors, and the generated ensemble already serves the same
 * requests natively.
 */
function noteModelsLeftOut(
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
function fromSingleModel(model: LoadedModel): Pipeline {
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

type Emit = (text: string, step: string) => string;

function convertStep(
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

function copyScheduling(cfg: ModelConfig, step: Step): void {
  const db = cfg.dynamic_batching as PbMessage | undefined;
  if (db) {
    const d: DynamicBatching = {};
    if (Array.isArray(db.preferred_batch_size)) d.preferredBatchSizes = db.preferred_batch_size.map(Number);
    if (db.max_queue_delay_microseconds !== undefined)
      d.maxQueueDelayMicroseconds = Number(db.max_queue_delay_microseconds);
    if (db.preserve_ordering !== undefined) d.preserveOrdering = Boolean(db.preserve_ordering);
    step.dynamicBatching = Object.keys(d).length ? d : true;
  }
  if (cfg.instance_group?.length) {
    step.instanceGroups = cfg.instance_group.map((g) => {
      const ig: InstanceGroup = {};
      if (g.count !== undefined) ig.count = Number(g.count);
      if (typeof g.kind === 'string') ig.kind = g.kind.replace(/^KIND_/, '') as InstanceGroup['kind'];
      if (Array.isArray(g.gpus) && g.gpus.length) ig.gpus = g.gpus.map(Number);
      return ig;
    });
  }
  if (cfg.model_transaction_policy?.decoupled) step.decoupled = true;
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

function nativeCandidate(
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
  if (typeof ins === 'string') return keep(`its required input "${ins}" has no native equivalent`);
  const outs = withRoles(outputs, tables.outputs, 'output');
  if (typeof outs === 'string') return keep(`its output "${outs}" has no native equivalent`);
  const droppedOutputs = outputs.filter((o) => dropped.includes(o.name)).map((o) => o.name);
  // A dropped output may only feed optional inputs downstream.
  for (const name of droppedOutputs) {
    const users = pipeline.wires.filter((w) => w.from === `${model.name}.${name}`);
    if (users.some((w) => pipeline.outputs.some((o) => o.name === w.to)))
      return keep(`its output "${name}" is an ensemble output and has no native equivalent`);
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
 * A boolean step parameter as TensorRT-LLM's model.py reads it: `true`/`false` in any case;
 * anything else (an unfilled `${…}` placeholder included) leaves the default, true.
 */
function templateFlag(value: string | undefined): boolean | 'default' | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  return v === 'true' ? true : v === 'false' ? false : 'default';
}
