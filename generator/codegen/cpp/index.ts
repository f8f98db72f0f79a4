/**
 * C++ printer for native steps: NativeStepModel -> `step.cc` (a StepSpec constant + one
 * registration macro from backends/triton) and `CMakeLists.txt` (links the prebuilt backends
 * libraries into `libtriton_<modelName>.so`). Layout lives in the handlebars templates beside this
 * file; this module validates the model and turns every value into an escaped literal first, so the
 * templates never see a raw user string.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import type { NativeStepModel, TensorBinding, TritonDataType } from '../nativeStep.js';
import { cmakeQuotedArgument, cppStringLiteral } from './escape.js';

export { cmakeQuotedArgument, cppStringLiteral } from './escape.js';

export interface RenderedNativeStep {
  'step.cc': string;
  'CMakeLists.txt': string;
}

/** A NativeStepModel the printer cannot turn into a working step; `path` names the field. */
export class NativeStepCodegenError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'NativeStepCodegenError';
  }
}

export function renderNativeStep(model: NativeStepModel): RenderedNativeStep {
  validateCommon(model);
  const view = model.kind === 'tokenize' ? tokenizeView(model) : detokenizeView(model);
  const templates = loadTemplates();
  return {
    'step.cc': templates.step(view),
    'CMakeLists.txt': templates.cmake({ outputName: cmakeQuotedArgument(`triton_${model.modelName}`) }),
  };
}

/** The backend library Triton looks for: the model's backend name is its model name. */
export function libraryFileName(modelName: string): string {
  return `libtriton_${modelName}.so`;
}

// --- view models -----------------------------------------------------------------------------

interface Field {
  field: string;
  value: string;
}

interface StepView {
  kind: string;
  specType: string;
  registerMacro: string;
  fields: Field[];
}

function tokenizeView(model: Extract<NativeStepModel, { kind: 'tokenize' }>): StepView {
  const { inputs, outputs } = model;
  requireType('inputs.text', inputs.text, 'string');
  requireType('outputs.inputIds', outputs.inputIds, 'integer');
  const optionalChecks: [string, TensorBinding | undefined, TypeClass][] = [
    ['inputs.requestOutputLen', inputs.requestOutputLen, 'integer'],
    ['inputs.badWords', inputs.badWords, 'string'],
    ['inputs.stopWords', inputs.stopWords, 'string'],
    ['inputs.endId', inputs.endId, 'integer'],
    ['inputs.padId', inputs.padId, 'integer'],
    ['inputs.embeddingBiasWords', inputs.embeddingBiasWords, 'string'],
    ['inputs.embeddingBiasWeights', inputs.embeddingBiasWeights, 'float'],
    ['outputs.inputLength', outputs.inputLength, 'integer'],
    ['outputs.requestOutputLen', outputs.requestOutputLen, 'integer'],
    ['outputs.badWordsIds', outputs.badWordsIds, 'integer'],
    ['outputs.stopWordsIds', outputs.stopWordsIds, 'integer'],
    ['outputs.endId', outputs.endId, 'integer'],
    ['outputs.padId', outputs.padId, 'integer'],
    ['outputs.attentionMask', outputs.attentionMask, 'integer'],
    ['outputs.embeddingBias', outputs.embeddingBias, 'float'],
  ];
  for (const [path, binding, kind] of optionalChecks) if (binding) requireType(path, binding, kind);
  if (outputs.requestOutputLen && !inputs.requestOutputLen) {
    throw new NativeStepCodegenError(
      'outputs.requestOutputLen',
      'is a pass-through of inputs.requestOutputLen, which the step does not have; add that input or drop the output',
    );
  }
  const fields: Field[] = [
    ...commonFields(model),
    { field: 'add_special_tokens', value: String(model.addSpecialTokens) },
    tensorField('text', inputs.text, 'inputs.text'),
  ];
  pushOptional(fields, 'request_output_len_in', inputs.requestOutputLen, 'inputs.requestOutputLen');
  pushOptional(fields, 'bad_words', inputs.badWords, 'inputs.badWords');
  pushOptional(fields, 'stop_words', inputs.stopWords, 'inputs.stopWords');
  pushOptional(fields, 'end_id_in', inputs.endId, 'inputs.endId');
  pushOptional(fields, 'pad_id_in', inputs.padId, 'inputs.padId');
  pushOptional(fields, 'embedding_bias_words', inputs.embeddingBiasWords, 'inputs.embeddingBiasWords');
  pushOptional(fields, 'embedding_bias_weights', inputs.embeddingBiasWeights, 'inputs.embeddingBiasWeights');
  fields.push(tensorField('input_ids', outputs.inputIds, 'outputs.inputIds'));
  pushOptional(fields, 'input_length', outputs.inputLength, 'outputs.inputLength');
  pushOptional(fields, 'request_output_len_out', outputs.requestOutputLen, 'outputs.requestOutputLen');
  pushOptional(fields, 'bad_words_ids', outputs.badWordsIds, 'outputs.badWordsIds');
  pushOptional(fields, 'stop_words_ids', outputs.stopWordsIds, 'outputs.stopWordsIds');
  pushOptional(fields, 'end_id', outputs.endId, 'outputs.endId');
  pushOptional(fields, 'pad_id', outputs.padId, 'outputs.padId');
  pushOptional(fields, 'attention_mask', outputs.attentionMask, 'outputs.attentionMask');
  pushOptional(fields, 'embedding_bias', outputs.embeddingBias, 'outputs.embeddingBias');
  return { kind: 'tokenize', specType: 'TokenizeSpec', registerMacro: 'TS_TOKENIZE_STEP', fields };
}

