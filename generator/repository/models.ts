/**
 * From a validated pipeline graph to what the repository holds: one ModelConfig per step plus
 * the ensemble's, the native step models the C++ printer renders, and the files each model
 * folder receives. Pure: nothing here touches the disk except reading the copied files' paths.
 */
import { basename } from 'node:path';
import type {
  DetokenizeStepModel,
  TensorBinding,
  TokenizeStepModel,
  NativeStepModel,
  OrchestratorModel,
} from '../codegen/nativeStep.js';
import { MAX_POSITION_PARAMETER } from '../model/encoderParameters.js';
import { portRoles, type NativeStepKind, type PortSide } from '../model/portRoles.js';
import { modelConfigFromJson } from '../pbtxt/json.js';
import type { ModelConfig, ModelTensor, PbMessage } from '../pbtxt/types.js';
import type { ResolvedPort, ResolvedStep } from '../pipeline/resolve.js';
import { versionFiles as copiedFiles } from '../pipeline/checks/files.js';
import type { PipelineGraph } from '../pipeline/graph.js';
import type { CompiledModule } from '../tscompile/index.js';
import type { ModuleBudget } from '../model/hooks.js';
import { planOrchestrator } from '../pipeline/orchestration.js';
import { endTokenFilesBeside, endTokenIds, type ChatTemplateFiles } from '../pipeline/chatTemplates.js';
import type { Port, StepKind } from '../pipeline/types.js';

export const TOKENIZER_FILE = 'tokenizer.json';
/** The orchestrator's detokenize tokenizer when it differs from its tokenize one. */
export const DETOKENIZER_FILE = 'detokenizer.json';
/** A tokenize step's chat template in its version folder: the tokenizer config, or a Jinja file beside it. */
export const TOKENIZER_CONFIG_FILE = 'tokenizer_config.json';
export const CHAT_TEMPLATE_FILE = 'chat_template.jinja';
/** Orchestrator config parameter naming the model it calls (deploy loads that one first). */
export const ORCHESTRATES_PARAMETER = 'orchestrates';

export interface GeneratedModel {
  name: string;
  kind: StepKind | 'ensemble' | 'orchestrator';
  config: ModelConfig;
  /** tokenize/detokenize steps: rendered to REPO.src/<model>/step.cc + CMakeLists.txt. */
  nativeStep?: NativeStepModel;
  /** A custom step written in TypeScript: its compiled module, rendered into src/. */
  customModule?: CompiledModule;
  /** The custom step's budget (pipeline `budget`). */
  budget?: ModuleBudget;
  /** the orchestrator: rendered to src/step.cc + src/CMakeLists.txt. */
  orchestrator?: OrchestratorModel;
  /** Files (or folders) copied into `<model>/1/`: absolute source → name there. */
  versionFiles: { source: string; name: string }[];
}

export function buildModels(graph: PipelineGraph, pipelineFile: string): GeneratedModel[] {
  if (graph.serving === 'orchestrator') return orchestratedModels(graph, pipelineFile);
  const models: GeneratedModel[] = [ensembleModel(graph)];
  const streamed = streamedSteps(graph);
  for (const step of graph.steps) models.push(stepModel(step, graph, pipelineFile, streamed.has(step.name)));
  return models;
}

/**
 * Steps that receive a decoupled step's responses one by one (directly or through other steps):
 * Triton's ensemble runs them once per streamed response.
 */
function streamedSteps(graph: PipelineGraph): Set<string> {
  const producer = new Map<string, string>();
  for (const [step, outputs] of graph.outputMap)
    for (const tensor of outputs.values()) producer.set(tensor, step);
  const streaming = new Set<string>();
  const streamed = new Set<string>();
  for (const step of graph.steps) {
    const inputs = [...(graph.inputMap.get(step.name)?.values() ?? [])];
    if (inputs.some((t) => streaming.has(producer.get(t) ?? ''))) streamed.add(step.name);
    if (step.decoupled || streamed.has(step.name)) streaming.add(step.name);
  }
  return streamed;
}

