/**
 * A custom step written in TypeScript (`execute(rows: Row[], params?: Parameters): Out[]`) as a
 * complete Triton backend: its ports come from the fields of Row and Out, its config parameters
 * from the fields of Parameters; `step.cc` (from customStep.cc.hbs) reads each request's rows,
 * calls the compiled module (`module.h`) and writes the outputs. docs/HOOKS.md has the contract.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import {
  cppName,
  customStepInterface,
  TYPED_ARRAYS,
  type CompiledModule,
  type ModulePort,
  type PortPlan,
  type TsType,
} from '../../tscompile/index.js';
import { budgetScope, type ModuleBudget } from '../../model/hooks.js';
import { cppStringLiteral } from './escape.js';

export type CustomStepPort = ModulePort;

export interface CustomStep {
  inputs: CustomStepPort[];
  outputs: CustomStepPort[];
  /** Model-config parameters `execute` reads (all required). */
  parameters: string[];
  files: { 'step.cc': string; 'module.h': string; 'CMakeLists.txt': string };
}

export class CustomStepError extends Error {}

function cppDtype(d: string): string {
  return `TRITONSERVER_TYPE_${d === 'STRING' ? 'BYTES' : d}`;
}

function cppElement(t: TsType): string {
  if (t.kind === 'typed') return TYPED_ARRAYS[t.name];
  return 'double';
}

function inputAssign(p: PortPlan): string {
  const f = `row->${cppName(p.field.name)}`;
  const t = p.field.type;
  if (p.kind === 'scalar')
    return p.reader === 'Strings' ? `${f} = tsrt::fromUtf8(*first);` : `${f} = static_cast<double>(*first);`;
  if (t.kind === 'typed')
    return `${f} = tsrt::TypedArray<${cppElement(t)}>(tsrt::Vec<${cppElement(t)}>(first, first + static_cast<std::ptrdiff_t>(per)));`;
  if (p.reader === 'Strings')
    return `for (size_t i = 0; i < per; ++i) ${f}.p->push_back(tsrt::fromUtf8(first[static_cast<std::ptrdiff_t>(i)]));`;
  return `for (size_t i = 0; i < per; ++i) ${f}.p->push_back(static_cast<double>(first[static_cast<std::ptrdiff_t>(i)]));`;
}

function outputCollect(p: PortPlan): string {
  const name = cppStringLiteral(p.port.name);
  const f = `o->${cppName(p.field.name)}`;
  const t = p.field.type;
  const lines: string[] = [];
  const elem = p.reader === 'Strings' ? 'std::string' : p.reader === 'Floats' ? 'double' : 'int64_t';
  const conv = (x: string): string =>
    p.reader === 'Strings'
      ? `tsrt::toUtf8(${x})`
      : p.reader === 'Floats'
        ? `static_cast<double>(${x})`
        : `IntegerValue(static_cast<double>(${x}), ${name})`;
  lines.push(`std::vector<${elem}> v;`);
  if (p.kind === 'scalar') {
    lines.push(`for (auto& o : *out.p) v.push_back(${conv(f)});`);
    lines.push(`std::vector<int64_t> dims{1};`);
  } else {
    lines.push(`int64_t width = -1;`);
    lines.push(`for (auto& o : *out.p) {`);
    lines.push(
      `  if (width >= 0 && static_cast<int64_t>(${f}.size()) != width) throw glue::BackendError(std::string("output ") + ${name} + ": rows differ in length");`,
    );
    lines.push(`  width = static_cast<int64_t>(${f}.size());`);
    lines.push(
      t.kind === 'typed'
        ? `  for (auto x : *${f}.p) v.push_back(${conv('x')});`
        : `  for (auto& x : *${f}.p) v.push_back(${conv('x')});`,
    );
    lines.push(`}`);
    lines.push(`std::vector<int64_t> dims{width < 0 ? 0 : width};`);
  }
  const shape = `glue::WithBatch(config_.batching(), rows, dims)`;
  if (p.reader === 'Strings')
    lines.push(`result.outputs.push_back(glue::OutputTensor::Strings(${name}, ${shape}, v));`);
  else if (p.reader === 'Floats')
    lines.push(
      `result.outputs.push_back(glue::OutputTensor::Floats(${name}, ${cppDtype(p.port.dataType)}, ${shape}, v));`,
    );
  else
    lines.push(
      `result.outputs.push_back(glue::OutputTensor::Integers(${name}, ${cppDtype(p.port.dataType)}, ${shape}, v));`,
    );
  return lines.join('\n      ');
}