function detokenizeView(model: Extract<NativeStepModel, { kind: 'detokenize' }>): StepView {
  const { inputs, outputs } = model;
  requireType('inputs.tokens', inputs.tokens, 'integer');
  if (inputs.tokens.dims.length !== 1 && inputs.tokens.dims.length !== 2) {
    throw new NativeStepCodegenError(
      'inputs.tokens.dims',
      `must be [-1] (sequence) or [-1, -1] (beam, sequence), got [${inputs.tokens.dims.join(', ')}]`,
    );
  }
  if (inputs.sequenceLength) requireType('inputs.sequenceLength', inputs.sequenceLength, 'integer');
  requireType('outputs.text', outputs.text, 'string');
  const fields: Field[] = [
    ...commonFields(model),
    { field: 'skip_special_tokens', value: String(model.skipSpecialTokens) },
    tensorField('tokens', inputs.tokens, 'inputs.tokens'),
  ];
  pushOptional(fields, 'sequence_length', inputs.sequenceLength, 'inputs.sequenceLength');
  fields.push(tensorField('text', outputs.text, 'outputs.text'));
  return { kind: 'detokenize', specType: 'DetokenizeSpec', registerMacro: 'TS_DETOKENIZE_STEP', fields };
}

function commonFields(model: NativeStepModel): Field[] {
  return [
    { field: 'model_name', value: cppStringLiteral(model.modelName) },
    { field: 'max_batch_size', value: String(model.maxBatchSize) },
    { field: 'tokenizer_file', value: cppStringLiteral(model.tokenizerFile) },
  ];
}

function pushOptional(
  fields: Field[],
  field: string,
  binding: TensorBinding | undefined,
  path: string,
): void {
  if (binding) fields.push(tensorField(field, binding, path));
}

function tensorField(field: string, binding: TensorBinding, path: string): Field {
  validateTensor(binding, path);
  const dims = binding.dims.map((d) => String(d)).join(', ');
  const value = `TensorSpec{${cppStringLiteral(binding.name)}, ${cppDataType(binding.dataType)}, {${dims}}, ${Boolean(binding.optional)}}`;
  return { field, value };
}

function cppDataType(dataType: TritonDataType): string {
  return `TRITONSERVER_TYPE_${dataType === 'STRING' ? 'BYTES' : dataType}`;
}

// --- validation --------------------------------------------------------------------------------