/**
 * The orchestrator under the pipeline's name (same tensors as the ensemble would have) and the
 * model step it calls; the tokenize and detokenize steps run inside the orchestrator.
 */
function orchestratedModels(graph: PipelineGraph, pipelineFile: string): GeneratedModel[] {
  const planned = planOrchestrator(graph);
  if (!planned.ok) throw new Error(`the native orchestrator cannot serve this pipeline: ${planned.reason}`);
  const { plan } = planned;
  const tokenize = stepModel(plan.tokenize, graph, pipelineFile, false);
  const detokenize = stepModel(plan.detokenize, graph, pipelineFile, false);
  const model = stepModel(plan.model, graph, pipelineFile, false);
  const tokenizerFile = graph.tokenizerFiles.get(plan.tokenize.name)!;
  const detokenizerFile = graph.tokenizerFiles.get(plan.detokenize.name)!;
  const separate = detokenizerFile !== tokenizerFile;
  const versionFiles = [{ source: tokenizerFile, name: TOKENIZER_FILE }];
  if (separate) versionFiles.push({ source: detokenizerFile, name: DETOKENIZER_FILE });
  versionFiles.push(...chatTemplateVersionFiles(graph.chatTemplates.get(plan.tokenize.name)));
  const config: ModelConfig = {
    name: graph.name,
    // Its own backend, like a native step: Triton finds libtriton_<name>.so in its version folder.
    backend: graph.name,
    max_batch_size: graph.maxBatchSize,
    input: graph.inputs.map((p) => inputTensor(optionalBesideConversation(p, graph))),
    output: graph.outputs.map(outputTensor),
    // Execute only starts each request (the model step's callbacks do the rest), so one instance
    // serves any number of requests at once.
    instance_group: [{ count: 1, kind: 'KIND_CPU' }],
    model_transaction_policy: { decoupled: true },
    parameters: parameters({
      ...graph.parameters,
      ...inputLimits(plan.tokenize, graph),
      [ORCHESTRATES_PARAMETER]: plan.model.name,
    }),
  };
  const orchestrator: OrchestratorModel = {
    kind: 'orchestrator',
    modelName: graph.name,
    tokenize: { ...(tokenize.nativeStep as TokenizeStepModel), tokenizerFile: TOKENIZER_FILE },
    detokenize: {
      ...(detokenize.nativeStep as DetokenizeStepModel),
      tokenizerFile: separate ? DETOKENIZER_FILE : TOKENIZER_FILE,
    },
    tokenizeInputs: plan.tokenizeInputs,
    target: plan.model.name,
    targetInputs: plan.modelInputs,
    targetTokens: plan.tokensOutput,
    targetSequenceLength: plan.sequenceLengthOutput,
    textOutput: binding({ ...plan.textOutput, path: plan.textOutput.path }),
    stopWordsInput: plan.stopWordsInput,
  };
  return [{ name: graph.name, kind: 'orchestrator', config, orchestrator, versionFiles }, model];
}

function tensor(p: Port): ModelTensor {
  const t: ModelTensor = { name: p.name, data_type: `TYPE_${p.dataType}`, dims: [...p.dims] };
  return t;
}

function inputTensor(p: Port): ModelTensor {
  const t = tensor(p);
  if (p.reshape) t.reshape = { shape: [...p.reshape] };
  if (p.raggedBatch) t.allow_ragged_batch = true;
  if (p.optional) t.optional = true;
  return t;
}

function outputTensor(p: Port): ModelTensor {
  const t = tensor(p);
  if (p.reshape) t.reshape = { shape: [...p.reshape] };
  return t;
}

/**
 * The orchestrator tokenizes as its tokenize step would: that step's prompt limits
 * (`max_input_bytes`, `max_input_tokens`; backends/triton tokenize_runner.h), the token limit
 * taken from the model as a standalone tokenize step takes it (consumersMaxInputLen).
 */