let templates: { step: Handlebars.TemplateDelegate; cmake: Handlebars.TemplateDelegate } | undefined;

function loadTemplates(): NonNullable<typeof templates> {
  if (templates) return templates;
  const hbs = Handlebars.create();
  const compile = (file: string): Handlebars.TemplateDelegate =>
    hbs.compile(readFileSync(join(__dirname, file), 'utf8'), { noEscape: true, strict: true });
  templates = { step: compile('customStep.cc.hbs'), cmake: compile('customStep.CMakeLists.txt.hbs') };
  return templates;
}

/** The backend for `module` (compiled without errors) as model `model`. Throws CustomStepError. */
export function renderCustomStep(module: CompiledModule, model: string, budget?: ModuleBudget): CustomStep {
  if (!/^[A-Za-z0-9_]+$/.test(model))
    throw new CustomStepError(
      `a custom step's name must be letters, digits and _ (it names libtriton_${model}.so)`,
    );
  if (module.diagnostics.length > 0 || !module.cpp)
    throw new CustomStepError(`${module.fileName} does not compile`);
  const iface = customStepInterface(module);
  if (iface.problems.length > 0)
    throw new CustomStepError(`${module.fileName}: ${iface.problems.join('; ')}`);
  const { inputs, outputs, rowType, outType, paramType } = iface;
  const params = iface.parameters.map((f) => {
    const key = cppStringLiteral(f.name);
    const target = `params_->${cppName(f.name)}`;
    if (f.type.kind === 'string') return { key, assign: `${target} = tsrt::fromUtf8(*v);` };
    if (f.type.kind === 'number')
      return { key, assign: `${target} = tsrt::stringToNumber(tsrt::fromUtf8(*v));` };
    return { key, assign: `${target} = *v == "true";` };
  });
  const t = loadTemplates();
  const source = module.fileName.replace(/[\r\n]/g, ' ');
  const integerHelper = outputs.some((o) => o.reader === 'Integers');
  let step = t.step({
    source,
    model,
    namespace: module.namespace,
    budgetScope: budgetScope(budget),
    rowType: cppName(rowType ?? ''),
    outType: cppName(outType ?? ''),
    paramType: paramType ? cppName(paramType) : '',
    hasParams: !!paramType,
    params,
    inputs: inputs.map((p) => ({
      name: cppStringLiteral(p.port.name),
      reader: p.reader,
      assign: inputAssign(p),
    })),
    outputs: outputs.map((p) => ({ collect: outputCollect(p) })),
  });
  if (integerHelper) {
    step = step.replace(
      'namespace {\n',
      'namespace {\n\n// A number written into an integer tensor must be an integer in range (JS has no integer type).\n' +
        'int64_t IntegerValue(double x, const char* name) {\n' +
        '  if (!(x >= -9.2e18 && x <= 9.2e18 && x == std::trunc(x))) throw triton_studio::glue::BackendError(std::string("output ") + name + ": " + tsrt::toUtf8(tsrt::numberToString(x)) + " is not an integer");\n' +
        '  return static_cast<int64_t>(x);\n}\n',
    );
  }
  return {
    inputs: inputs.map((p) => p.port),
    outputs: outputs.map((p) => p.port),
    parameters: iface.parameters.map((f) => f.name),
    files: { 'step.cc': step, 'module.h': module.cpp, 'CMakeLists.txt': t.cmake({ source, model }) },
  };
}
