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
import { dataType, hasDataTypeClass, isTritonDataType, type DataTypeClass } from '../../model/dataTypes.js';
import { portRoles } from '../../model/portRoles.js';
import type {
  DetokenizeStepModel,
  NativeStepModel,
  OrchestratorModel,
  TensorBinding,
  TokenizeStepModel,
  TritonDataType,
} from '../nativeStep.js';
import { cmakeQuotedArgument, cppStringLiteral } from './escape.js';
import { renderHooksFunction } from './hooks.js';

export { cmakeQuotedArgument, cppStringLiteral } from './escape.js';

export interface RenderedNativeStep {
  'step.cc': string;
  'CMakeLists.txt': string;
  /** The compiled hooks module, when the step has hooks (the orchestrator: its tokenize step's, or
   * the one module both steps name). */
  'module.h'?: string;
  /** The orchestrator's detokenize step's hooks module, when it differs from the tokenize step's. */
  'detokenize_module.h'?: string;
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
  const view = stepView(model);
  const templates = loadTemplates();
  const rendered: RenderedNativeStep = {
    'step.cc': templates.step(view),
    'CMakeLists.txt': templates.cmake({ outputName: cmakeQuotedArgument(`triton_${model.modelName}`) }),
  };
  if (model.hooks?.hooks.length) rendered['module.h'] = model.hooks.module.cpp;
  return rendered;
}

/**
 * The orchestrator's `step.cc`: an OrchestratorSpec (the tokenize and detokenize steps' specs,
 * checked as the steps' own are, plus the wiring around the model step) and TS_ORCHESTRATOR.
 */
export function renderOrchestrator(model: OrchestratorModel): RenderedNativeStep {
  validateCommon({ ...model.tokenize, modelName: model.modelName });
  validateCommon(model.tokenize);
  validateCommon(model.detokenize);
  const prefixed = (prefix: string, fields: Field[]) =>
    fields.map((f) => ({ ...f, field: `${prefix}.${f.field}` }));
  const str = cppStringLiteral;
  const fields: Field[] = [
    { field: 'model_name', value: str(model.modelName) },
    ...prefixed('tokenize', stepView(model.tokenize).fields),
    ...prefixed('detokenize', stepView(model.detokenize).fields),
    {
      field: 'tokenize_inputs',
      value: `{${model.tokenizeInputs.map((i) => `{${str(i.step)}, ${str(i.client)}}`).join(', ')}}`,
    },
    { field: 'target', value: str(model.target) },
    {
      field: 'target_inputs',
      value: `{${model.targetInputs.map((i) => `TargetInput{${str(i.name)}, ${i.fromTokenize}, ${str(i.source)}}`).join(', ')}}`,
    },
    { field: 'target_tokens', value: str(model.targetTokens) },
    { field: 'target_sequence_length', value: str(model.targetSequenceLength ?? '') },
    tensorField('text_output', model.textOutput, 'textOutput'),
    { field: 'stop_words_input', value: str(model.stopWordsInput ?? '') },
  ];
  requireType('textOutput', model.textOutput, 'string');
  // Each step's hooks, as its own step.cc would call them; one header per distinct module.
  const files: Partial<Record<'module.h' | 'detokenize_module.h', string>> = {};
  const hooks: OrchestratorHooksView[] = [];
  for (const step of [model.tokenize, model.detokenize]) {
    const view = stepView(step);
    if (!step.hooks || !view.hooks) continue;
    const module = step.hooks.module;
    const shared = hooks.find((h) => h.fileName === module.fileName);
    if (!shared && hooks.some((h) => h.namespace === module.namespace)) {
      throw new NativeStepCodegenError(
        'detokenize.hooks',
        `${module.fileName} compiles into the same C++ namespace as the tokenize step's module (${module.namespace}); give one of them another file name`,
      );
    }
    const header = shared?.header ?? (hooks.length === 0 ? 'module.h' : 'detokenize_module.h');
    if (!shared) files[header as keyof typeof files] = module.cpp;
    hooks.push({
      kind: step.kind,
      source: view.hooksSource,
      header,
      namespace: module.namespace,
      fileName: module.fileName,
      body: view.hooks,
    });
    fields.push({ field: `${step.kind}_hooks`, value: `${step.kind}_hooks::Hooks()` });
  }
  const templates = loadTemplates();
  return {
    'step.cc': templates.orchestrator({ fields, hooks, headers: [...new Set(hooks.map((h) => h.header))] }),
    'CMakeLists.txt': templates.cmake({ outputName: cmakeQuotedArgument(`triton_${model.modelName}`) }),
    ...files,
  };
}

interface OrchestratorHooksView {
  kind: 'tokenize' | 'detokenize';
  source: string;
  header: string;
  namespace: string;
  fileName: string;
  /** The body of the step's Hooks() function. */
  body: string;
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
  /** The body of Hooks() ('' without hooks), the module's namespace and file. */
  hooks: string;
  hooksNamespace: string;
  hooksSource: string;
}

const SPEC = {
  tokenize: { specType: 'TokenizeSpec', registerMacro: 'TS_TOKENIZE_STEP', option: 'add_special_tokens' },
  detokenize: {
    specType: 'DetokenizeSpec',
    registerMacro: 'TS_DETOKENIZE_STEP',
    option: 'skip_special_tokens',
  },
} as const;

