/**
 * The model a native step (tokenize / detokenize) is generated from. The generator's pipeline
 * layer builds it from a validated pipeline step; the C++ code generator renders it into
 * `REPO.src/<model>/step.cc` + `CMakeLists.txt`. Kept free of pipeline-file details so the
 * printer can be tested on its own (protobuf-es style: model -> printer).
 */

import type { RoleBindings } from '../model/portRoles.js';
import type { TritonDataType } from '../model/dataTypes.js';
import type { StepHooksModel } from './cpp/hooks.js';

export type { TritonDataType };

export interface TensorBinding {
  /** Tensor name as the model's config.pbtxt declares it, e.g. "QUERY". */
  name: string;
  dataType: TritonDataType;
  /** Dims without the implicit batch dimension, e.g. [-1]. */
  dims: number[];
  optional?: boolean;
}

export interface TokenizeStepModel {
  kind: 'tokenize';
  /** Model name; also the backend name, so the library is `libtriton_<modelName>.so`. */
  modelName: string;
  maxBatchSize: number;
  /** File name of the tokenizer inside the model version folder, normally "tokenizer.json". */
  tokenizerFile: string;
  addSpecialTokens: boolean;
  /** The chat template file in the version folder that renders `inputs.messages`. */
  chatTemplateFile?: string;
  /** Every end token id of the model: added to each row's stop words. */
  endIds?: number[];
  /** Compiled TypeScript hooks the step calls (docs/HOOKS.md). */
  hooks?: StepHooksModel;
  /** Bindings by role: `generator/model/portRoles.ts` says what each role means. */
  inputs: RoleBindings<'tokenize', 'inputs', TensorBinding>;
  outputs: RoleBindings<'tokenize', 'outputs', TensorBinding>;
}

export interface DetokenizeStepModel {
  kind: 'detokenize';
  modelName: string;
  maxBatchSize: number;
  tokenizerFile: string;
  skipSpecialTokens: boolean;
  hooks?: StepHooksModel;
  inputs: RoleBindings<'detokenize', 'inputs', TensorBinding>;
  outputs: RoleBindings<'detokenize', 'outputs', TensorBinding>;
}

export type NativeStepModel = TokenizeStepModel | DetokenizeStepModel;

/**
 * The native orchestrator of a streaming pipeline (`backends/triton` orchestrator.h): the model
 * clients call, with the tokenize and detokenize steps inside it and the wiring around the model
 * step it calls through the server API.
 */
export interface OrchestratorModel {
  kind: 'orchestrator';
  /** The pipeline's name: the model (and backend library) clients call. */
  modelName: string;
  tokenize: TokenizeStepModel;
  detokenize: DetokenizeStepModel;
  /** tokenize step input → the client's input wired to it */
  tokenizeInputs: { step: string; client: string }[];
  /** the model step it calls */
  target: string;
  targetInputs: { name: string; fromTokenize: boolean; source: string }[];
  targetTokens: string;
  targetSequenceLength?: string;
  /** the client's text output */
  textOutput: TensorBinding;
  /** the client's input whose strings end the text (stop sequences) */
  stopWordsInput?: string;
}