function inputLimits(tokenize: ResolvedStep, graph: PipelineGraph): Record<string, string> {
  const limits: Record<string, string> = {};
  const tokens = tokenize.parameters.max_input_tokens ?? consumersMaxInputLen(tokenize, graph);
  if (tokenize.parameters.max_input_bytes !== undefined)
    limits.max_input_bytes = tokenize.parameters.max_input_bytes;
  if (tokens !== undefined) limits.max_input_tokens = tokens;
  return limits;
}

/**
 * The smallest `max_input_len` (TensorRT-LLM's name; or another count `parameter`) among the steps that take a tokenize step's
 * outputs: the step refuses a longer prompt itself, before the model would. A value that is not a
 * count goes through as written, so the step refuses it at load naming the parameter.
 */
function consumersMaxInputLen(
  step: ResolvedStep,
  graph: PipelineGraph,
  parameter = 'max_input_len',
): string | undefined {
  const produced = new Set(graph.outputMap.get(step.name)?.values() ?? []);
  const limits = graph.steps
    .filter((s) => [...(graph.inputMap.get(s.name)?.values() ?? [])].some((t) => produced.has(t)))
    .map((s) => s.parameters[parameter])
    .filter((v): v is string => v !== undefined);
  if (limits.length === 0) return undefined;
  return limits.find((v) => !/^\d+$/.test(v)) ?? String(Math.min(...limits.map(Number)));
}

function parameters(params: Record<string, string>): ModelConfig['parameters'] {
  const entries = Object.entries(params);
  if (entries.length === 0) return undefined;
  return Object.fromEntries(entries.map(([k, v]) => [k, { string_value: v }]));
}

function ensembleModel(graph: PipelineGraph): GeneratedModel {
  const config: ModelConfig = {
    name: graph.name,
    platform: 'ensemble',
    max_batch_size: graph.maxBatchSize,
    input: graph.inputs.map((p) => inputTensor(optionalBesideConversation(p, graph))),
    output: graph.outputs.map(outputTensor),
    ensemble_scheduling: {
      step: graph.steps.map((s) => ({
        model_name: s.name,
        model_version: -1,
        input_map: Object.fromEntries(graph.inputMap.get(s.name) ?? []),
        output_map: Object.fromEntries(graph.outputMap.get(s.name) ?? []),
      })),
    },
  };
  if (graph.maxInflightRequests !== undefined)
    config.ensemble_scheduling!.max_inflight_requests = graph.maxInflightRequests;
  config.parameters = parameters(graph.parameters);
  if (!config.parameters) delete config.parameters;
  return { name: graph.name, kind: 'ensemble', config, versionFiles: [] };
}