const DATA_TYPES: ReadonlySet<string> = new Set<TritonDataType>([
  'BOOL',
  'UINT8',
  'UINT16',
  'UINT32',
  'UINT64',
  'INT8',
  'INT16',
  'INT32',
  'INT64',
  'FP16',
  'FP32',
  'FP64',
  'STRING',
  'BF16',
]);
const INTEGER_TYPES: ReadonlySet<string> = new Set([
  'UINT8',
  'UINT16',
  'UINT32',
  'UINT64',
  'INT8',
  'INT16',
  'INT32',
  'INT64',
]);

function validateCommon(model: NativeStepModel): void {
  const name = model.modelName;
  if (typeof name !== 'string' || name.length === 0) {
    throw new NativeStepCodegenError('modelName', 'is empty; give the step a model name');
  }
  if (name === '.' || name === '..' || name.includes('/') || hasControlCharacter(name)) {
    throw new NativeStepCodegenError(
      'modelName',
      `${JSON.stringify(name)} cannot be a model folder name (no "/", control characters, "." or ".."); use letters, digits, "_", "-" or "."`,
    );
  }
  if (!Number.isInteger(model.maxBatchSize) || model.maxBatchSize < 0) {
    throw new NativeStepCodegenError(
      'maxBatchSize',
      `must be a whole number >= 0, got ${String(model.maxBatchSize)}`,
    );
  }
  const file = model.tokenizerFile;
  if (
    typeof file !== 'string' ||
    file.length === 0 ||
    file.startsWith('/') ||
    file.split('/').some((part) => part === '..' || part === '') ||
    file.includes('\0')
  ) {
    throw new NativeStepCodegenError(
      'tokenizerFile',
      `${JSON.stringify(file)} must be a relative path inside the model version folder, e.g. "tokenizer.json"`,
    );
  }
}

function hasControlCharacter(value: string): boolean {
  return [...value].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
}

function validateTensor(binding: TensorBinding, path: string): void {
  if (typeof binding.name !== 'string' || binding.name.length === 0 || binding.name.includes('\0')) {
    throw new NativeStepCodegenError(`${path}.name`, 'must be a non-empty tensor name');
  }
  if (!DATA_TYPES.has(binding.dataType)) {
    throw new NativeStepCodegenError(
      `${path}.dataType`,
      `unknown Triton data type ${JSON.stringify(binding.dataType)}`,
    );
  }
  if (!Array.isArray(binding.dims) || binding.dims.length === 0) {
    throw new NativeStepCodegenError(`${path}.dims`, 'must list at least one dimension, e.g. [-1]');
  }
  binding.dims.forEach((d, i) => {
    if (!Number.isInteger(d) || (d < 1 && d !== -1)) {
      throw new NativeStepCodegenError(
        `${path}.dims[${i}]`,
        `must be -1 (variable) or a positive integer, got ${String(d)}`,
      );
    }
  });
}

type TypeClass = 'string' | 'integer' | 'float';

function requireType(path: string, binding: TensorBinding, kind: TypeClass): void {
  const ok =
    kind === 'string'
      ? binding.dataType === 'STRING'
      : kind === 'float'
        ? binding.dataType === 'FP32' || binding.dataType === 'FP64'
        : INTEGER_TYPES.has(binding.dataType);
  if (!ok) {
    const wanted =
      kind === 'string'
        ? 'STRING'
        : kind === 'float'
          ? 'FP32 or FP64'
          : 'an integer type (INT32, UINT32, INT64, ...)';
    throw new NativeStepCodegenError(`${path}.dataType`, `must be ${wanted}, got ${binding.dataType}`);
  }
}

// --- templates --------------------------------------------------------------------------------

interface Templates {
  step: Handlebars.TemplateDelegate<StepView>;
  cmake: Handlebars.TemplateDelegate<{ outputName: string }>;
}

let templates: Templates | undefined;

function loadTemplates(): Templates {
  if (templates) return templates;
  // Values are escaped for C++/CMake before rendering, so HTML escaping is off; strict mode turns
  // a template/view mismatch into an error instead of an empty string.
  const hbs = Handlebars.create();
  const compile = (file: string) =>
    hbs.compile(readFileSync(join(__dirname, file), 'utf8'), { noEscape: true, strict: true });
  templates = { step: compile('step.cc.hbs'), cmake: compile('CMakeLists.txt.hbs') };
  return templates;
}
