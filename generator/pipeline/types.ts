/**
 * The pipeline file (`*.pipeline.json`) as TypeScript types. The JSON Schema in
 * `generator/schema/pipeline.schema.json` describes the same shape for editors; docs/PIPELINE.md
 * explains every field. Field names are camelCase in the file; the generator maps them onto
 * Triton's ModelConfig.
 */
import type { TritonDataType } from '../model/dataTypes.js';
import type { PortRole } from '../model/portRoles.js';
import type { ModuleBudget } from '../model/hooks.js';
import type { TargetArch } from '../build/architectures.js';

export type { TritonDataType };
export type {
  DetokenizeInputRole,
  DetokenizeOutputRole,
  PortRole,
  TokenizeInputRole,
  TokenizeOutputRole,
} from '../model/portRoles.js';

export const PIPELINE_FORMAT_VERSION = 1;

export type StepKind = 'tokenize' | 'detokenize' | 'model' | 'custom';

export interface Port {
  name: string;
  dataType: TritonDataType;
  /** Dims without the batch dimension that `maxBatchSize > 0` adds; -1 = any size. */
  dims: number[];
  optional?: boolean;
  /** Triton `allow_ragged_batch`: requests of different lengths batch together. */
  raggedBatch?: boolean;
  /** Triton `reshape`: the shape the model sees (e.g. [] for a scalar kept as [1] on the wire). */
  reshape?: number[];
  role?: PortRole;
  /** In a step that uses a preset: drop this preset port instead of changing it. */
  remove?: boolean;
}

export interface DynamicBatching {
  preferredBatchSizes?: number[];
  maxQueueDelayMicroseconds?: number;
  preserveOrdering?: boolean;
}

export interface InstanceGroup {
  count?: number;
  kind?: 'CPU' | 'GPU' | 'AUTO' | 'MODEL';
  gpus?: number[];
}

export interface Step {
  name: string;
  kind: StepKind;
  /** Preset id (`generator/presets`), e.g. `fastertransformer-gptj/preprocessing`. */
  preset?: string;
  description?: string;
  /** Tokenizer reference (tokenize/detokenize): a known name (`gpt2`) or a path relative to the file. */
  tokenizer?: string;
  /** Tokenize: add the tokenizer's special tokens (BOS…). Default true. */
  addSpecialTokens?: boolean;
  /**
   * Tokenize: the chat template that renders the `messages` port (path relative to the file): a
   * tokenizer_config.json or a Jinja file. Default: the tokenizer_config.json beside the tokenizer.
   */
  chatTemplate?: string;
  /**
   * Tokenize with a chat template: the model's generation_config.json (path relative to the file),
   * whose `eos_token_id` list joins the end tokens. Default: the one beside the tokenizer config.
   */
  generationConfig?: string;
  /** Detokenize: drop special tokens from the text. Default true. */
  skipSpecialTokens?: boolean;
  /**
   * Tokenize/detokenize: a TypeScript hooks module (path relative to the file) compiled into the
   * step: beforeEncode, afterDecode, startStream/onChunk/endStream (docs/HOOKS.md). The fields of
   * its `HookInputs` interface become optional STRING inputs of the step.
   */
  hooks?: string;
  /**
   * Custom: a TypeScript module (path relative to the file) exporting `execute(rows, params)`; the
   * step becomes the generated backend libtriton_<name>.so, its ports come from the module's types.
   */
  source?: string;
  /**
   * Hooks/custom: what one call of the module may take — time (ms) and the size of one value (MB);
   * defaults 10,000 ms and 256 MB, 0 lifts a limit (docs/HOOKS.md).
   */
  budget?: ModuleBudget;
  /**
   * Model/custom: the Triton backend (`tensorrtllm`, `onnxruntime`, `vllm`, `sim_llm`, …). A step's
   * own backend or platform replaces its preset's choice of either; `null` removes the preset's.
   */
  backend?: string | null;
  /** Model/custom: a Triton platform (`onnxruntime_onnx`, `tensorrt_plan`, …) instead of a backend. */
  platform?: string | null;
  maxBatchSize?: number;
  /** `true` = Triton's defaults; an object tunes it; `false` turns off a preset's batching. */
  dynamicBatching?: boolean | DynamicBatching;
  instanceGroups?: InstanceGroup[];
  decoupled?: boolean;
  /**
   * Model config `parameters` (string values; numbers/booleans are written as strings).
   * `null` removes a parameter the step's preset sets.
   */
  parameters?: Record<string, string | number | boolean | null>;
  inputs?: Port[];
  outputs?: Port[];
  /** Files copied into the model's version folder `1/` (paths relative to the pipeline file). */
  files?: string[];
  /** Raw ModelConfig fields (protobuf JSON, snake_case) merged last: overrides anything above. */
  config?: Record<string, unknown>;
}

export interface Wire {
  /** `step.PORT` (a step output) or an ensemble input name. */
  from: string;
  /** `step.PORT` (a step input) or an ensemble output name. */
  to: string;
  /** Name of the ensemble tensor the wire becomes; generated when left out. */
  tensor?: string;
}

export interface Pipeline {
  $schema?: string;
  version: number;
  /** Ensemble model name. */
  name: string;
  description?: string;
  /** Ensemble `max_batch_size`; 0 = no batching at the ensemble level. */
  maxBatchSize?: number;
  inputs: Port[];
  outputs: Port[];
  steps: Step[];
  wires: Wire[];
  /**
   * Prompts to try the pipeline with (the editor's "▶ Send prompt" / "⏱ Latency test" lenses sit
   * above each); generation ignores them.
   */
  samplePrompts?: string[];
  /** Extra folders searched for tokenizers by name (relative to the file). */
  tokenizerSearchPaths?: string[];
  /** Ensemble `max_inflight_requests` (backpressure behind decoupled steps). */
  maxInflightRequests?: number;
  /**
   * What clients call when a decoupled model step streams into a detokenize step: the native
   * orchestrator (default; exact streaming for every client) or a Triton ensemble (needs a unique
   * request id per streamed request). Other pipelines are always an ensemble.
   */
  serving?: Serving;
  /**
   * The server the pipeline is built for. `build` takes `target.arch` when no `--arch` is given
   * (precedence: `--arch` > this > the VS Code setting `tritonStudio.build.arch` > this machine).
   */
  target?: { arch?: TargetArch };
  parameters?: Record<string, string | number | boolean>;
  /** Graph editor node positions (generation ignores them): step name or `input:NAME` / `output:NAME`. */
  layout?: Record<string, NodePosition>;
}

export type Serving = 'orchestrator' | 'ensemble';

export interface NodePosition {
  x: number;
  y: number;
}