function stepModel(
  step: ResolvedStep,
  graph: PipelineGraph,
  pipelineFile: string,
  streamed: boolean,
): GeneratedModel {
  const native = step.kind === 'tokenize' || step.kind === 'detokenize';
  const customModule = step.module?.custom ? step.module.loaded?.compiled : undefined;
  const config: ModelConfig = { name: step.name };
  // A native step is its own backend: Triton finds libtriton_<name>.so in the model's version folder.
  if (native || customModule) config.backend = step.name;
  else if (step.platform) config.platform = step.platform;
  else config.backend = step.backend;
  config.max_batch_size = step.maxBatchSize;
  const conversational = step.kind === 'tokenize' && step.inputs.some((p) => p.role === 'messages');
  // A request carries a prompt or a conversation: with a messages port the prompt is optional too.
  config.input = step.inputs.map((p) =>
    inputTensor(conversational && p.role === 'text' ? { ...p, optional: true } : p),
  );
  config.output = step.outputs.map(outputTensor);
  if (step.dynamicBatching) config.dynamic_batching = dynamicBatching(step.dynamicBatching);
  const groups =
    step.instanceGroups.length > 0 || !(native || customModule)
      ? step.instanceGroups
      : [{ count: 1, kind: 'CPU' as const }];
  if (groups.length > 0) {
    config.instance_group = groups.map(instanceGroup);
  }
  const params = { ...step.parameters };
  if (native) {
    params.tokenizer_file ??= TOKENIZER_FILE;
    if (step.kind === 'tokenize') {
      params.add_special_tokens ??= String(step.addSpecialTokens);
      const modelLimit = consumersMaxInputLen(step, graph);
      if (modelLimit !== undefined) params.max_input_tokens ??= modelLimit;
      // An encoder's cut when tokenizer.json has none (backends/triton encoder_options.cc).
      const positions = consumersMaxInputLen(step, graph, MAX_POSITION_PARAMETER);
      if (positions !== undefined) params.default_max_length ??= positions;
    } else {
      params.skip_special_tokens ??= String(step.skipSpecialTokens);
      // Each streamed chunk continues its request's decoder (backends/triton stream_decoders).
      if (streamed) params.streaming ??= 'true';
    }
  }
  // Weights named by a known name (checks/weights.ts) travel as their file, which the step loads.
  const weights = graph.weightFiles.get(step.name);
  if (weights !== undefined) params.gguf = basename(weights);
  config.parameters = parameters(params);
  if (!config.parameters) delete config.parameters;
  if (step.decoupled) config.model_transaction_policy = { decoupled: true };

  const merged = step.config ? (deepMerge(config, modelConfigFromJson(step.config)) as ModelConfig) : config;

  const versionFiles = copiedFiles(step, pipelineFile).map(({ source, name }) => ({ source, name }));
  if (weights !== undefined) versionFiles.push({ source: weights, name: basename(weights) });
  let nativeStep: NativeStepModel | undefined;
  if (native) {
    versionFiles.unshift(
      { source: graph.tokenizerFiles.get(step.name)!, name: TOKENIZER_FILE },
      ...chatTemplateVersionFiles(graph.chatTemplates.get(step.name)),
    );
    nativeStep = nativeStepModel(step, merged, graph);
  }
  return {
    name: step.name,
    kind: step.kind,
    config: merged,
    nativeStep,
    customModule,
    budget: step.budget,
    versionFiles,
  };
}

/** A step's dynamic batching as config.pbtxt's `dynamic_batching`. */
function dynamicBatching(batching: NonNullable<ResolvedStep['dynamicBatching']>): PbMessage {
  const db: PbMessage = {};
  if (batching.preferredBatchSizes?.length) db.preferred_batch_size = [...batching.preferredBatchSizes];
  if (batching.maxQueueDelayMicroseconds !== undefined) {
    db.max_queue_delay_microseconds = batching.maxQueueDelayMicroseconds;
  }
  if (batching.preserveOrdering !== undefined) db.preserve_ordering = batching.preserveOrdering;
  return db;
}

/** One instance group as config.pbtxt's `instance_group` entry. */
function instanceGroup(g: ResolvedStep['instanceGroups'][number]): PbMessage {
  const m: PbMessage = {};
  if (g.count !== undefined) m.count = g.count;
  if (g.kind !== undefined) m.kind = `KIND_${g.kind}`;
  if (g.gpus?.length) m.gpus = [...g.gpus];
  return m;
}

/** Objects merge key by key; anything else (lists included) is replaced. */
function deepMerge(base: PbMessage, over: PbMessage): PbMessage {
  const out: PbMessage = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    const isObj = (x: unknown): x is PbMessage => typeof x === 'object' && x !== null && !Array.isArray(x);
    out[k] = isObj(b) && isObj(v) ? deepMerge(b, v) : v;
  }
  return out;
}

function binding(p: ResolvedPort): TensorBinding {
  const b: TensorBinding = { name: p.name, dataType: p.dataType, dims: [...p.dims] };
  if (p.optional) b.optional = true;
  return b;
}