/** The spec's fields: common ones, the step's option, then one per bound role in table order. */
function stepView(model: NativeStepModel): StepView {
  const bound = portRoles(model.kind).map((role) => ({
    role,
    path: `${role.side}.${role.role}`,
    binding: (model[role.side] as Partial<Record<string, TensorBinding>>)[role.role],
  }));
  // Required roles first, so a step missing its prompt or ids says that before anything else.
  for (const { role, path, binding } of [
    ...bound.filter((b) => b.role.required),
    ...bound.filter((b) => !b.role.required),
  ]) {
    if (binding) requireType(path, binding, role.dtypeClass);
    else if (role.required) throw new NativeStepCodegenError(path, 'is required: bind a tensor to it');
  }
  if (model.kind === 'tokenize') checkTokenize(model);
  else checkDetokenize(model);
  const option = model.kind === 'tokenize' ? model.addSpecialTokens : model.skipSpecialTokens;
  const fields: Field[] = [...commonFields(model), { field: SPEC[model.kind].option, value: String(option) }];
  if (model.kind === 'tokenize' && model.chatTemplateFile !== undefined)
    fields.push({ field: 'chat_template_file', value: cppStringLiteral(model.chatTemplateFile) });
  if (model.kind === 'tokenize' && model.endIds?.length) {
    for (const [i, id] of model.endIds.entries())
      if (!Number.isSafeInteger(id) || id < 0)
        throw new NativeStepCodegenError(`endIds[${i}]`, `${id} is not a token id`);
    fields.push({ field: 'end_ids', value: `{${model.endIds.join(', ')}}` });
  }
  for (const { role, path, binding } of bound) {
    if (binding) fields.push(tensorField(role.cppField, binding, path));
  }
  const hooks = model.hooks;
  if (hooks && (!hooks.module.cpp || hooks.module.diagnostics.some((d) => d.severity === 'error')))
    throw new NativeStepCodegenError('hooks', `${hooks.module.fileName} does not compile`);
  return {
    kind: model.kind,
    specType: SPEC[model.kind].specType,
    registerMacro: SPEC[model.kind].registerMacro,
    fields,
    hooks: hooks && hooks.hooks.length > 0 ? renderHooksFunction(hooks) : '',
    hooksNamespace: hooks?.module.namespace ?? '',
    hooksSource: (hooks?.source ?? '').replace(/[\r\n]/g, ' '),
  };
}

function checkTokenize({ inputs, outputs, chatTemplateFile }: TokenizeStepModel): void {
  if (inputs.messages && !chatTemplateFile) {
    throw new NativeStepCodegenError(
      'chatTemplateFile',
      'is required when inputs.messages is bound: the step renders conversations with it',
    );
  }
  if (outputs.requestOutputLen && !inputs.requestOutputLen) {
    throw new NativeStepCodegenError(
      'outputs.requestOutputLen',
      'is a pass-through of inputs.requestOutputLen, which the step does not have; add that input or drop the output',
    );
  }
}

function checkDetokenize({ inputs }: DetokenizeStepModel): void {
  if (inputs.tokens.dims.length !== 1 && inputs.tokens.dims.length !== 2) {
    throw new NativeStepCodegenError(
      'inputs.tokens.dims',
      `must be [-1] (sequence) or [-1, -1] (beam, sequence), got [${inputs.tokens.dims.join(', ')}]`,
    );
  }
}

function commonFields(model: NativeStepModel): Field[] {
  return [
    { field: 'model_name', value: cppStringLiteral(model.modelName) },
    { field: 'max_batch_size', value: String(model.maxBatchSize) },
    { field: 'tokenizer_file', value: cppStringLiteral(model.tokenizerFile) },
  ];
}

function tensorField(field: string, binding: TensorBinding, path: string): Field {
  validateTensor(binding, path);
  const dims = binding.dims.map((d) => String(d)).join(', ');
  const value = `TensorSpec{${cppStringLiteral(binding.name)}, ${cppDataType(binding.dataType)}, {${dims}}, ${Boolean(binding.optional)}}`;
  return { field, value };
}

function cppDataType(name: TritonDataType): string {
  return dataType(name).cppEnum;
}

// --- validation --------------------------------------------------------------------------------

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
  if (!isTritonDataType(binding.dataType)) {
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

const WANTED: Record<DataTypeClass, string> = {
  string: 'STRING',
  float: 'FP32 or FP64',
  integer: 'an integer type (INT32, UINT32, INT64, ...)',
  bool: 'BOOL',
};

function requireType(path: string, binding: TensorBinding, cls: DataTypeClass): void {
  // The runtime reads floats as FP32 or FP64 only (no half precision).
  const ok =
    cls === 'float'
      ? binding.dataType === 'FP32' || binding.dataType === 'FP64'
      : hasDataTypeClass(binding.dataType, cls);
  if (!ok)
    throw new NativeStepCodegenError(`${path}.dataType`, `must be ${WANTED[cls]}, got ${binding.dataType}`);
}

// --- templates --------------------------------------------------------------------------------

interface Templates {
  step: Handlebars.TemplateDelegate<StepView>;
  orchestrator: Handlebars.TemplateDelegate<{
    fields: Field[];
    hooks: OrchestratorHooksView[];
    headers: string[];
  }>;
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
  templates = {
    step: compile('step.cc.hbs'),
    orchestrator: compile('orchestrator.cc.hbs'),
    cmake: compile('CMakeLists.txt.hbs'),
  };
  return templates;
}