/** The step's ports bound by role, as the table lists the roles of its kind and side. */
function bindings(step: ResolvedStep, side: PortSide): Record<string, TensorBinding> {
  const out: Record<string, TensorBinding> = {};
  for (const { role } of portRoles(step.kind as NativeStepKind, side)) {
    const p = step[side].find((q) => q.role === role);
    if (p) out[role] = binding(p);
  }
  return out;
}

/** The chat template's files in a version folder (the tokenizer config keeps its special tokens). */
function chatTemplateVersionFiles(files: ChatTemplateFiles | undefined): { source: string; name: string }[] {
  if (!files) return [];
  const out: { source: string; name: string }[] = [];
  if (files.tokenizerConfig) out.push({ source: files.tokenizerConfig, name: TOKENIZER_CONFIG_FILE });
  if (files.template !== files.tokenizerConfig)
    out.push({ source: files.template, name: CHAT_TEMPLATE_FILE });
  return out;
}

function chatTemplateFileName(files: ChatTemplateFiles): string {
  return files.template === files.tokenizerConfig ? TOKENIZER_CONFIG_FILE : CHAT_TEMPLATE_FILE;
}

/**
 * An ensemble input that feeds the prompt of a tokenize step taking conversations is optional:
 * a request sends the prompt or the conversation.
 */
function optionalBesideConversation(p: Port, graph: PipelineGraph): Port {
  if (p.optional) return p;
  for (const step of graph.steps) {
    if (step.kind !== 'tokenize' || !step.inputs.some((q) => q.role === 'messages')) continue;
    const text = step.inputs.find((q) => q.role === 'text');
    if (text && graph.inputMap.get(step.name)?.get(text.name) === p.name) return { ...p, optional: true };
  }
  return p;
}

function nativeStepModel(step: ResolvedStep, config: ModelConfig, graph: PipelineGraph): NativeStepModel {
  const hooks = step.module?.hooks;
  const compiled = step.module?.loaded?.compiled;
  // Validation guarantees every required role is bound, so the casts only restate it.
  const common = {
    modelName: step.name,
    maxBatchSize: config.max_batch_size ?? step.maxBatchSize,
    tokenizerFile: TOKENIZER_FILE,
    ...(hooks && compiled && hooks.hooks.length > 0
      ? {
          hooks: {
            module: compiled,
            source: step.module!.ref,
            hooks: hooks.hooks,
            inputs: hooks.inputs.map((p) => p.name),
            budget: step.budget,
          },
        }
      : {}),
  };
  if (step.kind === 'tokenize') {
    return {
      kind: 'tokenize',
      ...common,
      addSpecialTokens: step.addSpecialTokens,
      ...chatFields(graph.chatTemplates.get(step.name), graph.tokenizerFiles.get(step.name)!),
      inputs: bindings(step, 'inputs') as TokenizeStepModel['inputs'],
      outputs: bindings(step, 'outputs') as TokenizeStepModel['outputs'],
    };
  }
  return {
    kind: 'detokenize',
    ...common,
    skipSpecialTokens: step.skipSpecialTokens,
    inputs: bindings(step, 'inputs') as DetokenizeStepModel['inputs'],
    outputs: bindings(step, 'outputs') as DetokenizeStepModel['outputs'],
  };
}

function chatFields(
  files: ChatTemplateFiles | undefined,
  tokenizerFile: string,
): Pick<TokenizeStepModel, 'chatTemplateFile' | 'endIds'> {
  if (!files) {
    // No conversations, but the model's configs still say where it ends.
    const beside = endTokenFilesBeside(tokenizerFile);
    return beside ? { endIds: endTokenIds(tokenizerFile, beside) } : {};
  }
  return { chatTemplateFile: chatTemplateFileName(files), endIds: endTokenIds(tokenizerFile, files) };
}
